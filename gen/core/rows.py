"""Rows read from outside (a journal line, a user's JSONL or Parquet file, a Parquet part
of a table written by another tool) checked against the record schema before they become
records: every problem is named with its path (`spans.0.start`) or row, nothing is coerced."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from gen.core.errors import InvalidSpanError
from gen.core.records import RECORD_SCHEMA, REQUIRED_COLUMNS, Record, check_spans, label_problem

_REQUIRED_SPAN_KEYS = ("start", "end", "label")
_ROW_TYPE = pa.struct(list(RECORD_SCHEMA))


def row_problem(
    row: Any, required: Sequence[str] = REQUIRED_COLUMNS, *, overlapping: bool = False
) -> str | None:
    """What makes `row`, read from outside (a journal line, a user's JSONL or Parquet
    file), no valid record row, or None: unknown keys, missing ones, wrong types and
    non-integer offsets are named with their path (`spans.0.start`), never coerced;
    spans are checked (check_spans), each on its own with `overlapping` (for a caller that
    resolves overlapping spans record by record: gen import --as gold)."""
    if not isinstance(row, dict):
        return f"expected an object with {', '.join(required)}, got {_kind(row)}"
    if problem := _absent(row, required, _ROW_TYPE, ()) or _type_problem(row, _ROW_TYPE):
        return problem
    if not row["id"].strip():
        return "id: must not be empty or blank"
    if "spans" in row and row["spans"] is None:
        return "spans: expected a list of spans ([] for none), got null"
    span_type = _ROW_TYPE.field("spans").type.value_type
    for index, span in enumerate(row.get("spans") or []):
        if problem := _absent(span, _REQUIRED_SPAN_KEYS, span_type, ("spans", str(index))):
            return problem
        problem = label_problem(span["label"])
        if problem:
            return f"spans.{index}.label: {problem}"
    try:
        spans = Record.from_row(row).spans
        for group in [[span] for span in spans] if overlapping else [spans]:
            check_spans(row["text"], group, record_id=row["id"])
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


#: Half of a UTF-16 pair on its own: JSON may escape one ("\ud800"), but it is no
#: character, and UTF-8 (Parquet, the journal, the terminal) cannot encode it.
_SURROGATE = re.compile("[\ud800-\udfff]")


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
            key = ".".join((*path, json.dumps(unknown[0])[1:-1]))  # escaped, printable
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
        if isinstance(value, str) and (surrogate := _SURROGATE.search(value)):
            return (
                f"{where}: holds a lone surrogate \\u{ord(surrogate.group()):04x} at character "
                f"{surrogate.start()}, which is not text (a JSON escape of half a character)"
            )
        fits = isinstance(value, str)
    elif pa.types.is_integer(kind):
        fits = isinstance(value, int) and not isinstance(value, bool)
    else:
        fits = isinstance(value, int | float) and not isinstance(value, bool)
    return None if fits else f"{where}: expected {_expected(kind)}, got {_kind(value)}"


def table_problem(table: pa.Table, columns: Sequence[str]) -> str | None:
    """What makes a Parquet file read with the record schema (which fills the columns the file
    lacks with nulls) no table of records, or None: the first required column of `columns`
    (the file's own) that is missing, or the first row without a value there (a span
    without start, end or label included)."""
    absent = [name for name in REQUIRED_COLUMNS if name not in columns]
    if absent:
        return f"it has no column {absent[0]!r} (columns: {', '.join(columns) or 'none'})"
    for name in REQUIRED_COLUMNS:
        if table.column(name).null_count:
            return f"row {_first_null(table.column(name)) + 1}: {name} is missing"
    spans = table.column("spans")
    for key in ("start", "end", "label"):
        values = pc.struct_field(pc.list_flatten(spans), key)
        if values.null_count:
            row = pc.list_parent_indices(spans)[_first_null(values)].as_py()
            return f"row {row + 1}: spans.{key} is missing"
    return None


def _first_null(values: pa.ChunkedArray) -> int:
    return pc.index(pc.is_null(values), True).as_py()
