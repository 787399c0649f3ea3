"""What `gen label` reports: counts over the whole labeled table (resumed runs included),
this run's cost, and how much every pair of strategies that ran agrees; on documents
written with planned disclosures, also how much each strategy agrees with the plan
(`planned vs sentences`: the facts the writer was asked for against what the strategy
found, which includes what the plan did not say)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from gen.core.records import Record, Span
from labeling.agreement import agreement
from labeling.planned import META_KEY
from labeling.planned import SOURCE as PLANNED
from labeling.strategies import strategy
from labeling.strategies.outcome import FLAGGED, OK, StrategyOutcome

#: Statuses whose spans are an answer of the strategy (compared in agreement).
ANSWERED = (OK, FLAGGED)


def pair_name(first: str, second: str) -> str:
    return f"{first} vs {second}"


@dataclass
class LabelSummary:
    strategy: str
    strategies: tuple[str, ...] = ()
    documents: int = 0
    labeled: int = 0
    new_labeled: int = 0
    #: Per strategy: how many documents ended ok / flagged / failed / skipped.
    statuses: dict[str, Counter[str]] = field(default_factory=dict)
    #: Per strategy: why documents failed, were flagged or skipped.
    reasons: dict[str, Counter[str]] = field(default_factory=dict)
    spans: Counter[str] = field(default_factory=Counter)
    flags: Counter[str] = field(default_factory=Counter)
    rejects: int = 0
    #: Per pair of strategies ("sentences vs censor"), per category: token-level agreement.
    agreement: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model_seconds: float = 0.0
    wall_seconds: float = 0.0

    def add_cost(self, outcome: StrategyOutcome) -> None:
        self.prompt_tokens += outcome.prompt_tokens
        self.completion_tokens += outcome.completion_tokens
        self.model_seconds += outcome.seconds

    def tally(self, labeled: Sequence[Record]) -> None:
        """Counts and agreement over every labeled record."""
        self.labeled = len(labeled)
        self.statuses, self.reasons = {}, {}
        self.spans, self.flags = Counter(), Counter()
        pairs: dict[str, dict[str, list[tuple[str, list[Span], list[Span]]]]] = {}
        for record in labeled:
            outcomes = (record.meta.get("labeling") or {}).get("strategies", {})
            for name, info in outcomes.items():
                self.statuses.setdefault(name, Counter())[info["status"]] += 1
                if info.get("reason"):
                    self.reasons.setdefault(name, Counter())[info["reason"]] += 1
            self.spans.update(span.source for span in record.spans)
            self.flags.update(record.flags)
            answered = [
                name for name in self.strategies if outcomes.get(name, {}).get("status") in ANSWERED
            ]
            for first, second in combinations(answered, 2):
                by_category = pairs.setdefault(pair_name(first, second), {})
                by_category.setdefault(record.category, []).append(
                    (record.text, _spans_of(record, first), _spans_of(record, second))
                )
            if META_KEY in record.meta:
                planned = [span for span in record.spans if span.source == PLANNED]
                for name in answered:
                    by_category = pairs.setdefault(pair_name(PLANNED, name), {})
                    by_category.setdefault(record.category, []).append(
                        (record.text, planned, _spans_of(record, name))
                    )
        self.agreement = {
            pair: {category: agreement(rows).to_dict() for category, rows in sorted(cats.items())}
            for pair, cats in pairs.items()
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "strategy": self.strategy,
            "documents": self.documents,
            "labeled": self.labeled,
            "strategies": {
                name: {**self.statuses.get(name, {}), "reasons": dict(self.reasons.get(name, {}))}
                for name in self.strategies
            },
            "spans_by_source": dict(self.spans),
            "flags": dict(self.flags),
            "rejects": self.rejects,
            "agreement": self.agreement,
            "last_run": {
                "new_labeled": self.new_labeled,
                "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens,
                "model_seconds": round(self.model_seconds, 2),
                "wall_seconds": round(self.wall_seconds, 2),
            },
        }


def _spans_of(record: Record, name: str) -> list[Span]:
    source = strategy(name).source
    return [span for span in record.spans if span.source == source]
