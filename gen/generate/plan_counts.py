"""How many items of a plan fall in each category, document type and shape, for `gen plan`:
from the turn-taking formula and the plan's own draws, without building the items (a plan of
millions is counted at once)."""

from __future__ import annotations

from collections import Counter

from gen.core.packs import LanguagePack
from gen.generate.plan import draw_doc_type
from gen.generate.plan_spec import PlanSpec, category_doc_types, plan_categories, validate_spec
from gen.generate.shapes import LAYOUT, NARRATIVE, TOPIC, draw_shape, draw_topic, shape_rng

#: (category, document type, shape): a topic-only item counts under its topic's type, as
#: `plan_item` gives it, not under the type its narrative would have had.
Row = tuple[str, str, str]


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


def doc_type_counts(pack: LanguagePack, spec: PlanSpec, n: int) -> tuple[dict[Row, float], bool]:
    """Items per (category, document type, shape) among the first `n`, and whether the counts
    are exact (drawn item by item, small plans) or expected (each type of a category as
    likely, each shape as its share)."""
    if n <= EXACT_DOC_TYPE_COUNTS:
        return dict(Counter(_row(pack, spec, index) for index in range(n))), True
    expected: Counter[Row] = Counter()
    for category, count in category_counts(pack, spec, n).items():
        kinds = category_doc_types(pack, category, spec.doc_type)
        for kind in kinds:
            for row, share in _shares(pack, spec, category, kind.name).items():
                expected[row] += count / len(kinds) * share
    return dict(expected), False


def _row(pack: LanguagePack, spec: PlanSpec, index: int) -> Row:
    """Item `index`'s category, type and shape, drawn as `plan.shaped` draws them."""
    category, kind, _ = draw_doc_type(pack, spec, index)
    rng = shape_rng(spec.seed, spec.draw_key, index)
    planned = spec.disclosures is not None
    shape = draw_shape(spec.shapes, pack, category, kind.name, rng, planned)
    doc_type = draw_topic(pack, category, rng).type if shape == TOPIC else kind.name
    return category, doc_type, shape


def _shares(pack: LanguagePack, spec: PlanSpec, category: str, doc_type: str) -> dict[Row, float]:
    """The chance of each row for an item of `category` and `doc_type`, as `draw_shape`
    draws: topic-only first (sensitive categories), then a layout where the type has one."""
    if spec.shapes is None:
        return {(category, doc_type, NARRATIVE): 1.0}
    sensitive = category in pack.categories.sensitive
    topic = spec.shapes.topic_share if sensitive else 0.0
    has_layout = spec.disclosures is not None and doc_type in pack.shapes.layouts
    layout = (1 - topic) * spec.shapes.layout_share if has_layout else 0.0
    shares: Counter[Row] = Counter({(category, doc_type, NARRATIVE): 1 - topic - layout})
    shares[(category, doc_type, LAYOUT)] += layout
    topics = pack.shapes.topics.get(category, ()) if topic else ()
    for subject in topics:
        shares[(category, subject.type, TOPIC)] += topic / len(topics)
    return {row: share for row, share in shares.items() if share}
