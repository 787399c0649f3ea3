"""Crash safety of record tables: nothing lost that was stored, nothing duplicated."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pandas as pd
import pytest

from gen.core.errors import InvalidSpanError, StorageError
from gen.core.records import Record, Span
from gen.core.store import JOURNAL, RecordTable


def record(i: int, **extra) -> Record:
    return Record(
        id=f"r{i:04d}",
        text=f"Anna Rossi visited on day {i}.",
        category="health",
        doc_type="Email",
        language="en",
        source="llm",
        **extra,
    )


def test_records_round_trip_through_parquet(tmp_path: Path) -> None:
    original = record(
        1,
        spans=[Span(0, 10, "PERSON", "faker")],
        persona={"name": "Anna Rossi"},
        meta={"reason": "x", "n": 3},
        flags=["f"],
    )
    with RecordTable(tmp_path / "t") as table:
        table.append(original)
    (back,) = RecordTable(tmp_path / "t").read()
    assert back == original
    assert list(pd.read_parquet(tmp_path / "t")["id"]) == ["r0001"]


def test_journal_is_compacted_into_shards_and_readers_see_everything(tmp_path: Path) -> None:
    table = RecordTable(tmp_path / "t", shard_size=4).open()
    for i in range(10):
        table.append(record(i))
    assert len(table.shard_paths()) == 2
    assert len(RecordTable(tmp_path / "t").read()) == 10  # 8 in shards + 2 in the journal
    table.close()
    assert not (tmp_path / "t" / JOURNAL).exists()
    assert len(pd.read_parquet(tmp_path / "t")) == 10


def test_a_torn_last_journal_line_is_dropped_on_reopen(tmp_path: Path) -> None:
    table = RecordTable(tmp_path / "t", shard_size=100).open()
    table.extend(record(i) for i in range(3))
    with open(tmp_path / "t" / JOURNAL, "a") as handle:
        handle.write('{"id": "r9999", "text": "cut in the mid')
    reopened = RecordTable(tmp_path / "t").open()
    assert reopened.ids() == {"r0000", "r0001", "r0002"}
    reopened.close()


def test_crash_between_shard_and_journal_removal_never_duplicates(tmp_path: Path) -> None:
    table = RecordTable(tmp_path / "t", shard_size=100).open()
    table.extend(record(i) for i in range(3))
    journal = (tmp_path / "t" / JOURNAL).read_bytes()
    table.close()  # shard written, journal removed ...
    (tmp_path / "t" / JOURNAL).write_bytes(journal)  # ... as if the crash came just before removal
    assert len(RecordTable(tmp_path / "t").read()) == 3
    with RecordTable(tmp_path / "t") as again:
        again.append(record(3))
    assert sorted(pd.read_parquet(tmp_path / "t")["id"]) == ["r0000", "r0001", "r0002", "r0003"]


def test_appending_a_stored_id_is_a_no_op(tmp_path: Path) -> None:
    with RecordTable(tmp_path / "t") as table:
        table.append(record(1))
        table.append(record(1))
    assert len(RecordTable(tmp_path / "t")) == 1


def test_invalid_spans_are_refused_before_writing(tmp_path: Path) -> None:
    table = RecordTable(tmp_path / "t").open()
    with pytest.raises(InvalidSpanError, match="outside the text"):
        table.append(record(1, spans=[Span(5, 500, "health")]))
    with pytest.raises(InvalidSpanError, match="whitespace"):
        table.append(record(2, spans=[Span(4, 5, "health")]))
    with pytest.raises(InvalidSpanError, match="overlap"):
        table.append(
            record(
                3, spans=[Span(0, 8, "health", "llm_censor"), Span(5, 10, "health", "llm_censor")]
            )
        )
    table.append(
        record(4, spans=[Span(0, 8, "health", "llm_censor"), Span(5, 10, "PERSON", "faker")])
    )
    table.close()
    assert [r.id for r in RecordTable(tmp_path / "t").read()] == ["r0004"]


def test_disk_full_is_one_clear_error_and_leaves_the_table_readable(
    tmp_path: Path, monkeypatch
) -> None:
    table = RecordTable(tmp_path / "t").open()
    table.append(record(1))

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(StorageError, match="disk full while writing"):
        table.append(record(2))
    monkeypatch.undo()
    assert table.ids() == {"r0001"}
    table.append(record(3))
    table.close()
    assert sorted(r.id for r in RecordTable(tmp_path / "t").read()) == ["r0001", "r0003"]


def test_kill_9_while_writing_loses_nothing_stored_and_duplicates_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "t"
    writer = textwrap.dedent(f"""
        import sys, itertools
        from gen.core.records import Record
        from gen.core.store import RecordTable
        table = RecordTable({str(folder)!r}, shard_size=7).open()
        for i in itertools.count():
            table.append(Record(id=f"r{{i:06d}}", text="x" * 50, category="health",
                                doc_type="Email", language="en", source="llm"))
            print(i, flush=True)
    """)
    process = subprocess.Popen([sys.executable, "-c", writer], stdout=subprocess.PIPE, text=True)
    acknowledged = -1
    deadline = time.monotonic() + 60
    while acknowledged < 40 and time.monotonic() < deadline:
        acknowledged = int(process.stdout.readline())
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    ids = [r.id for r in RecordTable(folder).read()]
    assert len(ids) == len(set(ids))
    assert {f"r{i:06d}" for i in range(acknowledged + 1)} <= set(ids)
    with RecordTable(folder) as reopened:  # recovery compacts what the journal held
        assert len(reopened.ids()) == len(ids)
    assert len(pd.read_parquet(folder)) == len(ids)
