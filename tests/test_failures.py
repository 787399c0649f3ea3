"""Damaged or unwritable run folders and wrong option values, as a user meets them: one
line on stderr that names the file and says what to do, exit status 1 for damaged state
and I/O, 2 for usage; nothing half-written, no valid record lost."""

from __future__ import annotations

import importlib
import json
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from build_fixtures import make_run
from click.testing import CliRunner, Result
from fakes import ScriptedBackend, unique_reply
from label_fakes import documents, keyword_reply

from gen.cli import main
from gen.core.journal import BAD_LINES, JOURNAL
from gen.core.packs import default_prompts_dir
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from gen.dataset.assemble import build_dataset
from gen.dataset.options import BuildOptions
from scraping.queries.generate import generate_queries


@pytest.fixture
def fake_backends(monkeypatch: pytest.MonkeyPatch) -> list[ScriptedBackend]:
    """`gen documents` and `gen label` get scripted backends; the list holds those made."""
    made: list[ScriptedBackend] = []
    # `gen documents` loads its backend in the stage (only when there is work), `gen label`
    # in the command.
    for module, reply in (("gen.generate.run", unique_reply), ("gen.cli.label", keyword_reply)):

        def make(options: object, reply=reply) -> ScriptedBackend:
            made.append(ScriptedBackend(reply))
            return made[-1]

        monkeypatch.setattr(importlib.import_module(module), "make_backend", make)
    return made


def gen(*args: str) -> Result:
    return CliRunner().invoke(main, [str(arg) for arg in args])


def one_error_line(result: Result, status: int) -> str:
    assert result.exit_code == status, result.output
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()  # progress lines may come first
    errors = [line for line in lines if line.startswith("error: ")]
    assert errors == lines[-1:], lines
    return errors[0]


def block(folder: Path) -> None:
    """Make `folder` impossible to create or write into: read-only for a normal user; root
    writes anywhere, so for root a plain file takes the folder's place."""
    if os.geteuid() == 0:
        folder.write_text("not a folder")
    else:
        folder.mkdir()
        folder.chmod(0o555)


def labeled_run(tmp_path: Path) -> RunPaths:
    run = RunPaths(tmp_path)
    with RecordTable(run.documents) as table:
        table.extend(documents())
    return run


@pytest.mark.parametrize("command", ["documents", "label", "inspect"])
def test_a_truncated_parquet_file_is_named(tmp_path: Path, fake_backends, command: str) -> None:
    run = labeled_run(tmp_path)
    (part,) = RecordTable(run.documents).part_paths()
    part.write_bytes(part.read_bytes()[:300])
    line = one_error_line(gen(command, "--run", tmp_path), 1)
    assert f"{part} is not a readable Parquet file" in line and "move it out" in line


def test_garbage_bytes_in_a_parquet_file_are_named(tmp_path: Path, fake_backends) -> None:
    run = labeled_run(tmp_path)
    (part,) = RecordTable(run.documents).part_paths()
    part.write_bytes(b"PAR1 this is not Parquet at all " * 20)
    line = one_error_line(gen("label", "--run", tmp_path), 1)
    assert f"{part} is not a readable Parquet file" in line


def test_a_damaged_journal_line_costs_only_that_line(tmp_path: Path, fake_backends) -> None:
    result = gen("documents", "--run", tmp_path, "--n", "4", "--category", "health")
    assert result.exit_code == 0, result.output
    # As if a crash left the journal behind, and something then damaged its second line.
    table = RecordTable(tmp_path / "documents")
    rows = [json.dumps(record.to_row()).encode() for record in table.read()]
    for part in table.part_paths():
        part.unlink()
    journal = tmp_path / "documents" / JOURNAL
    journal.write_bytes(b"\n".join([rows[0], b"\xff\xfe\x00garbage", *rows[1:]]) + b"\n")

    result = gen("documents", "--run", tmp_path, "--n", "4", "--category", "health")
    assert result.exit_code == 0, result.output
    assert "already has 4 documents (--n 4): nothing to generate" in result.output
    assert len(fake_backends) == 1  # nothing made again: no model even loaded
    assert "1 damaged line(s) skipped (not UTF-8)" in result.stderr
    assert (tmp_path / "documents" / BAD_LINES).read_bytes() == b"\xff\xfe\x00garbage\n"


