"""The span labels a gold record may carry: the labels of the packs' categories
(`prompts/categories.yaml`), the PII labels of persona spans and queries, and the labels of
the gold guideline that no pipeline source writes yet (docs/gold.md). A label outside them
(a typo, another project's scheme) would go through `gen build` and every export unseen, and
train or score a label nothing else has."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from gen.core.errors import UsageError
from gen.core.packs import load_categories
from gen.core.records import Record

#: Labels of the gold guideline that no pipeline source writes (dates other than a birth date).
GOLD_ONLY_LABELS = ("DATE",)


def known_labels(prompts_dir: Path | None) -> set[str]:
    """Every label a pack or PII set knows."""
    from labeling.persona_pii import FIELD_LABELS
    from scraping.queries.values import LABELS as QUERY_LABELS  # Faker: only when asked

    categories = load_categories(prompts_dir).categories
    return {
        *(info.label for info in categories.values()),
        *FIELD_LABELS.values(),
        *QUERY_LABELS,
        *GOLD_ONLY_LABELS,
    }


def unknown_labels(records: Iterable[Record], known: set[str]) -> Counter[str]:
    """Spans per label that `known` lacks."""
    return Counter(
        span.label for record in records for span in record.spans if span.label not in known
    )


def refuse_unknown_labels(path: Path, records: Iterable[Record], known: set[str]) -> None:
    """One line naming the first unknown label of `path`, its count and how to go on."""
    unknown = unknown_labels(records, known)
    if not unknown:
        return
    label, count = next(iter(unknown.items()))
    others = len(unknown) - 1
    more = f" (and {others} more unknown label{'s' if others > 1 else ''})" if others else ""
    raise UsageError(
        f"{path}: label {label!r} ({count} span{'s' if count > 1 else ''}) is no label of the "
        f"packs' categories nor a PII label{more}; correct it, or pass --allow-unknown-labels "
        "to import it as it is"
    )
