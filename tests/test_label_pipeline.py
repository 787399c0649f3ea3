from __future__ import annotations

import importlib
import json
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner
from fakes import ScriptedBackend, table_held_elsewhere
from label_fakes import HEALTH_TEXT, document, documents, keyword_reply, sentence_answer

from gen.backends.base import GenerationRequest
from gen.cli import main
from gen.core.errors import GenError, ModelError, UsageError
from gen.core.records import Record, check_spans
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from labeling.labeled import batches
from labeling.options import LabelOptions
from labeling.run import run as label_run


def fake_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    # `gen.cli.label` the attribute is the command; the module is found by import
    command_module = importlib.import_module("gen.cli.label")
    monkeypatch.setattr(
        command_module, "make_backend", lambda options: ScriptedBackend(keyword_reply)
    )


def make_run(tmp_path: Path, records: list[Record] | None = None) -> RunPaths:
    run = RunPaths(tmp_path)
    with RecordTable(run.documents) as table:
        table.extend(records if records is not None else documents())
    return run


def spans_of(run: RunPaths) -> dict[str, list[tuple[str, str, str]]]:
    """Per document id: (covered text, label, source) of every span."""
    result = {}
    for record in RecordTable(run.labeled).read():
        check_spans(record.text, record.spans, record_id=record.id)
        result[record.id] = [
            (record.text[s.start : s.end], s.label, s.source) for s in record.spans
        ]
    return result


def manifest(run: RunPaths) -> dict:
    return json.loads(run.manifest("label").read_text())


