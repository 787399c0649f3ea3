"""Record tables: nothing lost that was stored, nothing duplicated; one writer per part,
shards read as one table, damaged files recovered or named in one line."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from gen.core.errors import CorruptFileError, InvalidSpanError, StorageError, TableBusyError
from gen.core.journal import BAD_LINES, JOURNAL
from gen.core.records import RECORD_SCHEMA, Record, Span
from gen.core.shards import Shard
from gen.core.store import RecordTable


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


def test_journal_is_compacted_into_parts_and_readers_see_everything(tmp_path: Path) -> None:
    table = RecordTable(tmp_path / "t", part_rows=4).open()
    for i in range(10):
        table.append(record(i))
    assert len(table.part_paths()) == 2
    assert len(RecordTable(tmp_path / "t").read()) == 10  # 8 in Parquet + 2 in the journal
    table.close()
    assert not (tmp_path / "t" / JOURNAL).exists()
    assert len(pd.read_parquet(tmp_path / "t")) == 10


def journal_line(item: Record) -> bytes:
    return (json.dumps(item.to_row()) + "\n").encode()


def test_a_torn_last_journal_line_is_dropped_on_reopen(tmp_path: Path) -> None:
    # What a writer killed in the middle of a batch leaves behind.
    (tmp_path / "t").mkdir()
    journal = b"".join(journal_line(record(i)) for i in range(3))
    (tmp_path / "t" / JOURNAL).write_bytes(journal + b'{"id": "r9999", "text": "cut in the mid')
    assert RecordTable(tmp_path / "t").ids() == {"r0000", "r0001", "r0002"}
    reopened = RecordTable(tmp_path / "t").open()
    assert reopened.ids() == {"r0000", "r0001", "r0002"}
    reopened.close()
    assert not (tmp_path / "t" / JOURNAL).exists()


def test_crash_between_compaction_and_journal_removal_never_duplicates(tmp_path: Path) -> None:
    table = RecordTable(tmp_path / "t", part_rows=100).open()
    table.extend(record(i) for i in range(3))
    journal = (tmp_path / "t" / JOURNAL).read_bytes()
    table.close()  # Parquet file written, journal removed ...
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
    with pytest.raises(InvalidSpanError, match="the label must be a name without spaces"):
        table.append(record(5, spans=[Span(0, 4, " health")]))
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
        table = RecordTable({str(folder)!r}, part_rows=7).open()
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


def test_bad_lines_in_the_middle_of_the_journal_cost_only_themselves(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "t"
    folder.mkdir()
    bad = [
        b"",  # an empty line
        b"\xff\xfe not UTF-8 \xc3",
        json.dumps({**record(90).to_row(), "text": 5}).encode(),  # a wrong-typed field
        json.dumps({**record(91).to_row(), "seed": "seven"}).encode(),
        b'{"id": "r0092", "text": ',  # JSON cut short
        b"[1, 2, 3]",
        json.dumps(record(93, spans=[Span(0, 500, "health")]).to_row()).encode(),
    ]
    lines = [journal_line(record(i)) + line + b"\n" for i, line in enumerate(bad)]
    (folder / JOURNAL).write_bytes(b"".join(lines) + journal_line(record(7)))
    valid = {f"r{i:04d}" for i in range(8)}

    assert RecordTable(folder).ids() == valid  # readers skip the bad lines...
    assert "7 damaged line(s) skipped" in capsys.readouterr().err

    with RecordTable(folder) as table:  # ...and the next writer keeps them aside
        assert table.ids() == valid
    warning = capsys.readouterr().err
    assert f"kept in {folder / BAD_LINES}" in warning and "not UTF-8" in warning
    assert (folder / BAD_LINES).read_bytes() == b"".join(line + b"\n" for line in bad)
    assert not (folder / JOURNAL).exists()
    assert set(pd.read_parquet(folder)["id"]) == valid


def test_a_damaged_parquet_file_is_one_clear_error(tmp_path: Path) -> None:
    with RecordTable(tmp_path / "t") as table:
        table.extend(record(i) for i in range(3))
    (part,) = RecordTable(tmp_path / "t").part_paths()
    part.write_bytes(part.read_bytes()[:200])  # truncated, as by a full disk outside gen
    message = rf"{part} is not a readable Parquet file .* move it out of the run folder"
    with pytest.raises(CorruptFileError, match=message):
        RecordTable(tmp_path / "t").read()
    with pytest.raises(CorruptFileError, match=message):
        RecordTable(tmp_path / "t").open()
    part.rename(tmp_path / "aside.parquet")  # what the message says to do
    with RecordTable(tmp_path / "t") as table:  # the failed open released its lock
        assert table.ids() == set()


def test_one_writer_per_part(tmp_path: Path) -> None:
    folder = tmp_path / "t"
    first = RecordTable(folder).open()
    with pytest.raises(TableBusyError, match=rf"{folder} is being written by .*pid {os.getpid()}"):
        RecordTable(folder).open()
    # A shard writer would write ids the unsharded writer also writes.
    with pytest.raises(TableBusyError, match="same N"):
        RecordTable(folder, shard=Shard(0, 2)).open()
    with pytest.raises(TableBusyError):
        RecordTable(folder).replace([])
    first.close()

    left = RecordTable(folder, shard=Shard(0, 2)).open()
    right = RecordTable(folder, shard=Shard(1, 2)).open()  # shards of one N: side by side
    for other in (RecordTable(folder), RecordTable(folder, shard=Shard(0, 3))):
        with pytest.raises(TableBusyError, match="same N"):
            other.open()
    with pytest.raises(TableBusyError):
        RecordTable(folder).drop()
    left.close()
    right.close()
    RecordTable(folder).drop()
    assert not folder.exists()


def test_opening_is_not_writing_a_table_left_empty_leaves_no_folder(tmp_path: Path) -> None:
    folder = tmp_path / "run" / "t"
    with RecordTable(folder):
        assert (folder / "_lock").is_file()  # the lock is held while open
    assert not folder.exists() and not (tmp_path / "run").exists()  # open() made both
    with RecordTable(folder, shard=Shard(1, 2)):
        pass
    assert not folder.exists()

    with RecordTable(folder, shard=Shard(0, 2)) as kept, RecordTable(folder, shard=Shard(1, 2)):
        kept.append(record(1))
    assert [p.name for p in RecordTable(folder).part_folders()] == ["t", "shard-0-of-2"]
    with RecordTable(folder, shard=Shard(0, 2)):
        pass  # a part that holds records stays
    assert RecordTable(folder).ids() == {"r0001"}

    existing = tmp_path / "made-before"
    existing.mkdir()
    with RecordTable(existing):
        pass
    assert existing.is_dir()  # only what open() made is taken away


def test_the_parts_of_a_table_read_as_one(tmp_path: Path) -> None:
    folder = tmp_path / "t"
    with RecordTable(folder) as whole:
        whole.extend(record(i) for i in range(2))
    for k in range(3):
        with RecordTable(folder, shard=Shard(k, 3)) as part:
            part.extend(record(i) for i in range(10) if i % 3 == k)  # r0000, r0001: stored
            part.append(record(20 + k))
            assert part.ids() >= {"r0000", "r0001"}  # a writer sees the whole table
    wanted = {f"r{i:04d}" for i in [*range(10), 20, 21, 22]}
    assert RecordTable(folder).ids() == wanted
    assert [p.name for p in RecordTable(folder).part_folders()[1:]] == [
        "shard-0-of-3",
        "shard-1-of-3",
        "shard-2-of-3",
    ]
    ids = list(pd.read_parquet(folder)["id"])  # pandas reads the shard folders too
    assert sorted(ids) == sorted(wanted)

    RecordTable(folder).replace([record(7)])
    assert RecordTable(folder).ids() == {"r0007"}
    assert RecordTable(folder).part_folders() == [folder]
    assert list(pd.read_parquet(folder)["id"]) == ["r0007"]


def test_a_part_with_a_span_without_its_label_names_the_row(tmp_path: Path) -> None:
    folder = tmp_path / "t"
    RecordTable(folder).replace([record(1), record(2, spans=[Span(0, 4, "health")])])
    (part,) = RecordTable(folder).part_paths()
    rows = pq.read_table(part).to_pylist()
    rows[1]["spans"][0]["label"] = None
    pq.write_table(pa.Table.from_pylist(rows, schema=RECORD_SCHEMA), part)
    with pytest.raises(CorruptFileError, match=r"records: row 2: spans\.label is missing"):
        RecordTable(folder).read()
