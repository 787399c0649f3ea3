"""Crash-safe, resumable tables of records inside a run folder, one writer per part.

A table is a folder of Parquet files (`RUN/<name>/part-*.parquet`) that
`pandas.read_parquet(RUN / name)` reads directly; when a plan is split over machines,
each shard writes its own part (`RUN/<name>/shard-K-of-N/`, gen/core/shards.py) and
readers see all parts as one table, each id once (each Parquet file read and checked by
gen/core/part_files.py).

Crash contract. A writer holds an OS lock on its part (`_lock`, gen/core/locks.py)
from `open` to `close`, so a second writer stops with one line instead of doubling
the records; the kernel drops the lock when a writer dies. Finished records go to an
append-only journal (`_journal.jsonl`, gen/core/journal.py, fsynced per batch) and
are compacted into a new Parquet file every `part_rows` records and on close. Files
are written under a temporary name and renamed, so a reader never sees half a file;
a journal line cut by `kill -9`, or damaged otherwise, costs that line only (it is
kept in `_journal.bad`); a record already in a Parquet file is never replayed. So an
interrupted run loses at most the records in flight, and never duplicates one.
"""

from __future__ import annotations

import contextlib
import shutil
import uuid
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa

from gen.core.files import storage_error, write_table_atomic
from gen.core.journal import BAD_LINES, JOURNAL, append_rows, journal_rows, recover_journal
from gen.core.locks import LOCK, FileLock, lock_part
from gen.core.part_files import first_of_each_id, read_part_file
from gen.core.records import RECORD_SCHEMA, Record, check_spans, records_to_table
from gen.core.rows import row_problem
from gen.core.shards import WHOLE, Shard, part_folders

#: The single Parquet file of a table written whole by `RecordTable.replace`.
WHOLE_TABLE_FILE = "part-00000.parquet"

#: Records this process made durable, per table folder: what an interrupted command can
#: truthfully say it kept.
_saved: Counter[Path] = Counter()


def saved_records() -> dict[Path, int]:
    """Records this process appended so far, per table folder."""
    return {folder: count for folder, count in _saved.items() if count}


def _missing_folders(path: Path) -> list[Path]:
    """`path` and those of its parents that do not exist yet, outermost first."""
    missing = []
    while not path.exists() and path != path.parent:
        missing.append(path)
        path = path.parent
    return missing[::-1]


