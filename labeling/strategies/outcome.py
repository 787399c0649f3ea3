"""What one strategy produced for one document: its status, spans, reason and cost.

Statuses: `ok`; `flagged` (usable spans the labeler distrusts); `failed` (no usable answer,
the reason and raw answers are kept); `skipped` (nothing to do, with the reason).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gen.backends.base import Completion
from gen.core.records import Span

# Outcome statuses of one strategy on one document.
OK = "ok"
#: Usable spans, but the labeler distrusts them (a low alignment score).
FLAGGED = "flagged"
FAILED = "failed"
#: Not asked: nothing for this strategy to do (e.g. the category is not sensitive).
SKIPPED = "skipped"
#: Reason of an outcome whose backend call failed (the stage stops when it repeats).
MODEL_ERROR = "model_error"


@dataclass
class StrategyOutcome:
    """What one strategy produced for one document."""

    strategy: str
    status: str
    spans: list[Span] = field(default_factory=list)
    reason: str | None = None
    detail: str = ""
    #: Every raw answer the model gave, kept for failures and flagged results.
    answers: list[str] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    #: Strategy-specific figures (sentence groups, alignment quality and score...).
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def flag(self) -> str | None:
        """The record flag this outcome raises, if any."""
        if self.status == FAILED:
            return f"{self.strategy}_failed"
        if self.status == FLAGGED:
            return f"{self.strategy}_{self.reason}"
        return None

    def add(self, completion: Completion) -> None:
        self.prompt_tokens += completion.prompt_tokens
        self.completion_tokens += completion.completion_tokens
        self.seconds += completion.seconds

    def summary(self) -> dict[str, Any]:
        """The part stored in the labeled record's meta (raw answers go to the rejects)."""
        summary: dict[str, Any] = {
            "status": self.status,
            "spans": len(self.spans),
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "seconds": round(self.seconds, 3),
            **self.details,
        }
        if self.reason:
            summary.update(reason=self.reason, detail=self.detail)
        return summary
