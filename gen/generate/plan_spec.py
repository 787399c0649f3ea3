"""What a `gen documents` plan asks for: its spec and key, checked against the prompts
before any work, and the categories and document types it draws from."""

from __future__ import annotations

import re
from dataclasses import dataclass

from gen.core.errors import UsageError
from gen.core.pack_taxonomy import DocType
from gen.core.packs import LanguagePack
from gen.generate.disclosures import DisclosureSpec, check_non_disclosures
from gen.generate.shapes import ShapeSpec, check_shapes

ALL = "all"


@dataclass(frozen=True)
class PlanSpec:
    """What a user asked for; two runs with the same spec share item ids."""

    language: str
    category: str = ALL
    doc_type: str | None = None
    seed: int = 0
    #: Planned disclosures (`--disclosures planned`); None: the model writes freely.
    disclosures: DisclosureSpec | None = None
    #: Shares of layout and topic-only documents (`--layout-share`, `--topic-share`).
    shapes: ShapeSpec | None = None

    @property
    def key(self) -> str:
        """Prefix of every item id of this plan (ids stay readable in file listings)."""
        key = f"{self.draw_key}-{self.disclosures.key}" if self.disclosures else self.draw_key
        return key + (self.shapes.key if self.shapes else "")

    @property
    def draw_key(self) -> str:
        """What an item's draws derive from: the same with or without disclosures, so a
        planned run writes about the same personas and document types as a free one."""
        doc_type = _slug(self.doc_type) if self.doc_type else ALL
        return f"{self.language}-{self.category}-{doc_type}-s{self.seed}"


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def _categories(pack: LanguagePack, spec: PlanSpec) -> list[str]:
    known = list(pack.categories.categories)
    if spec.category == ALL:
        return known
    if spec.category not in known:
        raise UsageError(
            f"unknown category {spec.category!r}; expected one of: {ALL}, {', '.join(known)}"
        )
    return [spec.category]


def category_doc_types(pack: LanguagePack, category: str, doc_type: str | None) -> list[DocType]:
    types = pack.doc_types(category)
    if doc_type is None:
        return types
    chosen = [t for t in types if t.name.lower() == doc_type.lower()]
    if not chosen:
        raise UsageError(
            f"unknown document type {doc_type!r} for category {category!r}; expected one of: "
            + ", ".join(t.name for t in types)
        )
    return chosen


def validate_spec(pack: LanguagePack, spec: PlanSpec) -> None:
    """Fail before any work when the spec names something the prompts do not define."""
    categories = _categories(pack, spec)
    if spec.doc_type is not None and not any(
        t.name.lower() == spec.doc_type.lower() for c in categories for t in pack.doc_types(c)
    ):
        if len(categories) == 1:
            category_doc_types(pack, categories[0], spec.doc_type)
        known = sorted({t.name for c in categories for t in pack.doc_types(c)})
        raise UsageError(
            f"unknown document type {spec.doc_type!r} in any category; expected one of: "
            + ", ".join(known)
        )
    if spec.disclosures is not None:
        pack.facts  # noqa: B018 (loaded and checked now, not at the first document)
        check_non_disclosures(pack, spec.disclosures)
    check_shapes(pack, spec.shapes, spec.disclosures)


def plan_categories(pack: LanguagePack, spec: PlanSpec) -> list[str]:
    """The categories that take turns: item i has category i % len(categories)."""
    categories = _categories(pack, spec)
    if spec.doc_type is None:
        return categories
    return [
        c
        for c in categories
        if any(t.name.lower() == spec.doc_type.lower() for t in pack.doc_types(c))
    ]


def plan_doc_types(pack: LanguagePack, spec: PlanSpec) -> list[DocType]:
    """Every document type the plan may draw, of every category that takes a turn."""
    return [
        t for c in plan_categories(pack, spec) for t in category_doc_types(pack, c, spec.doc_type)
    ]