def test_a_garbage_manifest_is_named(tmp_path: Path, fake_backends) -> None:
    manifest = RunPaths(tmp_path).manifest("documents")
    manifest.parent.mkdir(parents=True)
    manifest.write_text('{"plans": {"en-health', encoding="utf-8")
    line = one_error_line(gen("documents", "--run", tmp_path, "--n", "1"), 1)
    assert f"{manifest} is not valid JSON" in line and "move it away" in line
    # the history is read before any work: no model time is spent on a call it cannot record
    assert fake_backends == [] and not RecordTable(tmp_path / "documents").exists()


def test_a_garbage_export_manifest_is_named_by_stats(tmp_path: Path) -> None:
    generate_queries(tmp_path, locale="en_US", n=20, seed=0, prompts_dir=default_prompts_dir())
    manifest = tmp_path / "export" / "jsonl" / "manifest.json"
    manifest.parent.mkdir(parents=True)
    manifest.write_text("[1, 2]", encoding="utf-8")
    line = one_error_line(gen("stats", "--run", tmp_path), 1)
    assert f"{manifest} is a JSON list, not an object" in line


def test_an_unwritable_stats_folder_is_named(tmp_path: Path) -> None:
    generate_queries(tmp_path, locale="en_US", n=20, seed=0, prompts_dir=default_prompts_dir())
    block(tmp_path / "stats")
    line = one_error_line(gen("stats", "--run", tmp_path), 1)
    assert f"cannot write {tmp_path / 'stats'}" in line and "writable" in line


def test_label_on_an_unwritable_run_names_the_real_problem(tmp_path: Path, fake_backends) -> None:
    labeled_run(tmp_path)
    block(tmp_path / "labeled")
    block(tmp_path / "manifests")  # a failed manifest must not hide the first error
    line = one_error_line(gen("label", "--run", tmp_path), 1)
    assert f"cannot write {tmp_path / 'labeled'}" in line and "manifests" not in line


def test_a_model_folder_for_llama_cpp_says_what_was_expected(tmp_path: Path) -> None:
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "weights-q4.gguf").write_bytes(b"")
    result = gen("documents", "--run", tmp_path, "--model", tmp_path / "model", "--n", "1")
    line = one_error_line(result, 2)
    assert "is a folder; llama.cpp expects a .gguf file (this folder has weights-q4.gguf)" in line


def test_an_unknown_doc_type_in_every_category_is_named(tmp_path: Path) -> None:
    line = one_error_line(gen("plan", "--doc-type", "Horoscope", "--category", "all"), 2)
    assert "unknown document type 'Horoscope' in any category" in line
    assert "health" not in line.split("expected one of")[0]


def built_run(tmp_path: Path) -> RunPaths:
    paths = make_run(tmp_path)
    build_dataset(tmp_path, BuildOptions())
    return paths


FOREIGN_TABLE = pa.table({"a": [1, 2], "b": ["x", "y"]})


@pytest.mark.parametrize(
    "command",
    [
        ["export", "--run", "{run}", "--format", "jsonl"],
        ["train", "--run", "{run}"],
        ["build", "--run", "{run}"],
        ["stats", "--run", "{run}"],
        ["inspect", "--run", "{run}", "--out", "{run}/page.html"],
    ],
)
def test_a_parquet_file_that_is_no_record_table_is_named(tmp_path: Path, command: list) -> None:
    paths = built_run(tmp_path)
    folder = paths.labeled if command[0] == "build" else paths.dataset
    foreign = folder / "part-00009.parquet"
    pq.write_table(FOREIGN_TABLE, foreign)
    line = one_error_line(gen(*[part.format(run=tmp_path) for part in command]), 1)
    assert f"{foreign} is not a Parquet file of records: it has no column 'id'" in line


def test_a_record_folder_given_as_input_with_a_foreign_part_is_a_usage_error(tmp_path) -> None:
    paths = built_run(tmp_path)
    pq.write_table(FOREIGN_TABLE, paths.dataset / "part-00009.parquet")
    line = one_error_line(gen("eval", paths.dataset, paths.dataset), 2)
    assert f"GOLD file {paths.dataset}: " in line and "has no column 'id'" in line


@pytest.mark.parametrize("format_name", ["conll", "sentences"])
def test_dataset_records_without_a_language_are_named(tmp_path: Path, format_name: str) -> None:
    paths = built_run(tmp_path)
    (part,) = RecordTable(paths.dataset).part_paths()
    table = pq.read_table(part)
    languages = table.column("language").to_pylist()
    languages[3] = None
    pq.write_table(table.set_column(4, "language", pa.array(languages, pa.string())), part)
    line = one_error_line(gen("export", "--run", tmp_path, "--format", format_name), 1)
    assert f"{part} is not a Parquet file of records: row 4: language is missing" in line
