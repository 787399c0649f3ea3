"""Record files made outside gen (a hand-written gold set, another tool's predictions, an
export): JSONL or Parquet files, or a record table folder, with every row validated; and
plain text files, one document each, read by one rule for `gen import` and `gen predict`.

Nothing is coerced: an offset of 12.7 is an error, not 12; a misspelled key (`span`) is an
error, not "no spans"; every message names the file, the line and the key. A UTF-8 byte
order mark is accepted, as editors on Windows write one. JSONL lines end at "\n" (a "\r"
before it is JSON whitespace), never at the other line breaks Unicode knows.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from gen.core.encodings import read_utf8
from gen.core.errors import GenError, InvalidSpanError, UsageError
from gen.core.records import Record, check_gold_spans
from gen.core.rows import row_problem
from gen.core.store import RecordTable

#: What a short, hand-written line needs; the other columns default to these.
SHORT_FORM_REQUIRED = ("id", "text")
SHORT_FORM_DEFAULTS = {"category": "", "doc_type": "", "language": "", "source": "gold"}
EXPECTED = (
    "a Parquet or JSONL file (or record table folder) of records with id, text and spans "
    '[{"start": 0, "end": 5, "label": "health"}, ...]'
)


def read_record_file(
    path: Path,
    role: str = "file",
    *,
    span_source: str = "gold",
    gold: bool = False,
    allow_empty: bool = False,
    overlapping: bool = False,
) -> list[Record]:
    """The records of `path`, or one UsageError saying `role` (e.g. "PRED file"), the file,
    the line and what is wrong. Spans that name no source get `span_source`; `gold` spans
    must also follow the labeling guideline (`check_gold_spans`). With `overlapping`, spans
    of one source may overlap: the caller resolves them record by record (`gen import
    --as gold` refuses only the records concerned).

    An input without a record is a usage error too (a wrong path or an unfinished file is
    far likelier than a wish to score or import nothing); `allow_empty` is for gen's own
    files read back, such as an export's empty split."""
    placed = read_placed_records(
        path, role, span_source=span_source, gold=gold, overlapping=overlapping
    )
    if not placed and not allow_empty:
        raise UsageError(f"{role} {path}: no records found; expected {EXPECTED}")
    return [record for _, record in placed]


def read_placed_records(
    path: Path,
    role: str = "file",
    *,
    span_source: str = "gold",
    gold: bool = False,
    overlapping: bool = False,
) -> list[tuple[str, Record]]:
    """The records of `path` as `read_record_file` reads them (none is no error here), each
    with where it is in the file (`line 3`, `row 3`; "" in a record table folder), for a
    caller that checks more of each record to name its place as the row checks do."""
    return _read(Path(path), f"{role} {path}", span_source, gold, overlapping)


def _read(
    path: Path, where: str, span_source: str, gold: bool, overlapping: bool
) -> list[tuple[str, Record]]:
    if not path.exists():
        raise UsageError(f"{where} not found; expected {EXPECTED}")
    if path.is_dir():
        if (path / "documents").is_dir() or (path / "labeled").is_dir():
            raise UsageError(
                f"{where} is a run folder; name one of its record tables, e.g. {path / 'labeled'}"
            )
        try:
            records = RecordTable(path).read()
            for record in records if gold else ():
                check_gold_spans(record.text, record.spans, record_id=record.id)
        except GenError as exc:
            raise UsageError(f"{where}: {exc}") from None
        return [("", record) for record in records]
    if path.suffix == ".jsonl":
        rows = jsonl_rows(path, where)
    else:
        try:
            rows = list(enumerate(pq.read_table(path).to_pylist(), start=1))
        except (OSError, pa.ArrowException) as exc:
            raise UsageError(
                f"cannot read {where}: expected {EXPECTED} ({str(exc).splitlines()[0]})"
            ) from None
    line = "line" if path.suffix == ".jsonl" else "row"
    records: list[tuple[str, Record]] = []
    numbers: dict[str, list[int]] = {}
    for number, row in rows:
        if isinstance(row, dict):
            row = _with_defaults(row, span_source)
        problem = row_problem(row, SHORT_FORM_REQUIRED, overlapping=overlapping)
        record = None if problem else Record.from_row(row)
        if record is not None and gold:
            try:
                check_gold_spans(record.text, record.spans, record_id=record.id)
            except InvalidSpanError as exc:
                problem = str(exc)
        if problem:
            raise UsageError(f"{where} {line} {number}: {problem}")
        records.append((f"{line} {number}", record))
        numbers.setdefault(row["id"], []).append(number)
    _refuse_repeated_ids(numbers, where, line)
    return records


