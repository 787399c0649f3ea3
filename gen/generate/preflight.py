"""Settings that cannot work, refused before the first request.

Two rules, both conservative (they refuse only what is certain to fail):

- **The token limit must be able to reach min_chars.** A token of a BPE vocabulary covers
  3-4.5 characters of prose (SmolLM2's tokenizer: 3.4 on the English prompt pack, 2.7 on
  the Italian one, 4.3 on English Wikipedia paragraphs). At `MAX_CHARS_PER_TOKEN` = 6,
  well above any of these, `max_tokens * 6 < min_chars` means that no answer can pass the
  length check, so every one would be rejected as too_short. Without --max-tokens the limit
  is the budget of each document type (`TokenLimit`), checked for the plan's shortest type.
- **A prompt plus its token limit must fit the context window.** Otherwise llama.cpp stops
  the answer at --ctx without an error. The prompts the run will send first are counted
  with the backend's tokenizer; a backend that cannot count tokens gets a lower bound,
  `len(prompt) / MAX_CHARS_PER_TOKEN`. A later prompt that still does not fit is caught
  when it comes back: the document is flagged `ctx_truncated` and counted.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from gen.backends.base import Backend
from gen.core.errors import UsageError
from gen.core.packs import LanguagePack
from gen.generate.plan_spec import PlanSpec, plan_doc_types, validate_spec

#: More characters per token than any prose reaches with the tokenizers we know.
MAX_CHARS_PER_TOKEN = 6
#: How many of the first prompts of a run are counted before it starts.
CHECKED_PROMPTS = 32


@dataclass(frozen=True)
class TokenLimit:
    """The answer's token limit: --max-tokens for every document when given, else a budget
    per document type, its usual `words` times `sampling.tokens_per_word`, so that a long
    report has room and a short form is not given a long one's."""

    #: --max-tokens; None: each document type's budget.
    option: int | None
    tokens_per_word: float
    generation_file: Path

    def __str__(self) -> str:
        if self.option is not None:
            return f"--max-tokens {self.option}"
        return (
            "the document types' token budgets (their words x sampling.tokens_per_word "
            f"{self.tokens_per_word} of {self.generation_file})"
        )

    def tokens(self, words: int) -> int:
        """The token limit of a document of a type `words` long."""
        return self.option or math.ceil(words * self.tokens_per_word)

    def of(self, words: int) -> str:
        """Where the limit of a `words`-long type comes from, for messages."""
        if self.option is not None:
            return str(self)
        return (
            f"the token budget {self.tokens(words)} of a {words}-word document type ({words} "
            f"x sampling.tokens_per_word {self.tokens_per_word} of {self.generation_file})"
        )


def check_reach(limit: TokenLimit, min_chars: int, words: int) -> None:
    """Refuse a token limit that cannot produce min_chars characters for a document type
    `words` long (the plan's shortest)."""
    tokens = limit.tokens(words)
    reach = tokens * MAX_CHARS_PER_TOKEN
    if reach >= min_chars:
        return
    needed = math.ceil(min_chars / MAX_CHARS_PER_TOKEN)
    raise UsageError(
        f"{limit.of(words)} cannot reach checks.min_chars {min_chars} of "
        f"{limit.generation_file}: even at {MAX_CHARS_PER_TOKEN} characters per token (more "
        f"than prose averages) {tokens} tokens make at most {reach} characters; use "
        f"--max-tokens {needed} or more"
    )


def token_limit(pack: LanguagePack, spec: PlanSpec, max_tokens: int | None) -> TokenLimit:
    """The answer's token limit, after refusing a plan or limit that cannot work."""
    validate_spec(pack, spec)
    limit = TokenLimit(
        option=max_tokens,
        tokens_per_word=pack.generation.sampling.tokens_per_word,
        generation_file=pack.folder / "generation.yaml",
    )
    shortest = min(doc_type.words for doc_type in plan_doc_types(pack, spec))
    check_reach(limit, pack.generation.checks.min_chars, shortest)
    return limit


def prompt_tokens(backend: Backend, prompt: str) -> tuple[int, bool]:
    """Tokens of `prompt`, and whether the count is exact (else a lower bound)."""
    if backend.capabilities.counts_tokens:
        return backend.count_tokens(prompt), True  # type: ignore[attr-defined]
    return len(prompt) // MAX_CHARS_PER_TOKEN, False


def check_context(
    backend: Backend, prompts: Iterable[tuple[str, str, int]], limit: TokenLimit, n_ctx: int
) -> None:
    """Refuse when one of `prompts` (item id, prompt text, its type's words) plus its token
    limit exceeds the context window; the advice fits the longest prompt too."""
    counted = [
        (*prompt_tokens(backend, text), limit.tokens(words), words, item_id)
        for item_id, text, words in prompts
    ]
    if not counted:
        return
    tokens, exact, answer, words, item_id = max(counted, key=lambda c: c[0] + c[2])
    if tokens + answer <= n_ctx:
        return
    longest = max(c[0] for c in counted)
    size = f"{tokens} tokens" if exact else f"at least {tokens} tokens (estimated)"
    if longest >= n_ctx:
        advice = f"raise --ctx above {longest} or shorten the prompts"
    else:
        advice = (
            f"raise --ctx to {tokens + answer} or more, or lower --max-tokens to "
            f"{n_ctx - longest} or less"
        )
    raise UsageError(
        f"the prompt of {item_id} has {size}; with {limit.of(words)} that is "
        f"{tokens + answer}, over --ctx {n_ctx}: {advice}"
    )
