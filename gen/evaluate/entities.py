"""Are the span edges right: the SemEval-2013 entity schemes, computed by nervaluate.

strict: same edges and label; exact: same edges; partial: overlapping edges
(half a point); type: overlapping edges and the same label.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from nervaluate import Evaluator

from gen.core.records import Span
from gen.evaluate.inputs import DocumentPair

#: SemEval-2013 scheme names and nervaluate's names for them.
SCHEMES = {"strict": "strict", "exact": "exact", "partial": "partial", "type": "ent_type"}


@dataclass(frozen=True)
class EntityScores:
    """SemEval-2013 counts: correct, incorrect, partial, missing, spurious."""

    cor: int
    inc: int
    par: int
    mis: int
    spu: int
    precision: float
    recall: float
    f1: float


@dataclass(frozen=True)
class EntityScheme:
    overall: EntityScores
    per_label: dict[str, EntityScores] = field(default_factory=dict)


def _entities(spans: Iterable[Span], negative: Sequence[str]) -> list[dict[str, Any]]:
    # nervaluate's entity ends are inclusive.
    return [
        {"label": s.label, "start": s.start, "end": s.end - 1}
        for s in spans
        if s.label not in negative
    ]


def _entity_scores(result: Any) -> EntityScores:
    return EntityScores(
        cor=result.correct,
        inc=result.incorrect,
        par=result.partial,
        mis=result.missed,
        spu=result.spurious,
        precision=result.precision,
        recall=result.recall,
        f1=result.f1,
    )


_NO_ENTITIES = EntityScores(0, 0, 0, 0, 0, 0.0, 0.0, 0.0)


def entity_schemes(
    pairs: Sequence[DocumentPair], labels: Sequence[str], negative: Sequence[str]
) -> dict[str, EntityScheme]:
    """Strict, exact, partial and type schemes over all pairs, overall and per label."""
    gold = [_entities(pair.gold, negative) for pair in pairs]
    pred = [_entities(pair.pred, negative) for pair in pairs]
    results = Evaluator(gold, pred, tags=list(labels), loader="dict").evaluate() if pairs else {}
    overall = results.get("overall", {})
    per_label = results.get("entities", {})
    return {
        scheme: EntityScheme(
            overall=_entity_scores(overall[name]) if name in overall else _NO_ENTITIES,
            per_label={
                label: _entity_scores(per_label[label][name])
                for label in labels
                if name in per_label.get(label, {})
            },
        )
        for scheme, name in SCHEMES.items()
    }
