"""The best score a labeler that classifies whole units can reach on a gold set, and the
score it must beat to have learned anything.

A perfect unit classifier labels a unit with label L exactly when most of the unit's
visible characters lie inside gold spans of L, and labels nothing else. Its spans are
those units; scoring them against the gold set with `gen eval`'s metrics gives the
ceiling of the unit choice: what is lost because gold spans do not follow unit edges,
however good the model.

The floor is the labeler that reads nothing: every unit of a document generated for a
sensitive category gets that category, and documents of a non-sensitive category get
nothing. A generated sensitive document discloses its category somewhere, so this already
finds most gold tokens; a model's labels are worth something only where they score above
it (they are then telling units apart, not just echoing the document's category).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import replace

from gen.core.pack_language import UnitRules
from gen.core.packs import LanguagePack
from gen.core.records import Record, Span
from gen.evaluate.run import EvalReport, evaluate
from gen.text.units import split_units

#: Span source of the oracle's spans.
SOURCE = "unit_oracle"
#: Span source of the floor's spans.
FLOOR_SOURCE = "unit_floor"

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


def _scored_against(
    gold: Sequence[Record], labels: Collection[str], spans_of: Callable[[Record], list[Span]]
) -> EvalReport:
    """`gen eval`'s scores of the spans `spans_of(record)` gives, counting only the gold
    spans of `labels` (the other labels are found by other means)."""
    kept = [replace(r, spans=[s for s in r.spans if s.label in labels]) for r in gold]
    return evaluate(kept, [replace(r, spans=spans_of(r)) for r in kept]).groups["all"]


def unit_ceiling(gold: Sequence[Record], split: Splitter, labels: Collection[str]) -> EvalReport:
    """Scores of the perfect classifier of the units `split(text, language)` returns."""
    return _scored_against(
        gold,
        labels,
        lambda r: oracle_spans(r.text, r.spans, split(r.text, r.language), labels),
    )


def unit_floor(
    gold: Sequence[Record],
    split: Splitter,
    labels: Collection[str],
    category_labels: Mapping[str, str | None],
) -> EvalReport:
    """Scores of labeling every unit of a document with its category's label
    (`category_labels`: category -> label, None for a non-sensitive category)."""

    def every_unit(record: Record) -> list[Span]:
        label = category_labels.get(record.category)
        if label is None or label not in labels:
            return []
        return [
            Span(start, end, label, FLOOR_SOURCE)
            for start, end in split(record.text, record.language)
        ]

    return _scored_against(gold, labels, every_unit)


def category_label_map(packs: Iterable[LanguagePack]) -> dict[str, str | None]:
    """Category -> its span label, None for a non-sensitive category (for `unit_floor`)."""
    return {
        name: info.label if info.sensitive else None
        for pack in packs
        for name, info in pack.categories.categories.items()
    }


def unit_splitter(rules: Mapping[str, UnitRules], unit: str) -> Splitter:
    """Cuts each text into `unit`s with the rules of its language."""
    return lambda text, language: split_units(text, rules[language], unit)
