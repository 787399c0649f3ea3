"""The best score a labeler that classifies whole units can reach on a gold set.

A perfect unit classifier labels a unit with label L exactly when most of the unit's
visible characters lie inside gold spans of L, and labels nothing else. Its spans are
those units; scoring them against the gold set with `gen eval`'s metrics gives the
ceiling of the unit choice: what is lost because gold spans do not follow unit edges,
however good the model.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import replace

from gen.core.packs import UnitRules
from gen.core.records import Record, Span
from gen.evaluate.run import EvalReport, evaluate
from gen.text.units import split_units

#: Span source of the oracle's spans.
SOURCE = "unit_oracle"

Splitter = Callable[[str, str], list[tuple[int, int]]]


def oracle_spans(
    text: str, gold: Sequence[Span], units: Sequence[tuple[int, int]], labels: Collection[str]
) -> list[Span]:
    """One span per unit whose visible characters are mostly inside gold spans of one label."""
    owner: dict[int, str] = {}
    for span in gold:
        if span.label in labels:
            owner.update(dict.fromkeys(range(span.start, span.end), span.label))
    spans = []
    for start, end in units:
        visible = [i for i in range(start, end) if not text[i].isspace()]
        if not visible:
            continue
        label, count = Counter(owner.get(i) for i in visible).most_common(1)[0]
        if label is not None and 2 * count > len(visible):
            spans.append(Span(start, end, label, SOURCE))
    return spans


def unit_ceiling(gold: Sequence[Record], split: Splitter, labels: Collection[str]) -> EvalReport:
    """Scores of the perfect classifier of the units `split(text, language)` returns,
    counting only the gold spans of `labels` (the other labels are found by other means)."""
    kept = [replace(r, spans=[s for s in r.spans if s.label in labels]) for r in gold]
    predicted = [
        replace(r, spans=oracle_spans(r.text, r.spans, split(r.text, r.language), labels))
        for r in kept
    ]
    return evaluate(kept, predicted).groups["all"]


def unit_splitter(rules: Mapping[str, UnitRules], unit: str) -> Splitter:
    """Cuts each text into `unit`s with the rules of its language."""
    return lambda text, language: split_units(text, rules[language], unit)
