"""The labels gen knows, and a team's own labels mapped onto them (`--label-map`).

An annotation tool's file carries the labels its team chose (`PER`, `Diagnosis`). A
label gen does not know would train a detector on a class no other stage writes and
score nothing in `gen eval`, so each must be one of gen's, be mapped to one, or be left
out on purpose (mapped to null, or `--drop-unmapped`); otherwise the import is refused
before anything is written, naming every such label and how many spans carry it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Annotated

from pydantic import AfterValidator, ValidationInfo

from gen.core.errors import UsageError
from gen.core.packs import load_categories
from gen.core.records import Record
from gen.core.yamlio import StrictModel, load_model

#: Labels of the gold sets that no pipeline source writes yet (docs/gold.md).
GOLD_ONLY_LABELS = ("DATE",)


def known_labels(prompts_dir: Path | None = None) -> tuple[str, ...]:
    """The category labels of `categories.yaml`, the PII labels the pipeline writes (the
    query labels, which include the persona ones) and the gold-only labels."""
    from scraping.queries.values import LABELS as PII_LABELS

    categories = [info.label for info in load_categories(prompts_dir).categories.values()]
    return tuple(dict.fromkeys([*categories, *PII_LABELS, *GOLD_ONLY_LABELS]))


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
    """Labels of foreign files that are neither gen's nor mapped: spans and first place."""

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
            "them with --label-map FILE.yaml or leave them out with --drop-unmapped "
            f"(gen's labels: {', '.join(known)})"
        )


@dataclass(frozen=True)
class LabelRules:
    """How the labels of imported records become gen's: `mapping` for every format, and
    the known-label check for formats whose labels are a team's own."""

    known: tuple[str, ...]
    mapping: Mapping[str, str | None] = field(default_factory=dict)
    drop_unmapped: bool = False

    @classmethod
    def of(
        cls,
        prompts_dir: Path | None = None,
        label_map: Path | None = None,
        drop_unmapped: bool = False,
    ) -> LabelRules:
        known = known_labels(prompts_dir)
        mapping = load_label_map(label_map, known) if label_map is not None else {}
        return cls(known, mapping, drop_unmapped)

    def apply(
        self,
        record: Record,
        *,
        foreign: bool,
        where: str,
        unknown: UnknownLabels,
        notes: Counter[str],
    ) -> Record:
        """`record` with its labels mapped; spans mapped to null, and unknown labels of a
        foreign file with `drop_unmapped`, left out and counted; other unknown labels of
        a foreign file go to `unknown`."""
        spans = []
        for span in record.spans:
            if span.label in self.mapping:
                label = self.mapping[span.label]
                if label is None:
                    notes[f"spans of label {span.label} left out (mapped to null)"] += 1
                    continue
                spans.append(replace(span, label=label))
            elif not foreign or span.label in self.known:
                spans.append(span)
            elif self.drop_unmapped:
                notes[f"spans of unmapped label {span.label} left out"] += 1
            else:
                unknown.add(span.label, where)
        return replace(record, spans=spans)
