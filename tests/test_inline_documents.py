"""`gen documents --inline-labels`: the writer tags, the documents table holds clean text and
`llm_inline` spans, and `gen label --strategy inline` reads them back beside other strategies."""

from __future__ import annotations

import importlib
import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner
from fakes import ScriptedBackend
from label_fakes import keyword_reply

from gen.backends.base import GenerationRequest
from gen.cli import main
from gen.core.records import Record, check_spans
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from gen.generate.options import DocumentsOptions
from gen.generate.plan_spec import PlanSpec
from gen.generate.run import run as generate_run
from labeling.options import LabelOptions
from labeling.run import run as label_run

FILLER = "The appointment was moved to the second week of March after the holidays."


def tagged_reply(request: GenerationRequest) -> str:
    """A document with one well-formed tagged passage, one left open every third item, and
    an unknown tag every fourth; distinct per seed so no duplicate is rejected."""
    seed = request.seed or 0
    words = " ".join(random.Random(seed).sample(FILLER.split(), 8))
    closing = "" if seed % 3 == 0 else "</health>"
    extra = " See <b>note</b>." if seed % 4 == 0 else ""
    return (
        f"Dear colleague,\nMaria Bianchi <health>has had type 2 diabetes since 2015</health>. "
        "She <crime>was fined for speeding</crime> once. "
        f"Her son <health>takes insulin every morning{closing}. {FILLER} {words}.{extra}\n"
        "Best regards."
    )


def generate(tmp_path: Path, n: int = 4) -> RunPaths:
    run = RunPaths(tmp_path)
    options = DocumentsOptions(PlanSpec(language="en", category="health"), n=n, inline_labels=True)
    generate_run(run, options, ScriptedBackend(tagged_reply))
    return run


def test_documents_keep_clean_text_and_the_writers_spans(tmp_path: Path) -> None:
    run = generate(tmp_path)
    records: list[Record] = RecordTable(run.documents).read()
    assert len(records) == 4
    for record in records:
        check_spans(record.text, record.spans, record_id=record.id)
        assert "<" not in record.text and "<health>" in record.meta["inline"]["tagged"]
        assert "<health>...</health>: physical or mental health" in record.prompt
        found = [(record.text[s.start : s.end], s.label, s.source) for s in record.spans]
        assert found[:2] == [
            ("has had type 2 diabetes since 2015", "health", "llm_inline"),
            ("was fined for speeding", "judicial", "llm_inline"),
        ]
        assert ("takes insulin every morning", "health", "llm_inline") in found
        unknown = "<b>" in record.meta["inline"]["tagged"]
        assert record.flags == (["inline_unknown_tag"] if unknown else [])
    repaired = [r for r in records if r.meta["inline"]["repairs"]]
    assert repaired, "an open tag was closed at its sentence end"
    manifest = json.loads(run.manifest("documents").read_text())
    assert next(iter(manifest["plans"].values()))["runs"][-1]["inline_labels"] is True


def tagged(run: RunPaths) -> list[tuple[bool, str]]:
    return [(bool(r.spans), r.meta["inline"]["tagged"]) for r in RecordTable(run.documents).read()]


def test_label_reads_inline_spans_back_and_compares_them(tmp_path: Path) -> None:
    run = generate(tmp_path)
    written = {r.id: r.spans for r in RecordTable(run.documents).read()}
    options = LabelOptions(strategy="sentences,inline", backend=ScriptedBackend(keyword_reply))
    flagged = sum(bool(spans and "<b>" in meta) for spans, meta in tagged(run))
    summary = label_run(run, options)
    assert summary.statuses["inline"] == {"ok": 4 - flagged, "flagged": flagged}
    for record in RecordTable(run.labeled).read():
        inline = [s for s in record.spans if s.source == "llm_inline"]
        assert inline == written[record.id]
    manifest = json.loads(run.manifest("label").read_text())
    assert set(manifest["agreement"]) == {"sentences vs inline"}
    assert manifest["strategies"]["inline"].get("flagged", 0) == flagged
    rejects = RecordTable(run.rejects("label")).read()
    assert [r.meta["reason"] for r in rejects if r.meta["strategy"] == "inline"] == [
        "tags_unresolved"
    ] * flagged


def test_labeling_with_other_strategies_keeps_the_inline_spans(tmp_path: Path) -> None:
    run = generate(tmp_path, n=2)
    label_run(run, LabelOptions(strategy="sentences", backend=ScriptedBackend(keyword_reply)))
    for record in RecordTable(run.labeled).read():
        assert any(s.source == "llm_inline" for s in record.spans)


def test_cli_inline_only_loads_no_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run = generate(tmp_path, n=2)
    command = importlib.import_module("gen.cli.label")

    def no_model(options: object) -> None:
        raise AssertionError("the inline strategy asks no model")

    monkeypatch.setattr(command, "make_backend", no_model)
    result = CliRunner().invoke(main, ["label", "--run", str(run.root), "--strategy", "inline"])
    assert result.exit_code == 0, result.output
    assert "2/2 documents labeled with strategy inline" in result.output
    assert "inline: " in result.output and "llm_inline" in result.output
