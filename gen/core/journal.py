"""The append-only journal of a table part: one JSON row per line, fsynced per batch.

Every line is read on its own, so one bad line (empty, not UTF-8, not JSON, not a row
of the schema) costs that line only: it is skipped and counted, and the writer that
recovers the journal keeps it in `_journal.bad` next to it. A last line without its
newline is a write cut short by a crash, or one still under way: readers leave it
alone; the recovering writer, alone with the file, keeps it if it is a whole row and
otherwise puts it aside with the bad lines.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gen.core.errors import warn

JOURNAL = "_journal.jsonl"
BAD_LINES = "_journal.bad"

Row = dict[str, Any]
#: Says what is wrong with a row, or None when it is a valid row.
RowCheck = Callable[[Any], "str | None"]


@dataclass
class JournalContents:
    rows: list[Row] = field(default_factory=list)
    #: Raw bytes of the lines that are no valid row, and why.
    bad: list[tuple[bytes, str]] = field(default_factory=list)


def _problem(line: bytes, check: RowCheck) -> tuple[Row | None, str | None]:
    if not line.strip():
        return None, "empty line"
    try:
        row = json.loads(line.decode("utf-8"))
    except UnicodeDecodeError:
        return None, "not UTF-8"
    except json.JSONDecodeError as exc:
        return None, f"not JSON ({exc.msg})"
    problem = check(row)
    return (None, problem) if problem else (row, None)


def read_journal(path: Path, check: RowCheck, *, recovering: bool) -> JournalContents:
    """The valid rows of the journal at `path`, in order, and its bad lines.

    `recovering` is for the writer that holds the part's lock: no one else can be
    appending, so an unfinished last line is a crash's leftover, not work in progress.
    """
    contents = JournalContents()
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return contents
    lines: list[tuple[bytes, str | None]] = [(line, None) for line in data.split(b"\n")]
    unfinished, _ = lines.pop()  # b"" when the journal ends with a newline
    if unfinished and recovering:
        lines.append((unfinished, "last line cut short, as by a crash"))
    for line, cut_short in lines:
        row, problem = _problem(line, check)
        if problem:
            contents.bad.append((line, cut_short or problem))
        else:
            contents.rows.append(row)  # type: ignore[arg-type]
    return contents


def append_rows(path: Path, rows: Sequence[Row]) -> None:
    """Append rows durably (one fsync); on failure nothing of them stays in the file."""
    payload = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows).encode()
    with open(path, "ab") as handle:
        start = handle.tell()
        try:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        except OSError:
            with contextlib.suppress(OSError):
                handle.truncate(start)
            raise


def journal_rows(folder: Path, check: RowCheck) -> list[Row]:
    """For readers: the valid rows of `folder`'s journal; bad lines are skipped with a warning."""
    path = folder / JOURNAL
    contents = read_journal(path, check, recovering=False)
    if contents.bad:
        warn(
            f"{path}: {len(contents.bad)} damaged line(s) skipped ({contents.bad[0][1]}); "
            "the next writer of this table keeps them aside"
        )
    return contents.rows


def recover_journal(folder: Path, check: RowCheck) -> list[Row]:
    """For the writer holding the lock: the valid rows of `folder`'s journal, after its bad
    lines, as they were, are appended durably to `_journal.bad` (OSError if that fails)."""
    path = folder / JOURNAL
    contents = read_journal(path, check, recovering=True)
    if contents.bad:
        kept = folder / BAD_LINES
        with open(kept, "ab") as handle:
            handle.write(b"".join(line + b"\n" for line, _ in contents.bad))
            handle.flush()
            os.fsync(handle.fileno())
        reasons = "; ".join(sorted({reason for _, reason in contents.bad}))
        warn(
            f"{path}: {len(contents.bad)} damaged line(s) skipped ({reasons}), kept in {kept}; "
            "every other line was recovered"
        )
    return contents.rows
