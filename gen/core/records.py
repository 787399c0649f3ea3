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
SPAN_SOURCES = ("llm_sentences", "llm_censor", "llm_inline", "faker", "gold", "model")

#: Where a record's text came from.
RECORD_SOURCES = ("llm", "wikipedia", "faker", "gold", "import")

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


def check_spans(text: str, spans: Sequence[Span], *, record_id: str = "?") -> None:
    """Raise InvalidSpanError unless every span is inside `text`, not blank, and
    no two spans of the same source overlap. Called wherever spans are written."""
    by_source: dict[str, list[Span]] = {}
    for span in spans:
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
_REQUIRED_SPAN_KEYS = ("start", "end", "label")
_ROW_TYPE = pa.struct(list(RECORD_SCHEMA))


def row_problem(row: Any, required: Sequence[str] = REQUIRED_COLUMNS) -> str | None:
    """What makes `row`, read from outside (a journal line, a user's JSONL or Parquet
    file), no valid record row, or None: unknown keys, missing ones, wrong types and
    non-integer offsets are named with their path (`spans.0.start`), never coerced;
    spans are checked (check_spans)."""
    if not isinstance(row, dict):
        return f"expected an object with {', '.join(required)}, got {_kind(row)}"
    if problem := _absent(row, required, _ROW_TYPE, ()) or _type_problem(row, _ROW_TYPE):
        return problem
    span_type = _ROW_TYPE.field("spans").type.value_type
    for index, span in enumerate(row.get("spans") or []):
        if problem := _absent(span, _REQUIRED_SPAN_KEYS, span_type, ("spans", str(index))):
            return problem
    try:
        check_spans(row["text"], Record.from_row(row).spans, record_id=row["id"])
    except InvalidSpanError as exc:
        return str(exc)
    except ValueError as exc:  # meta that is not the JSON text of an object
        return f"meta: {exc}"
    return None


def _absent(
    value: dict[str, Any], required: Sequence[str], kind: pa.StructType, path: tuple[str, ...]
) -> str | None:
    """The first required key of `value` that is missing or null, named as such."""
    for name in required:
        where = ".".join((*path, name))
        if name not in value:
            return f"{where}: required key is missing"
        if value[name] is None:
            return f"{where}: expected {_expected(kind.field(name).type)}, got null"
    return None


def _expected(kind: pa.DataType) -> str:
    if pa.types.is_string(kind):
        return "a string"
    return "an integer" if pa.types.is_integer(kind) else "a number"


def _kind(value: Any) -> str:
    return f"{type(value).__name__} {json.dumps(value, default=str)[:40]}"


def _type_problem(value: Any, kind: pa.DataType, path: tuple[str, ...] = ()) -> str | None:
    """The first place where `value` does not have the Arrow type `kind` (None fits all)."""
    where = ".".join(path)
    if value is None:
        return None
    if pa.types.is_struct(kind):
        if not isinstance(value, dict):
            return f"{where}: expected an object, got {_kind(value)}"
        names = [child.name for child in kind]
        unknown = sorted(set(value) - set(names))
        if unknown:
            key = ".".join((*path, str(unknown[0])))
            return f"{key}: unknown key (expected some of {', '.join(names)})"
        problems = (_type_problem(value.get(c.name), c.type, (*path, c.name)) for c in kind)
        return next((problem for problem in problems if problem), None)
    if pa.types.is_list(kind):
        if not isinstance(value, list):
            return f"{where}: expected a list, got {_kind(value)}"
        problems = (
            _type_problem(item, kind.value_type, (*path, str(i))) for i, item in enumerate(value)
        )
        return next((problem for problem in problems if problem), None)
    if pa.types.is_string(kind):
        fits = isinstance(value, str)
    elif pa.types.is_integer(kind):
        fits = isinstance(value, int) and not isinstance(value, bool)
    else:
        fits = isinstance(value, int | float) and not isinstance(value, bool)
    return None if fits else f"{where}: expected {_expected(kind)}, got {_kind(value)}"
