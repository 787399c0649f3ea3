"""How many items of a plan fall in each category and document type, for `gen plan`: from
the turn-taking formula and the plan's own draws, without building the items (a plan of
millions is counted at once)."""

from __future__ import annotations

from collections import Counter

from gen.core.packs import LanguagePack
from gen.generate.plan import (
    PlanSpec,
    category_doc_types,
    draw_doc_type,
    plan_categories,
    validate_spec,
)


def category_counts(pack: LanguagePack, spec: PlanSpec, n: int) -> dict[str, int]:
    """Items per category among the first `n`, from the turn-taking formula alone (no item
    is built, so a plan of millions is counted at once)."""
    validate_spec(pack, spec)
    categories = plan_categories(pack, spec)
    turns, rest = divmod(n, len(categories))
    return {category: turns + (k < rest) for k, category in enumerate(categories)}


#: Up to this many items, `gen plan` draws each item's document type to count them exactly
#: (tens of microseconds an item); beyond, it shows the expected counts of the even draw.
EXACT_DOC_TYPE_COUNTS = 10_000


def doc_type_counts(
    pack: LanguagePack, spec: PlanSpec, n: int
) -> tuple[dict[tuple[str, str], float], bool]:
    """Items per (category, document type) among the first `n`, and whether the counts are
    exact (drawn item by item, small plans) or expected (each type of a category as likely)."""
    if n <= EXACT_DOC_TYPE_COUNTS:
        drawn = Counter(draw_doc_type(pack, spec, index)[:2] for index in range(n))
        return {(category, kind.name): count for (category, kind), count in drawn.items()}, True
    expected = {}
    for category, count in category_counts(pack, spec, n).items():
        kinds = category_doc_types(pack, category, spec.doc_type)
        expected.update({(category, kind.name): count / len(kinds) for kind in kinds})
    return expected, False
