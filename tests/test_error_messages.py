"""Error messages point the right way: the option, key or file they name is the one at
fault, and what they suggest exists for that command."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from gen.cli import main
from gen.core.errors import StorageError, UsageError
from gen.core.files import write_atomic
from gen.core.record_files import read_record_file
from gen.core.records import Record, Span
from gen.core.runs import RunPaths
from gen.core.store import RecordTable, write_records
from gen.train import TrainSettings


def test_an_unwritable_place_is_named_without_suggesting_an_option(tmp_path):
    blocker = tmp_path / "file.txt"
    blocker.write_text("a file, not a folder")
    with pytest.raises(StorageError) as caught:
        write_atomic(blocker / "found.jsonl", b"{}")
    message = str(caught.value)
    assert f"cannot write {blocker / 'found.jsonl'}" in message
    assert f"check that {blocker} is a writable folder" in message
    assert "--run" not in message


@pytest.mark.parametrize(("name", "value"), [("patience", -1), ("stride", -1)])
def test_a_negative_setting_names_itself(name, value):
    with pytest.raises(UsageError) as caught:
        TrainSettings(**{name: value})
    assert str(caught.value) == f"--{name} must not be negative"


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ({"id": "a", "text": None}, "line 1: text: expected a string, got null"),
        ({"id": None, "text": "abc"}, "line 1: id: expected a string, got null"),
        ({"text": "abc"}, "line 1: id: required key is missing"),
        (
            {"id": "a", "text": "abc", "spans": [{"start": 0, "end": None, "label": "x"}]},
            "line 1: spans.0.end: expected an integer, got null",
        ),
    ],
)
def test_null_is_not_a_missing_key(tmp_path, row, message):
    path = tmp_path / "gold.jsonl"
    path.write_text(json.dumps(row) + "\n")
    with pytest.raises(UsageError, match=message.replace(".", r"\.")):
        read_record_file(path, "GOLD file")


def test_import_reads_the_parquet_record_files_its_messages_ask_for(tmp_path):
    spans = [Span(0, 6, "health", "gold")]
    record = Record("p1", "Asthma since May.", "health", "note", "en", "gold", spans)
    parquet = tmp_path / "gold.parquet"
    write_records(parquet, [record])
    run = tmp_path / "run"
    result = CliRunner().invoke(main, ["import", str(parquet), "--run", str(run), "--as", "gold"])
    assert result.exit_code == 0, result.output
    (imported,) = RecordTable(RunPaths(run).gold).read()
    assert (imported.id, imported.text, imported.spans) == ("p1", record.text, record.spans)
    bad = tmp_path / "latin1.jsonl"
    bad.write_bytes("caf\xe9\n".encode("latin-1"))
    result = CliRunner().invoke(main, ["import", str(bad), "--run", str(run), "--as", "gold"])
    assert result.exit_code == 2 and "not UTF-8" in result.output


def test_eval_against_a_run_folder_or_an_empty_folder_says_so(tmp_path):
    gold = tmp_path / "gold.jsonl"
    gold.write_text('{"id": "a", "text": "abc"}\n')
    run = tmp_path / "run"
    (run / "labeled").mkdir(parents=True)
    (run / "documents").mkdir()
    result = CliRunner().invoke(main, ["eval", str(gold), str(run)])
    assert result.exit_code == 2
    assert f"PRED file {run} is a run folder" in result.output
    assert f"{run / 'labeled'}" in result.output
    result = CliRunner().invoke(main, ["eval", str(gold), str(run / "labeled")])
    assert result.exit_code == 2
    assert f"PRED file {run / 'labeled'}: no records found" in result.output
    assert "missing" not in result.output
