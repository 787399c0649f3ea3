"""The one record schema every stage reads and writes.

A record is a text with character spans. Documents, Wikipedia paragraphs, Faker
queries, labeled documents and the final dataset all use it, so that every
tool (build, export, eval, inspect) reads any stage's output.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from itertools import pairwise
from typing import Any

import pyarrow as pa

from gen.core.errors import InvalidSpanError

#: Where a span came from; `gen build` filters on it.
SPAN_SOURCES = (
    "planned",
    "llm_sentences",
    "llm_censor",
    "llm_inline",
    "detector",
    "faker",
    "gold",
    "model",
)

#: Where a record's text came from.
RECORD_SOURCES = ("llm", "wikipedia", "faker", "gold", "import", "translated")

#: Persona fields drawn with Faker and stored with each generated document.
PERSONA_FIELDS = (
    "name",
    "first_name",
    "last_name",
    "gender",
    "birth_date",
    "age",
    "city",
    "address",
    "employer",
    "job",
    "doctor",
    "email",
    "phone",
    "postcode",
    "national_id",
    "tax_id",
    "health_insurance_id",
)


@dataclass(frozen=True, slots=True)
class Span:
    """A labeled character range `text[start:end]`.

    `quality` and `score` describe how sure the labeler is of the edges
    (e.g. the censor aligner's "exact" / "fuzzy"); None where exact by construction.
    """

    start: int
    end: int
    label: str
    source: str = "gold"
    quality: str | None = None
    score: float | None = None

    def overlap(self, start: int, end: int) -> int:
        """How many characters of `text[start:end]` the span covers (0 when they only touch)."""
        return max(0, min(self.end, end) - max(self.start, start))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Span:
        return cls(
            start=int(data["start"]),
            end=int(data["end"]),
            label=str(data["label"]),
            source=str(data.get("source") or "gold"),
            quality=data.get("quality"),
            score=None if data.get("score") is None else float(data["score"]),
        )


@dataclass(slots=True)
class Record:
    """One text of any stage; optional fields stay None where a stage has nothing to say."""

    id: str
    text: str
    category: str
    doc_type: str
    language: str
    source: str
    spans: list[Span] = field(default_factory=list)
    persona: dict[str, str] | None = None
    prompt: str | None = None
    model: str | None = None
    seed: int | None = None
    group: str | None = None
    #: Free-form provenance: finish reason, token counts, Wikipedia title/url/revision/license...
    meta: dict[str, Any] = field(default_factory=dict)
    #: Why a stage distrusts this record (e.g. "alignment_low"); empty when clean.
    flags: list[str] = field(default_factory=list)

    def to_row(self) -> dict[str, Any]:
        """Arrow-ready row (meta as JSON so the schema stays fixed)."""
        row = {name: getattr(self, name) for name in RECORD_SCHEMA.names}
        row["spans"] = [span.to_dict() for span in self.spans]
        row["persona"] = _persona_row(self.persona)
        row["meta"] = json.dumps(self.meta, sort_keys=True, ensure_ascii=False)
        row["flags"] = list(self.flags)
        return row

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Record:
        meta = row.get("meta") or "{}"
        persona = row.get("persona")
        return cls(
            id=row["id"],
            text=row["text"],
            category=row["category"],
            doc_type=row["doc_type"],
            language=row["language"],
            source=row["source"],
            spans=[Span.from_dict(span) for span in (row.get("spans") or [])],
            persona={k: v for k, v in persona.items() if v is not None} if persona else None,
            prompt=row.get("prompt"),
            model=row.get("model"),
            seed=row.get("seed"),
            group=row.get("group"),
            meta=json.loads(meta) if isinstance(meta, str) else dict(meta),
            flags=list(row.get("flags") or []),
        )


def _persona_row(persona: dict[str, str] | None) -> dict[str, str | None] | None:
    if persona is None:
        return None
    return {name: persona.get(name) for name in PERSONA_FIELDS}


SPAN_TYPE = pa.struct(
    [
        ("start", pa.int32()),
        ("end", pa.int32()),
        ("label", pa.string()),
        ("source", pa.string()),
        ("quality", pa.string()),
        ("score", pa.float32()),
    ]
)

PERSONA_TYPE = pa.struct([(name, pa.string()) for name in PERSONA_FIELDS])

RECORD_SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("text", pa.string()),
        ("category", pa.string()),
        ("doc_type", pa.string()),
        ("language", pa.string()),
        ("source", pa.string()),
        ("spans", pa.list_(SPAN_TYPE)),
        ("persona", PERSONA_TYPE),
        ("prompt", pa.string()),
        ("model", pa.string()),
        ("seed", pa.int64()),
        ("group", pa.string()),
        ("meta", pa.string()),
        ("flags", pa.list_(pa.string())),
    ]
)


def records_to_table(records: Iterable[Record]) -> pa.Table:
    return pa.Table.from_pylist([r.to_row() for r in records], schema=RECORD_SCHEMA)


def table_to_records(table: pa.Table) -> list[Record]:
    return [Record.from_row(row) for row in table.to_pylist()]


def label_problem(label: str) -> str | None:
    """Why `label` is no span label (labels are names: CoNLL columns, BIO tags, spaCy
    entity labels and file names are made of them), or None."""
    if not label or any(char.isspace() for char in label):
        return f"must be a name without spaces, got {label!r}"
    return None


def check_spans(text: str, spans: Sequence[Span], *, record_id: str = "?") -> None:
    """Raise InvalidSpanError unless every span is inside `text`, not blank, labeled with a
    name, and no two spans of the same source overlap. Called wherever spans are written."""
    by_source: dict[str, list[Span]] = {}
    for span in spans:
        problem = label_problem(span.label)
        if problem:
            raise InvalidSpanError(
                f"record {record_id}: span {span.start}-{span.end}: the label {problem}"
            )
        if span.start == span.end:
            raise InvalidSpanError(
                f"record {record_id}: span {span.start}-{span.end} ({span.label}) is empty"
            )
        if span.end < span.start:
            raise InvalidSpanError(
                f"record {record_id}: span {span.start}-{span.end} ({span.label}) ends before "
                "it starts"
            )
        if span.start < 0 or span.end > len(text):
            raise InvalidSpanError(
                f"record {record_id}: span {span.start}-{span.end} ({span.label}) is outside "
                f"the text of length {len(text)}"
            )
        if not text[span.start : span.end].strip():
            raise InvalidSpanError(
                f"record {record_id}: span {span.start}-{span.end} ({span.label}) covers only "
                "whitespace"
            )
        by_source.setdefault(span.source, []).append(span)
    for source, group in by_source.items():
        pair = overlapping_pair(group)
        if pair:
            left, right = pair
            raise InvalidSpanError(
                f"record {record_id}: {source} spans {left.start}-{left.end} ({left.label}) "
                f"and {right.start}-{right.end} ({right.label}) overlap"
            )


def check_gold_spans(text: str, spans: Sequence[Span], *, record_id: str = "?") -> None:
    """`check_spans`, and what the labeling guideline asks of gold (docs/gold.md): no span
    starts or ends with whitespace, and no two spans overlap, whatever their source."""
    check_spans(text, spans, record_id=record_id)
    for span in spans:
        for edge, char in (("starts", text[span.start]), ("ends", text[span.end - 1])):
            if char.isspace():
                raise InvalidSpanError(
                    f"record {record_id}: span {span.start}-{span.end} ({span.label}) {edge} "
                    "with whitespace; a gold span starts and ends on a word"
                )
    pair = overlapping_pair(spans)
    if pair:
        left, right = pair
        raise InvalidSpanError(
            f"record {record_id}: spans {left.start}-{left.end} ({left.label}) and "
            f"{right.start}-{right.end} ({right.label}) overlap; gold spans never overlap"
        )


def overlapping_pair(spans: Iterable[Span]) -> tuple[Span, Span] | None:
    """The first two spans, in text order, that share a character; None if none do."""
    ordered = sorted(spans, key=lambda s: (s.start, s.end))
    # In start order, any overlap shows between neighbours.
    return next(
        ((left, right) for left, right in pairwise(ordered) if right.overlap(left.start, left.end)),
        None,
    )


#: Columns every record row has; the others may be left out (null).
REQUIRED_COLUMNS = ("id", "text", "category", "doc_type", "language", "source")
