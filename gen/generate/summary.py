"""What one call of `gen documents` did, and what its rejected answers looked like."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from gen.core.shards import WHOLE, Shard
from gen.generate.placed_facts import FactCounts

# How a call ended (`DocumentsSummary.status`, stored in the plan's manifest history).
RUNNING = "running"
COMPLETE = "complete"
#: The plan already had n documents: nothing was asked.
NOTHING_TO_DO = "nothing_to_do"
#: The attempt budget ran out with fewer than n accepted.
SHORT = "short"
INTERRUPTED = "interrupted"
FAILED = "failed"

#: Flag of a document the context window cut before the model ended it or reached
#: --max-tokens (llama.cpp stops at --ctx without an error).
CTX_TRUNCATED = "ctx_truncated"
#: Flag of a document with a bracketed slot the writer left for someone to fill in
#: (`[Recipient's Name]`) and that gen.generate.slots could not fill; the slots are in
#: `meta.slots`.
UNFILLED_SLOT = "unfilled_slot"


@dataclass
class RejectEvidence:
    """The rejected answers of one reason, in enough detail to say what went wrong."""

    count: int = 0
    #: Answers that ended because they reached --max-tokens.
    at_token_limit: int = 0
    #: Answers the context window cut.
    ctx_truncated: int = 0
    #: Characters of the longest answer after clean-up.
    longest: int = 0
    #: The last detail given (error message, detected language...).
    detail: str = ""

    def add(self, *, chars: int, at_token_limit: bool, ctx_truncated: bool, detail: str) -> None:
        self.count += 1
        self.at_token_limit += at_token_limit
        self.ctx_truncated += ctx_truncated
        self.longest = max(self.longest, chars)
        self.detail = detail or self.detail


@dataclass
class DocumentsSummary:
    plan: str
    #: --n: documents wanted in the whole plan.
    n: int
    shard: Shard = WHOLE
    #: Documents of the plan in the table (earlier calls included); this shard's only.
    accepted: int = 0
    new_accepted: int = 0
    #: Accepted documents of this call that the context window cut (flagged ctx_truncated).
    ctx_truncated: int = 0
    #: Accepted documents of this call by flag (kept, but distrusted: `gen build` leaves
    #: out `prompt_echo`, and `--exclude-flagged` every flag).
    flagged: Counter[str] = field(default_factory=Counter)
    #: Slots of this call's accepted documents filled, by persona field or `unbracketed`.
    slots_filled: Counter[str] = field(default_factory=Counter)
    #: Answers of this call written again because they held an echo of their prompt.
    written_again: int = 0
    #: Accepted documents of this call by shape (narrative, layout, topic).
    shapes: Counter[str] = field(default_factory=Counter)
    evidence: dict[str, RejectEvidence] = field(default_factory=dict)
    completion_tokens: int = 0
    generation_seconds: float = 0.0
    wall_seconds: float = 0.0
    status: str = RUNNING
    #: Why the call ended short of n documents (`gen.generate.diagnosis`); "" otherwise.
    diagnosis: str = ""
    #: Planned facts of this call's documents that passed the quality checks.
    facts: FactCounts = field(default_factory=FactCounts)

    @property
    def wanted(self) -> int:
        """Documents this call must reach: --n, or this shard's part of it."""
        return self.shard.quota(self.n)

    @property
    def title(self) -> str:
        """`plan KEY`, with the shard when the plan is split."""
        return f"plan {self.plan}" + ("" if self.shard.whole else f" shard {self.shard}")

    @property
    def asked(self) -> str:
        """What the user asked for, e.g. `--n 5` or `--n 5: 3 in this shard`."""
        in_shard = "" if self.shard.whole else f": {self.wanted} in this shard"
        return f"--n {self.n}{in_shard}"

    @property
    def rejected(self) -> Counter[str]:
        """This call's rejected answers by reason."""
        return Counter({reason: found.count for reason, found in self.evidence.items()})

    def reject(
        self, reason: str, *, chars: int, at_token_limit: bool, ctx_truncated: bool, detail: str
    ) -> None:
        self.evidence.setdefault(reason, RejectEvidence()).add(
            chars=chars, at_token_limit=at_token_limit, ctx_truncated=ctx_truncated, detail=detail
        )

    @property
    def short(self) -> bool:
        """Fewer than n documents: the exit status says so."""
        return self.status == SHORT

    @property
    def tokens_per_second(self) -> float:
        return self.completion_tokens / self.generation_seconds if self.generation_seconds else 0.0