def _refuse_repeated_ids(numbers: dict[str, list[int]], where: str, line: str) -> None:
    """Records are matched and stored by id: a repeated one would be scored, predicted or
    imported twice (or once, silently), so it is refused with where it occurs."""
    repeated = {record_id: found for record_id, found in numbers.items() if len(found) > 1}
    if not repeated:
        return
    record_id, found = next(iter(repeated.items()))
    places = ", ".join(map(str, found[:-1])) + f" and {found[-1]}"
    more = f" ({len(repeated) - 1} more ids repeat)" if len(repeated) > 1 else ""
    raise UsageError(f"{where}: id {record_id!r} is on {line}s {places}{more}; ids must be unique")


#: Suffixes of plain text files, one document each (any case: `.TXT` too).
TEXT_SUFFIXES = (".txt",)
#: The UTF-8 byte order mark, as a character.
BOM = "\ufeff"
#: What a plain text file is, for the encoding errors (gen.core.encodings).
TEXT_KIND = "a .txt document"


def is_text_file(path: Path) -> bool:
    return Path(path).suffix.lower() in TEXT_SUFFIXES


def listed(paths: Sequence[Path], limit: int = 10) -> str:
    """The first `limit` paths, comma-separated, and how many more."""
    shown = ", ".join(map(str, paths[:limit]))
    return shown + (f" and {len(paths) - limit} more" if len(paths) > limit else "")


def skipped_line(skipped: Sequence[Path], why: str) -> str:
    """The line `gen import` and `gen predict` print for the files of a folder they leave
    out (a README, a `.DS_Store`): how many, `why`, and which."""
    return f"skipped {len(skipped)} file{'s' * (len(skipped) != 1)} {why}: {listed(skipped)}"


def read_text_file(path: Path) -> str:
    """The document a plain text file holds, or one UsageError naming the file: UTF-8 (by
    the rule of gen.core.encodings: UTF-16 is named, not read as garbage), line
    ends made "\n" and a byte order mark dropped (editors on Windows write both); a file
    without a visible character is refused, since it is far likelier a mistake than a
    document."""
    return read_text_file_as_written(path)[0]


def read_text_file_as_written(path: Path) -> tuple[str, str]:
    """(the document, as `read_text_file` reads it; the file's characters as written, byte
    order mark and line ends kept), for a tool that counted offsets on the file itself."""
    written = read_utf8(path, TEXT_KIND)
    text = written.removeprefix(BOM).replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        raise UsageError(f"{path}: the file is empty")
    return text, written


def file_record_id(path: Path, folder: Path | None = None) -> str:
    """The id of a document that a file holds without naming one: the file's path inside
    the `folder` given on the command line, without its suffix (`2024/letter`), or its
    name without suffix when the file was given alone. `gen import` and `gen predict`
    both follow this rule, so same-named files in different sub-folders stay apart."""
    path = Path(path)
    inside = path.relative_to(folder) if folder is not None else Path(path.name)
    return inside.with_suffix("").as_posix()


def jsonl_rows(
    path: Path, where: str, expected: str = EXPECTED, kind: str = "a JSONL record file"
) -> list[tuple[int, Any]]:
    """(line number, parsed JSON) of every non-blank line; UsageError naming `where`, the
    line and `expected` otherwise, or the encoding of a file that is no UTF-8 text (`kind`:
    what the file is, gen.core.encodings). Other tools' JSONL files are read the same way."""
    text = read_utf8(path, kind, where).removeprefix(BOM)
    rows = []
    # Lines end at "\n" only: `str.splitlines` would also cut at U+2028, U+2029 and U+0085,
    # which JSON strings may hold as they are (and gen writes them so).
    for number, line in enumerate(text.split("\n"), start=1):
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
    given = {k: v for k, v in row.items() if v is not None or k not in SHORT_FORM_DEFAULTS}
    return {**SHORT_FORM_DEFAULTS, **given}
