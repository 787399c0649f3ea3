"""What the readers of annotation tools' exports share: one record per annotated item, spans
without the whitespace a selection takes in, whose annotation is the gold one, and what
was left out on the way.

A tool reader returns every item of its file, so that `--as documents` takes every text.
An item that holds no gold (a task nobody annotated, an answer `reject`) says why in
`meta["left_out"]`; `gen import --as gold` leaves it out and counts the reason. Counts of
what was read otherwise than the file might suggest (a cancelled annotation, a relation
left out, a span trimmed) go in `meta["import_notes"]`; where each span comes from (a BRAT
line, a range of a discontinuous entity) in `meta["span_origins"]`, for the overlap checks
to name; an item without any of its format's span fields says so in `meta["no_span_field"]`.
These keys are taken out of the record before it is stored (`gen.importing.gold`).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

from gen.core.encodings import other_encoding
from gen.core.records import Record, Span
from gen.importing import RecordDefaults
from gen.text.words import trim_invisible, trim_whitespace

LEFT_OUT = "left_out"
NOTES = "import_notes"
ORIGINS = "span_origins"
NO_SPAN_FIELD = "no_span_field"
GOLD = "gold"
TRIMMED = "spans trimmed of whitespace at their edges"
TRIMMED_INVISIBLE = (
    "spans trimmed of invisible characters at their edges (zero-width, bidirectional "
    "or control characters)"
)

T = TypeVar("T")


class Origin(NamedTuple):
    """Where a span was read (`line 8: T8 Food 433 439;446 451`), and whether it is one
    range of a discontinuous entity split into one span per range."""

    where: str
    split: bool = False

    def __str__(self) -> str:
        return f"{self.where}, a range of a discontinuous entity" if self.split else self.where


#: The origins of a record's spans, by (start, end).
Origins = dict[tuple[int, int], list[Origin]]


def trim_note(text: str, start: int, end: int) -> str | None:
    """The note that counts trimming `text[start:end]` (`trim_invisible`); None when there
    is nothing to trim, or nothing would be left."""
    kept = trim_invisible(text, start, end)
    if kept is None or kept == (start, end):
        return None
    return TRIMMED if kept == trim_whitespace(text, start, end) else TRIMMED_INVISIBLE


def gold_span(text: str, start: int, end: int, label: str, notes: Counter[str]) -> Span:
    """A gold span on `text[start:end]` without the whitespace and invisible characters at
    its edges (a double-click takes in the space after a word, a selection the zero-width
    space before it), counted in `notes`; a blank one, or one outside the text, stays as
    it is for the checks to name."""
    if 0 <= start < end <= len(text) and (note := trim_note(text, start, end)):
        notes[note] += 1
        start, end = trim_invisible(text, start, end) or (start, end)
    return Span(start, end, label, GOLD)


def choose(
    items: Sequence[T],
    *,
    annotator: str | None,
    who: Callable[[T], Iterable[str]],
    when: Callable[[T], Any],
) -> T | None:
    """The gold annotation of one item: with `annotator`, that person's latest (None when
    they did not annotate it); otherwise the latest of all. Latest by `when`; of equal
    times, the one later in the file."""
    if annotator is not None:
        items = [item for item in items if annotator in set(who(item))]
    if not items:
        return None
    return max(enumerate(items), key=lambda pair: (when(pair[1]), pair[0]))[1]


def tool_record(
    record_id: str,
    text: str,
    spans: Iterable[Span],
    path: Path,
    defaults: RecordDefaults,
    *,
    meta: dict[str, Any] | None = None,
    left_out: str | None = None,
    notes: Counter[str] | None = None,
    flags: Sequence[str] = (),
    fields: dict[str, str] | None = None,
    origins: Origins | None = None,
    span_field: bool = True,
) -> Record:
    """The record of one item: `fields` (category, doc_type, language) where the file
    names them, else the defaults; `span_field`: whether the item holds any of its
    format's span fields (an empty one counts)."""
    given = fields or {}
    extra: dict[str, Any] = {"imported_from": path.name, **(meta or {})}
    if left_out:
        extra[LEFT_OUT] = left_out
    if notes:
        extra[NOTES] = dict(notes)
    if origins:
        extra[ORIGINS] = origins
    if not span_field:
        extra[NO_SPAN_FIELD] = True
    return Record(
        id=record_id,
        text=text,
        category=given.get("category") or defaults.category,
        doc_type=given.get("doc_type") or defaults.doc_type,
        language=given.get("language") or defaults.language,
        source=GOLD,
        spans=sorted(spans, key=lambda s: (s.start, s.end, s.label)),
        meta=extra,
        flags=list(flags),
    )


def is_offset(value: object) -> bool:
    """An integer offset as JSON gives one (a bool is no offset, a float is refused)."""
    return isinstance(value, int) and not isinstance(value, bool)


def first_json_line(path: Path, limit: int = 1 << 20) -> Any:
    """The JSON value of a file's first non-blank line (None when it is not JSON), to tell
    which tool wrote a JSONL file, whatever its encoding; reads at most `limit` bytes."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(limit)
    except OSError:
        return None
    found = other_encoding(data)  # a UTF-16 file is sniffed, for its reader to refuse it
    codec = found[1] if found else "utf-8-sig"
    head = data.decode(codec, errors="replace").removeprefix("\ufeff")
    for line in head.split("\n"):
        if line.strip():
            try:
                return json.loads(line)
            except ValueError:
                return None
    return None


def taken(record: Record, target: str, notes: Counter[str]) -> Record | None:
    """`record` without the reader's notes in its meta (for gold, the origins of its spans
    stay for the span checks); None for gold when it holds none."""
    meta = dict(record.meta)
    reason = meta.pop(LEFT_OUT, None)
    counted = meta.pop(NOTES, {})
    if target == "documents":
        meta.pop(ORIGINS, None)
        meta.pop(NO_SPAN_FIELD, None)
        return replace(record, meta=meta, spans=[], source="import")
    notes.update(counted)
    if reason:
        notes[reason] += 1
        return None
    return replace(record, meta=meta)


def left_out_reasons(records: Sequence[Record]) -> str:
    """Why the records of a file hold no gold, counted: `tasks without annotation 3`."""
    reasons = Counter(str(r.meta.get(LEFT_OUT)) for r in records)
    return ", ".join(f"{reason} {count}" for reason, count in reasons.most_common())
