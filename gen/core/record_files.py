"""Record files made outside gen (a hand-written gold set, another tool's predictions, an
export): JSONL or Parquet files, or a record table folder, with every row validated.

Nothing is coerced: an offset of 12.7 is an error, not 12; a misspelled key (`span`) is an
error, not "no spans"; every message names the file, the line and the key. A UTF-8 byte
order mark is accepted, as editors on Windows write one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from gen.core.errors import GenError, UsageError
from gen.core.records import Record, row_problem
from gen.core.store import RecordTable

#: What a short, hand-written line needs; the other columns default to these.
SHORT_FORM_REQUIRED = ("id", "text")
SHORT_FORM_DEFAULTS = {"category": "", "doc_type": "", "language": "", "source": "gold"}
EXPECTED = (
    "a Parquet or JSONL file (or record table folder) of records with id, text and spans "
    '[{"start": 0, "end": 5, "label": "health"}, ...]'
)


def read_record_file(
    path: Path, role: str = "file", *, span_source: str = "gold", allow_empty: bool = False
) -> list[Record]:
    """The records of `path`, or one UsageError saying `role` (e.g. "PRED file"), the file,
    the line and what is wrong. Spans that name no source get `span_source`.

    An input without a record is a usage error too (a wrong path or an unfinished file is
    far likelier than a wish to score or import nothing); `allow_empty` is for gen's own
    files read back, such as an export's empty split."""
    records = _read(Path(path), f"{role} {path}", span_source)
    if not records and not allow_empty:
        raise UsageError(f"{role} {path}: no records found; expected {EXPECTED}")
    return records


def _read(path: Path, where: str, span_source: str) -> list[Record]:
    if not path.exists():
        raise UsageError(f"{where} not found; expected {EXPECTED}")
    if path.is_dir():
        if (path / "documents").is_dir() or (path / "labeled").is_dir():
            raise UsageError(
                f"{where} is a run folder; name one of its record tables, e.g. {path / 'labeled'}"
            )
        try:
            return RecordTable(path).read()
        except GenError as exc:
            raise UsageError(f"{where}: {exc}") from None
    if path.suffix == ".jsonl":
        rows = _jsonl_rows(path, where)
    else:
        try:
            rows = list(enumerate(pq.read_table(path).to_pylist(), start=1))
        except (OSError, pa.ArrowException) as exc:
            raise UsageError(
                f"cannot read {where}: expected {EXPECTED} ({str(exc).splitlines()[0]})"
            ) from None
    line = "line" if path.suffix == ".jsonl" else "row"
    records = []
    for number, row in rows:
        if isinstance(row, dict):
            row = _with_defaults(row, span_source)
        problem = row_problem(row, SHORT_FORM_REQUIRED)
        if problem:
            raise UsageError(f"{where} {line} {number}: {problem}")
        records.append(Record.from_row(row))
    return records


def file_record_id(path: Path, folder: Path | None = None) -> str:
    """The id of a document that a file holds without naming one: the file's path inside
    the `folder` given on the command line, without its suffix (`2024/letter`), or its
    name without suffix when the file was given alone. `gen import` and `gen predict`
    both follow this rule, so same-named files in different sub-folders stay apart."""
    path = Path(path)
    inside = path.relative_to(folder) if folder is not None else Path(path.name)
    return inside.with_suffix("").as_posix()


def _jsonl_rows(path: Path, where: str) -> list[tuple[int, Any]]:
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UsageError(
            f"{where}: not UTF-8 text (byte {exc.start}); expected {EXPECTED}"
        ) from None
    except OSError as exc:
        raise UsageError(f"cannot read {where}: {exc.strerror or exc}") from None
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rows.append((number, json.loads(line)))
        except json.JSONDecodeError as exc:
            raise UsageError(f"{where} line {number}: not JSON ({exc.msg})") from None
    return rows


def _with_defaults(row: dict[str, Any], span_source: str) -> dict[str, Any]:
    spans = row.get("spans")
    if isinstance(spans, list):
        spans = [
            {**span, "source": span.get("source") or span_source}
            if isinstance(span, dict)
            else span
            for span in spans
        ]
        row = {**row, "spans": spans}
    defaults = {key: value for key, value in SHORT_FORM_DEFAULTS.items() if row.get(key) is None}
    return {**row, **defaults}