class RecordTable:
    """An append-only, resumable table of `Record`s keyed by `id`.

    Reading sees every part; writing (`open` ... `close`) goes to this object's part:
    the table folder itself, or `shard-K-of-N/` inside it for shard K of N.
    """

    def __init__(self, folder: Path, *, shard: Shard = WHOLE, part_rows: int = 200):
        self.folder = Path(folder)
        self.shard = shard
        self.part = self.folder if shard.whole else self.folder / shard.folder_name
        self.part_rows = part_rows
        self._pending: list[dict[str, Any]] = []
        self._ids: set[str] = set()
        self._lock: FileLock | None = None
        #: The folders `open` made (the table's, the part's), undone by `close` if unused.
        self._created: list[Path] = []

    # -- reading -----------------------------------------------------------------
    def part_folders(self) -> list[Path]:
        """The table folder, then its shard folders."""
        return part_folders(self.folder)

    def part_paths(self) -> list[Path]:
        """The Parquet files of every part."""
        return [p for folder in self.part_folders() for p in sorted(folder.glob("part-*.parquet"))]

    def exists(self) -> bool:
        """Whether anything was ever stored (Parquet files or a journal in any part)."""
        return bool(self.part_paths()) or any(
            (folder / JOURNAL).exists() for folder in self.part_folders()
        )

    def read_table(self) -> pa.Table:
        """Everything stored so far (Parquet files and journals of every part), each id once."""
        pieces = [read_part_file(path) for path in self.part_paths()]
        pieces += [
            pa.Table.from_pylist(rows, schema=RECORD_SCHEMA)
            for folder in self.part_folders()
            if (rows := journal_rows(folder, row_problem))
        ]
        if not pieces:
            return RECORD_SCHEMA.empty_table()
        return first_of_each_id(pa.concat_tables(pieces))

    def read(self) -> list[Record]:
        return [Record.from_row(row) for row in self.read_table().to_pylist()]

    def __iter__(self) -> Iterator[Record]:
        return iter(self.read())

    def ids(self) -> set[str]:
        if self._lock is not None:
            return set(self._ids)
        return set(self.read_table().column("id").to_pylist())

    def __len__(self) -> int:
        return len(self.ids())

    # -- writing -----------------------------------------------------------------
    def open(self) -> RecordTable:
        """Take this part's lock, and recover from an interrupted run: compact a leftover
        journal into a Parquet file, keeping its damaged lines in `_journal.bad`.

        Opening is not writing: folders made here hold only the lock until a record comes,
        and `close` removes them again if none did (a call refused before its first record
        leaves the run folder as it found it)."""
        self._created = _missing_folders(self.part)
        self._take_lock(whole_table=False)
        try:
            for stale in self.part.glob(".*.tmp"):
                stale.unlink()
            self._recover_journal()
            self._ids = set(self.read_table().column("id").to_pylist())
        except BaseException:
            self._release()
            raise
        return self

    def _take_lock(self, *, whole_table: bool) -> None:
        """Lock this object's part, or for whole-table operations the table folder."""
        part = self.folder if whole_table else self.part
        try:
            part.mkdir(parents=True, exist_ok=True)
            self._lock = lock_part(self.part_folders(), part, whole_table=whole_table)
        except OSError as exc:
            raise storage_error(part, exc) from exc

    def _release(self) -> None:
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def _recover_journal(self) -> None:
        try:
            rows = recover_journal(self.part, row_problem)
        except OSError as exc:
            raise storage_error(self.part / BAD_LINES, exc) from exc
        stored = {
            record_id
            for file in self.part.glob("part-*.parquet")
            for record_id in read_part_file(file).column("id").to_pylist()
        }
        pending = [row for row in rows if row["id"] not in stored]
        self._pending = list({row["id"]: row for row in pending}.values())
        self._compact()

    def __enter__(self) -> RecordTable:
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def append(self, record: Record) -> None:
        self.extend([record])

    def extend(self, records: Iterable[Record]) -> None:
        """Journal records durably (one fsync per call); ids already stored are skipped."""
        if self._lock is None:
            self.open()
        rows = []
        for record in records:
            if record.id in self._ids:
                continue
            check_spans(record.text, record.spans, record_id=record.id)
            rows.append(record.to_row())
            self._ids.add(record.id)
        if not rows:
            return
        try:
            append_rows(self.part / JOURNAL, rows)
        except OSError as exc:
            for row in rows:
                self._ids.discard(row["id"])
            raise storage_error(self.part / JOURNAL, exc) from exc
        _saved[self.folder] += len(rows)
        self._pending.extend(rows)
        if len(self._pending) >= self.part_rows:
            self._compact()

    def _compact(self) -> None:
        journal = self.part / JOURNAL
        if self._pending:
            table = pa.Table.from_pylist(self._pending, schema=RECORD_SCHEMA)
            number = len(list(self.part.glob("part-*.parquet")))
            name = f"part-{number:05d}-{uuid.uuid4().hex[:8]}.parquet"
            write_table_atomic(self.part / name, table)
        # A crash here leaves journal rows that are also in a Parquet file: open() skips them.
        with contextlib.suppress(FileNotFoundError):
            journal.unlink()
        self._pending = []

    def close(self) -> None:
        if self._lock is not None:
            try:
                self._compact()
                self._remove_unused_folders()
            finally:
                self._release()

    def _remove_unused_folders(self) -> None:
        """Remove the folders `open` made (the part, the table, and parents such as
        `RUN/rejects/` or the run folder) when they hold nothing but the lock. The lock file
        goes while it is held, so no other writer can hold it; a writer that made its own
        since keeps its folder (the removal fails, and is let go)."""
        if not self._created or any(path.name != LOCK for path in self.part.iterdir()):
            return
        with contextlib.suppress(OSError):
            (self.part / LOCK).unlink()
            for folder in reversed(self._created):
                folder.rmdir()

    # -- whole-table operations --------------------------------------------------
    def replace(self, records: Sequence[Record]) -> None:
        """Make `records` the whole table: one Parquet file renamed over the previous one,
        then every other file and part removed. Spans are checked first."""
        for record in records:
            check_spans(record.text, record.spans, record_id=record.id)
        self._take_lock(whole_table=True)
        try:
            write_table_atomic(self.folder / WHOLE_TABLE_FILE, records_to_table(records))
            for path in self.part_paths():
                if path != self.folder / WHOLE_TABLE_FILE:
                    path.unlink()
            (self.folder / JOURNAL).unlink(missing_ok=True)
            for folder in self.part_folders()[1:]:
                shutil.rmtree(folder)
        except OSError as exc:
            raise storage_error(self.folder, exc) from exc
        finally:
            self._release()

    def drop(self) -> None:
        """Delete the whole table (every part), unless someone is writing it."""
        if not self.folder.exists():
            return
        self._take_lock(whole_table=True)
        try:
            shutil.rmtree(self.folder)
        except OSError as exc:
            raise storage_error(self.folder, exc) from exc
        finally:
            self._release()


def write_records(path: Path, records: Iterable[Record]) -> None:
    """Write a whole table of records as one Parquet file, atomically."""
    write_table_atomic(Path(path), records_to_table(records))
