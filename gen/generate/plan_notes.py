"""Plan options that change nothing in the plan they are given to, one line each for `gen plan`
and `gen documents` to print: a share no item of the plan can take, or an option that a
plan's topic-only items do not read. Such an option is not refused (the same command line
may serve several categories), but a user must not believe it did something."""

from __future__ import annotations

from gen.core.packs import LanguagePack
from gen.generate.plan_spec import PlanSpec, plan_categories, plan_doc_types, validate_spec

#: Names listed in a note before "and N more".
LISTED = 3


def plan_notes(pack: LanguagePack, spec: PlanSpec) -> list[str]:
    """What `spec`'s shape options leave unchanged, each as `--option ...: why`."""
    validate_spec(pack, spec)
    shapes = spec.shapes
    if shapes is None:
        return []
    notes = []
    categories = plan_categories(pack, spec)
    sensitive = [category for category in categories if category in pack.categories.sensitive]
    if shapes.topic_share and not sensitive:
        notes.append(
            f"--topic-share does not apply to category {_listed(categories)}: topic-only "
            "documents are of sensitive categories; ignored"
        )
    if shapes.topic_share and sensitive and spec.doc_type is not None:
        notes.append(
            "--doc-type does not apply to topic-only documents (--topic-share): they take the "
            "types of shapes.yaml's topics, and only the other documents are "
            f"{spec.doc_type!r}"
        )
    doc_types = sorted({kind.name for kind in plan_doc_types(pack, spec)})
    if shapes.layout_share and not any(name in pack.shapes.layouts for name in doc_types):
        notes.append(
            f"--layout-share does not apply to {_listed(doc_types)}: no skeleton in "
            "shapes.yaml's layouts; ignored"
        )
    return notes


def _listed(names: list[str]) -> str:
    """`a, b, c and 4 more`."""
    shown = ", ".join(names[:LISTED])
    return shown + (f" and {len(names) - LISTED} more" if len(names) > LISTED else "")
