"""Precision, recall and F1 from counts, and their micro, macro and weighted averages.

Counting is left to the callers (tokens, documents); this module only turns
per-label counts into scores, the same way for every level.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


def _ratio(numerator: float, denominator: float) -> float:
    """Zero when undefined, as scikit-learn's `zero_division=0`: an empty class scores 0."""
    return numerator / denominator if denominator else 0.0


def f1_score(precision: float, recall: float) -> float:
    return _ratio(2 * precision * recall, precision + recall)


@dataclass(frozen=True)
class Counts:
    """True positives, false positives and false negatives of one class."""

    tp: int = 0
    fp: int = 0
    fn: int = 0

    def __add__(self, other: Counts) -> Counts:
        return Counts(self.tp + other.tp, self.fp + other.fp, self.fn + other.fn)

    @property
    def support(self) -> int:
        """How many gold instances the class has (the weight of weighted averages)."""
        return self.tp + self.fn

    def scores(self) -> Scores:
        precision = _ratio(self.tp, self.tp + self.fp)
        recall = _ratio(self.tp, self.tp + self.fn)
        return Scores(
            precision=precision,
            recall=recall,
            f1=f1_score(precision, recall),
            support=self.support,
            tp=self.tp,
            fp=self.fp,
            fn=self.fn,
        )


@dataclass(frozen=True)
class Scores:
    """Precision, recall and F1; counts are None for macro and weighted averages."""

    precision: float
    recall: float
    f1: float
    support: int
    tp: int | None = None
    fp: int | None = None
    fn: int | None = None


@dataclass(frozen=True)
class ScoreTable:
    """Scores per label and their three averages."""

    per_label: dict[str, Scores] = field(default_factory=dict)
    micro: Scores = field(default_factory=lambda: Counts().scores())
    macro: Scores = field(default_factory=lambda: Counts().scores())
    weighted: Scores = field(default_factory=lambda: Counts().scores())


def score_table(counts: Mapping[str, Counts]) -> ScoreTable:
    """Per-label scores; micro sums the counts, macro averages the labels equally,
    weighted averages them by gold support."""
    per_label = {label: counts[label].scores() for label in sorted(counts)}
    scores = list(per_label.values())
    total = sum(counts.values(), Counts())
    support = total.support
    macro = _average(scores, [1.0] * len(scores), support)
    weighted = _average(scores, [s.support for s in scores], support)
    return ScoreTable(per_label=per_label, micro=total.scores(), macro=macro, weighted=weighted)


def _average(scores: list[Scores], weights: list[float], support: int) -> Scores:
    total_weight = sum(weights)

    def mean(values: list[float]) -> float:
        return _ratio(sum(w * v for w, v in zip(weights, values, strict=True)), total_weight)

    return Scores(
        precision=mean([s.precision for s in scores]),
        recall=mean([s.recall for s in scores]),
        f1=mean([s.f1 for s in scores]),
        support=support,
    )
