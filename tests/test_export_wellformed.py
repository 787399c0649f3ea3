"""Exports as a user gets them: en_US queries (addresses with "Apt.") built and exported,
read back with seqeval's strict IOB2; killed exports; folders nobody may write."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from export_fixtures import query_run, trained_tokenizer, unwritable

from gen.cli import main
from gen.core.packs import default_prompts_dir
from gen.core.records import Record, Span
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from gen.export.base import ExportJob
from gen.export.checks import headless_inside_tags
from gen.export.formats.conll import TaggingSettings, check_conll, read_conll
from gen.export.formats.records import check_records
from gen.export.run import ExportOptions, run

REPOSITORY = Path(__file__).resolve().parents[1]
QUERIES = 3000


@pytest.fixture(scope="module")
def queries(tmp_path_factory) -> RunPaths:
    paths = RunPaths(query_run(tmp_path_factory.mktemp("queries"), QUERIES))
    apartments = [r for r in RecordTable(paths.dataset).read() if " Apt. " in r.text]
    # ADDRESS is one of 20 labels (and an address has several forms): about 40 of 3,000.
    assert len(apartments) > 25, "the query set should hold addresses with 'Apt.'"
    return paths


def _copy(paths: RunPaths, folder: Path) -> RunPaths:
    """A run folder with the same dataset, for tests that break things."""
    shutil.copytree(paths.dataset, folder / "dataset")
    return RunPaths(folder)


def _strict_and_lenient(sequences: list[list[str]]) -> tuple[int, int]:
    """Entities seqeval finds in strict IOB2 mode, and in its default lenient mode."""
    from seqeval.metrics.sequence_labeling import get_entities
    from seqeval.scheme import IOB2, Entities

    strict = Entities(sequences, IOB2).entities
    return sum(len(found) for found in strict), len(get_entities(sequences))


def test_conll_bio_of_en_us_queries_is_strict_iob2(queries):
    run(queries, ExportOptions("conll", settings={"scheme": "bio"}))
    folder = queries.export / "conll"
    sentences = [
        [tag for _, tag in sentence]
        for name in ("train", "dev", "test")
        for sentence in read_conll((folder / f"{name}.conll").read_text(encoding="utf-8"))
    ]
    assert sum(len(headless_inside_tags(tags)) for tags in sentences) == 0
    strict, lenient = _strict_and_lenient(sentences)
    spans = sum(len(r.spans) for r in RecordTable(queries.dataset).read())
    assert strict == lenient == spans


def _column_sentences(text: str, column: int) -> list[list[str]]:
    """The tags of a CoNLL file as a plain column reader takes them: field `column` of every
    line that is not blank (document lines too), a blank line ending a sentence."""
    sentences: list[list[str]] = [[]]
    for line in text.split("\n"):
        if line.strip():
            sentences[-1].append(line.split("\t")[column])
        elif sentences[-1]:
            sentences.append([])
    return [sentence for sentence in sentences if sentence]


@pytest.mark.parametrize("column", [-1, 1], ids=["last column", "second column"])
def test_conll_bio_read_by_a_plain_column_reader_gives_seqeval_every_entity(queries, column):
    from seqeval.metrics import f1_score
    from seqeval.scheme import IOB2

    run(queries, ExportOptions("conll", settings={"scheme": "bio"}))
    sentences = [
        tags
        for name in ("train", "dev", "test")
        for tags in _column_sentences(
            (queries.export / "conll" / f"{name}.conll").read_text(encoding="utf-8"), column
        )
    ]
    spans = sum(len(r.spans) for r in RecordTable(queries.dataset).read())
    assert _strict_and_lenient(sentences) == (spans, spans)
    assert f1_score(sentences, sentences, mode="strict", scheme=IOB2) == 1.0


def test_hf_tokens_windows_of_en_us_queries_are_strict_iob2(queries, tmp_path):
    import json

    from tokenizers import Tokenizer

    records = {r.id: r for r in RecordTable(queries.dataset).read()}
    tokenizer_dir = trained_tokenizer(tmp_path / "tok", [r.text for r in records.values()])
    settings = {"scheme": "bio", "tokenizer": tokenizer_dir, "length": 12, "stride": 4}
    run(queries, ExportOptions("hf-tokens", settings=settings))
    folder = queries.export / "hf-tokens"
    manifest = json.loads((folder / "manifest.json").read_text())
    id2label = {int(k): v for k, v in manifest["details"]["id2label"].items()}
    rows = [
        row
        for name in ("train", "dev", "test")
        for row in pq.read_table(folder / f"{name}.parquet").to_pylist()
    ]
    windows = [[id2label[i] for i in row["labels"] if i != -100] for row in rows]
    assert sum(len(headless_inside_tags(tags)) for tags in windows) == 0
    strict, lenient = _strict_and_lenient(windows)
    assert strict == lenient

    # Windows that open inside a span exist, and they open it with B-.
    tokenizer = Tokenizer.from_file(str(tokenizer_dir / "tokenizer.json"))
    tokenizer.enable_truncation(max_length=12, stride=4)
    opened_inside = 0
    for row, tags in zip(rows, windows, strict=True):
        if row["window"] == 0 or not tags:
            continue
        encoding = tokenizer.encode(records[row["record_id"]].text)
        window = [encoding, *encoding.overflowing][row["window"]]
        first = next(
            o
            for o, special in zip(window.offsets, window.special_tokens_mask, strict=True)
            if not special
        )
        spans = records[row["record_id"]].spans
        if any(s.start < first[0] < s.end for s in spans):
            opened_inside += 1
            assert tags[0].startswith("B-")
    assert opened_inside > 20


def test_sentence_rows_never_cut_a_span(queries):
    records = RecordTable(queries.dataset).read()
    job = ExportJob({"all": records}, queries.root, None)
    for record in records:
        ranges = job.sentences(record)
        for span in record.spans:
            assert any(start <= span.start and span.end <= end for start, end in ranges), (
                record.text,
                span,
            )


def test_a_malformed_conll_file_is_reported(tmp_path):
    text = "Ship to 12 Elm Road Apt. 4 now."
    start = text.index("12")
    record = Record("q", text, "other", "form", "en", "faker", [Span(start, start + 15, "ADDRESS")])
    tags = ["O", "O", "B-ADDRESS", "I-ADDRESS", "I-ADDRESS", "I-ADDRESS", "I-ADDRESS"]
    words = ["Ship", "to", "12", "Elm", "Road", "Apt", "."]
    lines = [f"{w}\t{t}" for w, t in zip(words, tags, strict=True)]
    lines += ["", "4\tI-ADDRESS", "now\tO", ".\tO", ""]
    (tmp_path / "train.conll").write_text("\n".join(lines))
    job = ExportJob({"train": [record]}, tmp_path, TaggingSettings("bio"))
    details = {"files": {"train": "train.conll"}, "tags": ["O", "B-ADDRESS", "I-ADDRESS"]}
    assert check_conll(job, details) == [
        "train.conll: sentence 2 word 1 '4' is tagged I-ADDRESS without a B-"
    ]
    (tmp_path / "train.conll").write_text("\n".join(lines[:3]))
    assert check_conll(job, details) == ["train.conll: 3 words written, 10 in the records"]


def test_a_records_file_that_does_not_read_back_is_a_problem_not_a_usage_error(tmp_path):
    record = Record("a", "Anna is here.", "other", "note", "en", "faker", [Span(0, 4, "PERSON")])
    (tmp_path / "train.jsonl").write_text('{"id": "a", "text": "Anna\n')
    job = ExportJob({"train": [record]}, tmp_path, None)
    (problem,) = check_records(job, {"files": {"train": "train.jsonl"}})
    assert problem.startswith("train.jsonl: ") and "line 1: not JSON" in problem


def _gen(*args: str) -> list[str]:
    return [sys.executable, "-c", "from gen.cli import main; main()", *args]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPOSITORY)}


def test_a_killed_export_leaves_a_folder_the_next_export_removes(queries, tmp_path):
    paths = _copy(queries, tmp_path)
    process = subprocess.Popen(
        _gen("export", "--run", str(paths.root), "--format", "conll"),
        env=_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while not list(paths.export.glob(".conll.*.tmp")) and time.monotonic() < deadline:
        assert process.poll() is None, "the export ended before it could be killed"
        time.sleep(0.005)
    process.send_signal(signal.SIGKILL)
    process.wait()
    (stale,) = paths.export.glob(".conll.*.tmp")
    assert not (paths.export / "conll").exists()

    result = CliRunner().invoke(main, ["export", "--run", str(paths.root), "--format", "conll"])
    assert result.exit_code == 0, result.output
    assert "removed 1 staging folder(s) left by interrupted exports" in result.output
    assert not stale.exists()
    assert (paths.export / "conll" / "train.conll").is_file()


def test_a_running_export_keeps_its_folder_and_its_format(queries, tmp_path):
    paths = _copy(queries, tmp_path)
    paths.export.mkdir()
    in_use = paths.export / f".spacy.{'a' * 32}.tmp"
    in_use.mkdir()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from pathlib import Path; from gen.core.locks import FileLock; "
            "lock = FileLock(Path(sys.argv[1])); assert lock.acquire(); "
            "print('held', flush=True); sys.stdin.read()",
            str(paths.export / ".spacy.lock"),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=_env(),
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        run(paths, ExportOptions("jsonl"))
        assert in_use.is_dir(), "a folder whose export still runs was removed"
        busy = CliRunner().invoke(main, ["export", "--run", str(paths.root), "--format", "spacy"])
        assert busy.exit_code == 2
        assert "is being written by another `gen export --format spacy` (pid" in busy.output
    finally:
        holder.stdin.close()
        holder.wait(timeout=60)
    summary = run(paths, ExportOptions("jsonl"))
    assert summary.removed_leftovers == [in_use] and not in_use.exists()


def test_an_unwritable_export_folder_is_one_line(queries, tmp_path):
    paths = _copy(queries, tmp_path)
    paths.export.mkdir()
    with unwritable(paths.export):
        result = subprocess.run(
            _gen("export", "--run", str(paths.root), "--format", "conll"),
            env=_env(),
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert result.returncode == 1
    lines = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and f"check that {paths.export} is a writable folder" in lines[0]
    assert "Traceback" not in result.stderr and "PermissionError" not in result.stderr
    assert not (paths.export / "conll").exists()


def test_a_bad_abbreviation_in_a_pack_is_a_located_error(queries, tmp_path):
    prompts = tmp_path / "prompts"
    shutil.copytree(default_prompts_dir(), prompts)
    language = prompts / "en" / "language.yaml"
    language.write_text(language.read_text().replace("[Apt.,", "[Apt, Apt.,"))
    paths = _copy(queries, tmp_path / "run")
    args = ["export", "--run", str(paths.root), "--format", "sentences"]
    result = CliRunner().invoke(main, [*args, "--prompts", str(prompts)])
    assert result.exit_code == 2
    assert "language.yaml" in result.output and "abbreviation 'Apt'" in result.output


def test_conll_document_lines_with_other_ids_are_reported(tmp_path):
    record = Record("q", "Ship it now.", "other", "form", "en", "faker", [])
    words = "\n".join(f"{word}\tO" for word in ("Ship", "it", "now", "."))
    (tmp_path / "train.conll").write_text(f'-DOCSTART-\tO\tid="other"\n\n{words}\n\n')
    job = ExportJob({"train": [record]}, tmp_path, TaggingSettings("io"))
    details = {"files": {"train": "train.conll"}, "tags": ["O"]}
    assert check_conll(job, details) == [
        "train.conll: the ids of the -DOCSTART- lines are not the records' ids"
    ]
