"""What `gen score` reports: counts over the whole of RUN/quality (resumed runs included) and
this run's cost."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from gen.core.pack_quality import QUESTIONS
from gen.core.records import Record
from gen.quality.stored import FAILED_KEY, META_KEY, previous_model


@dataclass
class QuestionCounts:
    """One question over the scored documents."""

    scored: int = 0
    total: float = 0.0
    #: Answers that failed, per reason.
    failed: Counter[str] = field(default_factory=Counter)

    @property
    def mean(self) -> float | None:
        return self.total / self.scored if self.scored else None

    def to_dict(self) -> dict[str, Any]:
        mean = self.mean
        return {
            "scored": self.scored,
            "mean": None if mean is None else round(mean, 4),
            "failed": dict(self.failed),
        }


@dataclass
class ScoreSummary:
    #: Generated documents in RUN/documents.
    documents: int = 0
    scored: int = 0
    new_scored: int = 0
    model: str | None = None
    questions: dict[str, QuestionCounts] = field(default_factory=dict)
    rejects: int = 0
    prompt_tokens: int = 0
    model_seconds: float = 0.0
    wall_seconds: float = 0.0

    def add_cost(self, prompt_tokens: int, seconds: float) -> None:
        self.prompt_tokens += prompt_tokens
        self.model_seconds += seconds

    def tally(self, records: Sequence[Record]) -> None:
        """Counts over every scored record."""
        self.scored = len(records)
        self.model = previous_model(records)
        self.questions = {name: QuestionCounts() for name in QUESTIONS}
        for record in records:
            for name, score in (record.meta.get(META_KEY) or {}).items():
                self.questions[name].scored += 1
                self.questions[name].total += float(score)
            for name, reason in (record.meta.get(FAILED_KEY) or {}).items():
                self.questions[name].failed[reason] += 1

    @property
    def failed(self) -> int:
        return sum(sum(counts.failed.values()) for counts in self.questions.values())

    def to_dict(self) -> dict[str, Any]:
        return {
            "documents": self.documents,
            "scored": self.scored,
            "model": self.model,
            "questions": {name: counts.to_dict() for name, counts in self.questions.items()},
            "failed_answers": self.failed,
            "rejects": self.rejects,
            "last_run": {
                "new_scored": self.new_scored,
                "prompt_tokens": self.prompt_tokens,
                "model_seconds": round(self.model_seconds, 2),
                "wall_seconds": round(self.wall_seconds, 2),
            },
        }
