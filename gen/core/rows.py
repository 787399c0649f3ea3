"""Rows read from outside (a journal line, a user's JSONL or Parquet file) checked against
the record schema before they become records: every problem is named with its path
(`spans.0.start`), nothing is coerced."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from gen.core.errors import InvalidSpanError
from gen.core.records import RECORD_SCHEMA, REQUIRED_COLUMNS, Record, check_spans, label_problem

_REQUIRED_SPAN_KEYS = ("start", "end", "label")
_ROW_TYPE = pa.struct(list(RECORD_SCHEMA))


def row_problem(row: Any, required: Sequence[str] = REQUIRED_COLUMNS) -> str | None:
    """What makes `row`, read from outside (a journal line, a user's JSONL or Parquet
    file), no valid record row, or None: unknown keys, missing ones, wrong types and
    non-integer offsets are named with their path (`spans.0.start`), never coerced;
    spans are checked (check_spans)."""
    if not isinstance(row, dict):
        return f"expected an object with {', '.join(required)}, got {_kind(row)}"
    missing = [name for name in required if row.get(name) is None]
    if missing:
        return f"{missing[0]}: required key is missing"
    problem = _type_problem(row, _ROW_TYPE)
    if problem:
        return problem
    if not row["id"].strip():
        return "id: must not be empty or blank"
    if "spans" in row and row["spans"] is None:
        return "spans: expected a list of spans ([] for none), got null"
    for index, span in enumerate(row.get("spans") or []):
        absent = [key for key in _REQUIRED_SPAN_KEYS if span.get(key) is None]
        if absent:
            return f"spans.{index}.{absent[0]}: required key is missing"
        problem = label_problem(span["label"])
        if problem:
            return f"spans.{index}.label: {problem}"
    try:
        check_spans(row["text"], Record.from_row(row).spans, record_id=row["id"])
    except InvalidSpanError as exc:
        return str(exc)
    except ValueError as exc:  # meta that is not the JSON text of an object
        return f"meta: {exc}"
    return None


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
        expected, fits = "a string", isinstance(value, str)
    elif pa.types.is_integer(kind):
        expected, fits = "an integer", isinstance(value, int) and not isinstance(value, bool)
    else:
        expected = "a number"
        fits = isinstance(value, int | float) and not isinstance(value, bool)
    return None if fits else f"{where}: expected {expected}, got {_kind(value)}"
