"""The labels gen knows, a team's own labels mapped onto them (`--label-map`), and the one
rule every gold import follows for a label outside them.

gen knows the labels of the packs' categories (`prompts/categories.yaml`), the PII labels
of persona spans and queries, and the labels of the gold guideline that no pipeline
source writes yet (docs/gold.md). Any other label (an annotation tool's `PER`, a typo, a
gold set's scheme of its own) would go through `gen build` and every export unseen, train
a detector on a class no other stage writes and score nothing in `gen eval`. So, in every
format, each label must be one of gen's, be mapped to one, be left out on purpose (mapped
to null, or `--drop-unmapped`), or be kept on purpose (`--allow-unknown-labels`, counted
in the summary); otherwise the import is refused before anything is written, naming every
such label, how many spans carry it and where it first occurs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Annotated

from pydantic import AfterValidator, ValidationInfo

from gen.core.errors import UsageError
from gen.core.packs import load_categories
from gen.core.records import Record
from gen.core.yamlio import StrictModel, load_model

#: Labels of the gold sets that no pipeline source writes yet (dates other than a birth
#: date; docs/gold.md).
GOLD_ONLY_LABELS = ("DATE",)


def known_labels(prompts_dir: Path | None = None) -> tuple[str, ...]:
    """The category labels of `categories.yaml`, the PII labels the pipeline writes (the
    persona fields' and the queries') and the gold-only labels."""
    from labeling.persona_pii import FIELD_LABELS
    from scraping.queries.values import LABELS as QUERY_LABELS  # Faker: only when asked

    categories = [info.label for info in load_categories(prompts_dir).categories.values()]
    pii = [*FIELD_LABELS.values(), *QUERY_LABELS]
    return tuple(dict.fromkeys([*categories, *pii, *GOLD_ONLY_LABELS]))


def _known_target(value: str | None, info: ValidationInfo) -> str | None:
    known = (info.context or {}).get("known", ())
    if value is not None and value not in known:
        raise ValueError(
            f"{value!r} is not a label gen knows; expected one of {', '.join(known)}, "
            "or null to leave the label out"
        )
    return value


class LabelMapFile(StrictModel):
    """`labels:` their label -> gen's label, or null to leave their label out."""

    labels: dict[str, Annotated[str | None, AfterValidator(_known_target)]]


def load_label_map(path: Path, known: tuple[str, ...]) -> dict[str, str | None]:
    """The mapping of a `--label-map` file; ConfigError naming the file, line and key."""
    return load_model(path, LabelMapFile, known=known).labels


@dataclass
class UnknownLabels:
    """Labels that are neither gen's nor mapped, found while reading: spans and first place."""

    counts: Counter[str] = field(default_factory=Counter)
    first: dict[str, str] = field(default_factory=dict)

    def add(self, label: str, where: str) -> None:
        self.counts[label] += 1
        self.first.setdefault(label, where)

    def error(self, known: tuple[str, ...]) -> UsageError:
        ranked = self.counts.most_common()
        found = ", ".join(
            f"{label} ({count} span{'s' if count > 1 else ''})" for label, count in ranked
        )
        return UsageError(
            f"labels gen does not know: {found} (first in {self.first[ranked[0][0]]}); map "
            "them with --label-map FILE.yaml, leave them out with --drop-unmapped or import "
            f"them as they are with --allow-unknown-labels (gen's labels: {', '.join(known)})"
        )


@dataclass(frozen=True)
class LabelRules:
    """How the labels of imported gold records become gen's: `mapping` first, then a label
    gen does not know is left out (`drop_unmapped`), kept (`allow_unknown`) or refused."""

    known: tuple[str, ...]
    mapping: Mapping[str, str | None] = field(default_factory=dict)
    drop_unmapped: bool = False
    allow_unknown: bool = False

    @classmethod
    def of(
        cls,
        prompts_dir: Path | None = None,
        label_map: Path | None = None,
        drop_unmapped: bool = False,
        allow_unknown: bool = False,
    ) -> LabelRules:
        if drop_unmapped and allow_unknown:
            raise UsageError(
                "--drop-unmapped leaves out the spans of labels gen does not know and "
                "--allow-unknown-labels keeps them: give one of them"
            )
        known = known_labels(prompts_dir)
        mapping = load_label_map(label_map, known) if label_map is not None else {}
        return cls(known, mapping, drop_unmapped, allow_unknown)

    def apply(
        self, record: Record, *, where: str, unknown: UnknownLabels, notes: Counter[str]
    ) -> Record:
        """`record` with its labels mapped; spans mapped to null, and spans of unknown
        labels with `drop_unmapped`, left out and counted in `notes`; spans of unknown
        labels kept with `allow_unknown`, else added to `unknown` (the caller refuses)."""
        spans = []
        for span in record.spans:
            if span.label in self.mapping:
                label = self.mapping[span.label]
                if label is None:
                    notes[f"spans of label {span.label} left out (mapped to null)"] += 1
                    continue
                spans.append(replace(span, label=label))
            elif span.label in self.known or self.allow_unknown:
                spans.append(span)
            elif self.drop_unmapped:
                notes[f"spans of unmapped label {span.label} left out"] += 1
            else:
                unknown.add(span.label, where)
        return replace(record, spans=spans)

    def unknown_in(self, records: Iterable[Record]) -> Counter[str]:
        """Spans per label gen does not know (kept with `allow_unknown`)."""
        known = set(self.known)
        return Counter(s.label for r in records for s in r.spans if s.label not in known)
