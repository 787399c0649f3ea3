"""Crash-safe, resumable tables of records inside a run folder.

A table is a folder of Parquet shards (`RUN/<name>/part-*.parquet`) that
`pandas.read_parquet(RUN / name)` reads directly. Finished records first go to
an append-only journal (`_journal.jsonl`, fsynced per batch; pyarrow ignores
names starting with `_`), and are compacted into a new shard every
`shard_size` records and on close. A shard is written to a temporary name and
renamed, so a reader never sees half a file; a journal line cut by `kill -9` is
dropped on reopen; a record already in a shard is never replayed twice. So an
interrupted run loses at most the records in flight, and never duplicates one.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import uuid
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from gen.core.errors import StorageError
from gen.core.records import RECORD_SCHEMA, Record, check_spans, records_to_table

JOURNAL = "_journal.jsonl"


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _storage_error(path: Path, exc: OSError) -> StorageError:
    if exc.errno == errno.ENOSPC:
        return StorageError(f"disk full while writing {path}; free some space and re-run to resume")
    return StorageError(f"cannot write {path}: {exc.strerror or exc}")


def write_atomic(path: Path, data: bytes, *, durable: bool = True) -> None:
    """Write a whole file or nothing: temporary name, fsync, rename.

    `durable=False` skips the fsyncs, for caches whose readers can tell a file
    lost to a power cut from a good one and simply fetch it again.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        with open(tmp, "wb") as handle:
            handle.write(data)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        os.replace(tmp, path)
        if durable:
            _fsync_dir(path.parent)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise _storage_error(path, exc) from exc


def write_json_atomic(path: Path, payload: Any) -> None:
    text = json.dumps(payload, indent=2, sort_keys=True, ensure_ascii=False, default=str)
    write_atomic(path, (text + "\n").encode())


def write_table_atomic(path: Path, table: pa.Table) -> None:
    """Write one Parquet file or nothing."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        pq.write_table(table, tmp, compression="zstd")
        with open(tmp, "rb+") as handle:
            os.fsync(handle.fileno())
        os.replace(tmp, path)
        _fsync_dir(path.parent)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise _storage_error(path, exc) from exc


class RecordTable:
    """An append-only, resumable table of `Record`s keyed by `id`."""

    def __init__(self, folder: Path, *, shard_size: int = 200, schema: pa.Schema = RECORD_SCHEMA):
        self.folder = Path(folder)
        self.shard_size = shard_size
        self.schema = schema
        self._journal_path = self.folder / JOURNAL
        self._journal_rows: list[dict[str, Any]] = []
        self._ids: set[str] = set()
        self._opened = False

    # -- reading -----------------------------------------------------------------
    def shard_paths(self) -> list[Path]:
        if not self.folder.is_dir():
            return []
        return sorted(p for p in self.folder.glob("part-*.parquet"))

    def _read_journal(self) -> list[dict[str, Any]]:
        """Journal rows in order; a line cut by a crash (not valid JSON) ends the journal."""
        if not self._journal_path.exists():
            return []
        rows = []
        with open(self._journal_path, encoding="utf-8") as handle:
            for line in handle:
                if not line.endswith("\n"):
                    break
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError:
                    break
        return rows

    def _shard_table(self) -> pa.Table:
        paths = self.shard_paths()
        if not paths:
            return self.schema.empty_table()
        return pa.concat_tables(pq.read_table(p, schema=self.schema) for p in paths)

    def read_table(self) -> pa.Table:
        """Everything stored so far (shards and journal), each id once."""
        table = self._shard_table()
        seen = set(table.column("id").to_pylist())
        extra = [row for row in self._read_journal() if row["id"] not in seen]
        if extra:
            table = pa.concat_tables([table, pa.Table.from_pylist(extra, schema=self.schema)])
        return table

    def read(self) -> list[Record]:
        return [Record.from_row(row) for row in self.read_table().to_pylist()]

    def __iter__(self) -> Iterator[Record]:
        return iter(self.read())

    def ids(self) -> set[str]:
        if self._opened:
            return set(self._ids)
        return set(self.read_table().column("id").to_pylist())

    def __len__(self) -> int:
        return len(self.ids())

    # -- writing -----------------------------------------------------------------
    def open(self) -> RecordTable:
        """Recover from an interrupted run: compact a leftover journal into a shard."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise _storage_error(self.folder, exc) from exc
        for stale in self.folder.glob(".*.tmp"):
            stale.unlink()
        shard_ids = set(self._shard_table().column("id").to_pylist())
        pending = [row for row in self._read_journal() if row["id"] not in shard_ids]
        unique = list({row["id"]: row for row in pending}.values())
        self._ids = shard_ids | {row["id"] for row in unique}
        self._journal_rows = unique
        self._opened = True
        self._compact()
        return self

    def __enter__(self) -> RecordTable:
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def append(self, record: Record) -> None:
        self.extend([record])

    def extend(self, records: Iterable[Record]) -> None:
        """Journal records durably (one fsync per call); ids already stored are skipped."""
        if not self._opened:
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
        payload = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode()
        try:
            with open(self._journal_path, "ab") as handle:
                start = handle.tell()
                try:
                    handle.write(payload)
                    handle.flush()
                    os.fsync(handle.fileno())
                except OSError:
                    handle.truncate(start)
                    raise
        except OSError as exc:
            for row in rows:
                self._ids.discard(row["id"])
            raise _storage_error(self._journal_path, exc) from exc
        self._journal_rows.extend(rows)
        if len(self._journal_rows) >= self.shard_size:
            self._compact()

    def _compact(self) -> None:
        if not self._journal_rows:
            with contextlib.suppress(FileNotFoundError):
                self._journal_path.unlink()
            return
        table = pa.Table.from_pylist(self._journal_rows, schema=self.schema)
        name = f"part-{len(self.shard_paths()):05d}-{uuid.uuid4().hex[:8]}.parquet"
        write_table_atomic(self.folder / name, table)
        # A crash here leaves journal rows that are also in the shard: open() skips them.
        self._journal_path.unlink(missing_ok=True)
        self._journal_rows = []

    def close(self) -> None:
        if self._opened:
            self._compact()
            self._opened = False


def read_records(path: Path) -> list[Record]:
    """Records from a table folder, a Parquet file or a JSONL file."""
    path = Path(path)
    if path.is_dir():
        return RecordTable(path).read()
    if path.suffix == ".jsonl":
        with open(path, encoding="utf-8") as handle:
            return [
                Record.from_row(_jsonl_row(json.loads(line))) for line in handle if line.strip()
            ]
    return [Record.from_row(row) for row in pq.read_table(path).to_pylist()]


def _jsonl_row(row: dict[str, Any]) -> dict[str, Any]:
    """Accept the short JSONL form of hand-written gold files (missing optional columns)."""
    defaults = {"category": "", "doc_type": "", "language": "", "source": "gold"}
    return {**defaults, **row}


def write_records(path: Path, records: Iterable[Record]) -> None:
    """Write a whole table of records as one Parquet file, atomically."""
    write_table_atomic(Path(path), records_to_table(records))
