"""The real embedded model through llama.cpp: two short documents labeled by each strategy."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner
from label_fakes import document

from gen.cli import main
from gen.core.record_files import read_record_file
from gen.core.records import Record, check_spans
from gen.core.runs import RunPaths
from gen.core.store import RecordTable

pytestmark = pytest.mark.model
ROOT = Path(__file__).resolve().parents[1]

#: Short, and of one category, so the second document reuses the first one's prompt prefix.
DOCUMENTS = [
    document(
        "m-1",
        "Carla Neri lives in Pisa. She suffers from migraine.",
        "health",
        {"name": "Carla Neri", "first_name": "Carla", "last_name": "Neri", "city": "Pisa"},
    ),
    document(
        "m-2",
        "Dean Holt has asthma. He plays chess in Leeds.",
        "health",
        {"name": "Dean Holt", "first_name": "Dean", "last_name": "Holt", "city": "Leeds"},
    ),
]


def labeled_run(tmp_path: Path) -> RunPaths:
    run = RunPaths(tmp_path)
    with RecordTable(run.documents) as table:
        table.extend(DOCUMENTS)
    return run


def test_two_documents_labeled_both_ways_with_generated_answers(tmp_path: Path) -> None:
    run = labeled_run(tmp_path)
    args = ["label", "--run", str(tmp_path), "--strategy", "both", "--ctx", "1024"]
    result = CliRunner().invoke(main, [*args, "--answers", "generated"])
    assert result.exit_code == 0, result.output

    frame = pd.read_parquet(run.labeled)
    assert sorted(frame["id"]) == ["m-1", "m-2"]
    records: list[Record] = RecordTable(run.labeled).read()
    for record in records:
        check_spans(record.text, record.spans, record_id=record.id)
        strategies = record.meta["labeling"]["strategies"]
        # the grammar makes the sentence answer parseable even for a tiny model
        assert strategies["sentences"]["status"] == "ok"
        assert strategies["censor"]["status"] in {"ok", "flagged", "failed"}
        faker = [record.text[s.start : s.end] for s in record.spans if s.source == "faker"]
        assert faker[0] in {"Carla Neri", "Dean Holt"}

    manifest = json.loads(run.manifest("label").read_text())
    assert manifest["labeled"] == 2
    assert manifest["backend"]["backend"] == "llama.cpp"
    censor = manifest["strategies"]["censor"]
    failed = censor.get("failed", 0) + censor.get("flagged", 0)
    # every censor answer that could not be used is explained and kept with its raw output
    assert sum(censor["reasons"].values()) == failed
    assert len(RecordTable(run.rejects("label")).ids()) == failed
    assert manifest["options"]["answers"] == "generated"


def test_two_documents_scored_by_clause_over_every_category(tmp_path: Path) -> None:
    run = labeled_run(tmp_path)
    args = ["label", "--run", str(tmp_path), "--strategy", "sentences", "--ctx", "2048"]
    options = [
        "--categories",
        "all",
        "--unit",
        "clause",
        "--answers",
        "scored",
        "--min-score",
        "0.2",
    ]
    result = CliRunner().invoke(main, [*args, *options])
    assert result.exit_code == 0, result.output
    records: list[Record] = RecordTable(run.labeled).read()
    assert len(records) == 2
    labels = {"health", "politic", "sexuality", "judicial", "philosophy", "ethnic"}
    for record in records:
        check_spans(record.text, record.spans, record_id=record.id)
        outcome = record.meta["labeling"]["strategies"]["sentences"]
        assert outcome["status"] == "ok" and outcome["answers"] == "scored"
        for span in record.spans:
            if span.source == "llm_sentences":
                assert span.label in labels and 0.2 <= span.score <= 1.0
    manifest = json.loads(run.manifest("label").read_text())
    assert (manifest["options"]["unit"], manifest["options"]["categories"]) == ("clause", "all")
    assert manifest["last_run"]["completion_tokens"] == 0  # nothing was generated


def test_documents_written_with_inline_labels_are_read_back(tmp_path: Path) -> None:
    run = RunPaths(tmp_path)
    write = ["documents", "--run", str(tmp_path), "--category", "health", "--n", "2"]
    write += ["--max-tokens", "96", "--ctx", "1024", "--inline-labels"]
    result = CliRunner().invoke(main, write)
    assert result.exit_code == 0, result.output
    documents: list[Record] = RecordTable(run.documents).read()
    assert documents
    for record in documents:
        check_spans(record.text, record.spans, record_id=record.id)
        assert "tagged" in record.meta["inline"]
        assert all(span.source == "llm_inline" for span in record.spans)
        assert "</health>" not in record.text and "<health>" not in record.text
    result = CliRunner().invoke(main, ["label", "--run", str(tmp_path), "--strategy", "inline"])
    assert result.exit_code == 0, result.output
    manifest = json.loads(run.manifest("label").read_text())
    statuses = manifest["strategies"]["inline"]
    assert statuses.get("ok", 0) + statuses.get("flagged", 0) == len(documents)


def test_two_gold_documents_through_every_strategy_over_every_category(tmp_path: Path) -> None:
    """The shortest gold document and a gold negative, asked about every category by both
    strategies: whatever the tiny model answers, every span is valid and every document is
    accounted for."""
    gold = {r.id: r for r in read_record_file(ROOT / "bench" / "gold" / "gold-dev.jsonl", "gold")}
    run = RunPaths(tmp_path)
    with RecordTable(run.documents) as table:
        table.extend(
            [replace(gold[name], spans=[], source="llm", meta={}) for name in ("en-21", "en-17")]
        )
    args = ["label", "--run", str(tmp_path), "--strategy", "both", "--categories", "all"]
    result = CliRunner().invoke(main, [*args, "--ctx", "4096"])
    assert result.exit_code == 0, result.output
    records: list[Record] = RecordTable(run.labeled).read()
    assert sorted(r.id for r in records) == ["en-17", "en-21"]
    manifest = json.loads(run.manifest("label").read_text())
    for record in records:
        check_spans(record.text, record.spans, record_id=record.id)
        strategies = record.meta["labeling"]["strategies"]
        # every category mode asks negatives too: nothing is skipped
        assert strategies["sentences"]["status"] == "ok"
        assert strategies["censor"]["status"] in {"ok", "flagged", "failed"}
    censor = manifest["strategies"]["censor"]
    assert censor.get("skipped", 0) == 0
    failed = censor.get("failed", 0) + censor.get("flagged", 0)
    assert len(RecordTable(run.rejects("label")).ids()) == failed