def test_both_strategies_label_every_document(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    backend = ScriptedBackend(keyword_reply)
    summary = label_run(run, LabelOptions(strategy="both", backend=backend))
    assert summary.labeled == 3 and summary.new_labeled == 3

    frame = pd.read_parquet(run.labeled)
    assert sorted(frame["id"]) == ["d-health", "d-judicial", "d-other"]
    sources = {span["source"] for spans in frame["spans"] for span in spans}
    assert sources == {"faker", "llm_sentences", "llm_censor"}

    spans = spans_of(run)
    health = spans["d-health"]
    assert ("Mario Rossi has had type 2 diabetes since 2015", "health", "llm_sentences") in health
    assert ("He takes insulin every morning", "health", "llm_sentences") in health
    assert any(source == "llm_censor" and label == "health" for _, label, source in health)
    assert [t for t, label, source in health if source == "faker"] == [
        "Mario Rossi",
        "Turin",
        "Mario Rossi",
        "Rossi",
        "Turin",
    ]
    # `other` documents are not sent to the model, but their PII is still marked
    assert spans["d-other"] == [("Verdi", "PERSON", "faker")]
    other = next(r for r in RecordTable(run.labeled).read() if r.id == "d-other")
    assert other.meta["labeling"]["strategies"]["censor"]["status"] == "skipped"
    assert other.meta["finish_reason"] == "stop"  # the document's own meta is kept

    # grouped by category, each strategy over the whole batch: prefixes stay warm
    kinds = [
        ("sentences" if r.grammar else "censor", "HEALTH" in r.prompt) for r in backend.requests
    ]
    assert kinds == [("sentences", True), ("censor", True), ("sentences", False), ("censor", False)]

    data = manifest(run)
    assert data["labeled"] == 3 and data["rejects"] == 0
    assert data["strategy"] == "sentences,censor"
    assert data["strategies"]["sentences"] == {
        "ok": 2,
        "skipped": 1,
        "reasons": {"not_sensitive": 1},
    }
    pair = data["agreement"]["sentences vs censor"]
    assert pair["health"]["kappa"] == 1.0
    assert pair["judicial"]["f1"] == 1.0
    assert pair["health"]["documents"] == 1


def test_a_second_run_resumes_and_asks_nothing(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    label_run(run, LabelOptions(strategy="sentences", backend=ScriptedBackend(keyword_reply)))
    again = ScriptedBackend(keyword_reply)
    summary = label_run(run, LabelOptions(strategy="sentences", backend=again))
    assert again.requests == [] and summary.new_labeled == 0 and summary.labeled == 3
    assert len(pd.read_parquet(run.labeled)) == 3


def test_another_strategy_on_a_labeled_run_needs_overwrite(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    label_run(run, LabelOptions(strategy="sentences", backend=ScriptedBackend(keyword_reply)))
    with pytest.raises(UsageError, match="--strategy sentences"):
        label_run(run, LabelOptions(strategy="both", backend=ScriptedBackend(keyword_reply)))
    # the same set of strategies, however written, resumes
    label_run(run, LabelOptions(strategy=" sentences,", backend=ScriptedBackend(keyword_reply)))
    summary = label_run(
        run, LabelOptions(strategy="both", overwrite=True, backend=ScriptedBackend(keyword_reply))
    )
    assert summary.new_labeled == 3
    assert "llm_censor" in {s for spans in spans_of(run).values() for _, _, s in spans}


def test_unusable_answers_are_flagged_kept_with_reason_and_counted(tmp_path: Path) -> None:
    def reply(request: GenerationRequest) -> str:
        if request.grammar:
            return sentence_answer(request.prompt)
        return "Sorry, I cannot rewrite this document."

    run = make_run(tmp_path)
    label_run(run, LabelOptions(strategy="both", backend=ScriptedBackend(reply)))
    labeled = {r.id: r for r in RecordTable(run.labeled).read()}
    assert labeled["d-health"].flags == ["censor_failed"]
    assert labeled["d-other"].flags == []
    sources = {s.source for s in labeled["d-health"].spans}
    assert sources == {"faker", "llm_sentences"}

    rejects = {r.id: r for r in RecordTable(run.rejects("label")).read()}
    assert sorted(rejects) == ["d-health:censor", "d-judicial:censor"]
    reject = rejects["d-health:censor"]
    assert reject.meta["reason"] == "alignment_failed"
    assert reject.meta["answers"] == ["Sorry, I cannot rewrite this document."] * 2
    assert reject.text == HEALTH_TEXT and reject.flags == ["censor_failed"]

    data = manifest(run)
    assert data["strategies"]["censor"]["failed"] == 2
    assert data["strategies"]["censor"]["reasons"] == {"alignment_failed": 2, "not_sensitive": 1}
    assert data["flags"] == {"censor_failed": 2}
    assert data["agreement"] == {}  # no document where both strategies answered


def test_a_broken_backend_stops_the_run_without_writing_the_batch(tmp_path: Path) -> None:
    def reply(request: GenerationRequest) -> str:
        raise ModelError("server unavailable")

    records = [document(f"h{i}", HEALTH_TEXT, "health") for i in range(6)]
    run = make_run(tmp_path, records)
    with pytest.raises(GenError, match="failed 5 times in a row"):
        label_run(run, LabelOptions(strategy="sentences", backend=ScriptedBackend(reply)))
    assert RecordTable(run.labeled).read() == []
    assert manifest(run)["labeled"] == 0


def test_batches_share_language_and_category() -> None:
    records = [document(f"h{i}", HEALTH_TEXT, "health") for i in range(3)]
    records.append(document("j0", HEALTH_TEXT, "judicial"))
    assert [[r.id for r in batch] for batch in batches(records, 2)] == [
        ["h0", "h1"],
        ["h2"],
        ["j0"],
    ]


def test_cli_labels_and_reports(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_backend(monkeypatch)
    make_run(tmp_path)
    result = CliRunner().invoke(main, ["label", "--run", str(tmp_path), "--strategy", "both"])
    assert result.exit_code == 0, result.output
    assert "3/3 documents labeled with strategy sentences,censor (3 new)" in result.output
    assert "sentences: ok 2, skipped 1" in result.output
    assert "agreement of sentences vs censor" in result.output
    assert "health" in result.output.split("agreement", 1)[1]


def test_a_second_process_on_the_run_is_refused_before_loading_a_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    loads: list[object] = []

    def load(options: object) -> ScriptedBackend:
        loads.append(options)
        return ScriptedBackend(keyword_reply)

    monkeypatch.setattr(importlib.import_module("gen.cli.label"), "make_backend", load)
    run = make_run(tmp_path)
    # Another `gen label` on the same run, still writing.
    with table_held_elsewhere(run.labeled) as holder:
        refused = CliRunner().invoke(main, ["label", "--run", str(tmp_path)])
        assert refused.exit_code == 2
        (line,) = refused.output.strip().splitlines()
        assert line.startswith(
            f"error: {run.labeled} is being written by another process (pid {holder.pid}"
        )
        assert loads == []  # refused before the model load, not after it
    result = CliRunner().invoke(main, ["label", "--run", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert len(loads) == 1


def test_cli_without_documents_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_backend(monkeypatch)
    result = CliRunner().invoke(main, ["label", "--run", str(tmp_path)])
    assert result.exit_code == 2
    assert "no documents in" in result.output and "Traceback" not in result.output


def test_cli_bad_min_score_is_one_line_and_status_2(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["label", "--run", str(tmp_path), "--min-score", "0.8,x"])
    assert result.exit_code == 2
    assert result.output.strip() == (
        "error: --min-score '0.8,x': 'x' is not a number; expected a probability such as 0.8, "
        "optionally followed by label=probability pairs (0.8,sexuality=0.4)"
    )


@pytest.mark.parametrize("written", ["unknown=0.5", "0.8,unknown=0.5", "unknown=x"])
def test_cli_min_score_names_a_label_that_is_none(tmp_path: Path, written: str) -> None:
    """A label no category has is named first, with or without a value for every label."""
    result = CliRunner().invoke(main, ["label", "--run", str(tmp_path), "--min-score", written])
    assert result.exit_code == 2
    assert result.output.strip().startswith(
        f"error: --min-score {written!r}: 'unknown' is no sensitive category; expected one of "
        "health, politic, sexuality, judicial, philosophy, ethnic"
    ), result.output
