"""Planned disclosures with the real embedded model: whatever it writes, every planned fact
is found (a `planned` span where the meta says) or flagged missing, and counted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from gen.cli import main
from gen.core.records import Record, check_spans
from gen.core.store import RecordTable
from labeling.planned import SOURCE

pytestmark = pytest.mark.model

SMALL = ["--max-tokens", "160", "--ctx", "1024"]


def accounted_for(record: Record) -> list[dict]:
    """The document's planned facts, each checked against its spans and flags."""
    check_spans(record.text, record.spans, record_id=record.id)
    facts = record.meta["disclosures"]["planned"]
    planned = {(s.start, s.end): s for s in record.spans if s.source == SOURCE}
    for fact in facts:
        if fact["found"] == "missing":
            assert "disclosure_missing" in record.flags
            continue
        span = planned[(fact["start"], fact["end"])]
        assert span.label == fact["category"] and span.quality == fact["found"]
        assert span.score == pytest.approx(fact["score"]) and span.score >= 0.7
    assert len(planned) == sum(fact["found"] != "missing" for fact in facts)
    return facts


def test_planned_documents_and_labels_with_the_embedded_model(tmp_path: Path) -> None:
    run = ["--run", str(tmp_path)]
    args = ["documents", *run, "--category", "health", "--n", "2", "--seed", "11", *SMALL]
    result = CliRunner().invoke(main, [*args, "--disclosures", "planned"])
    assert result.exit_code in (0, 3), result.output
    documents = RecordTable(tmp_path / "documents").read()
    facts = [fact for record in documents for fact in accounted_for(record)]
    manifest = json.loads((tmp_path / "manifests" / "documents.json").read_text())
    [plan] = manifest["plans"].values()
    counts = plan.get("disclosures", {})
    assert counts.get("planned", 0) >= len(facts)  # rejected disclosure checks count too
    found = {key: sum(f["found"] == key for f in facts) for key in ("exact", "fuzzy", "missing")}
    assert sum(found.values()) == len(facts)
    if documents:
        assert "planned facts: " in result.output
        labeled = CliRunner().invoke(main, ["label", *run, "--ctx", "2048"])
        assert labeled.exit_code == 0, labeled.output
        for record in RecordTable(tmp_path / "labeled").read():
            accounted_for(record)
        label = json.loads((tmp_path / "manifests" / "label.json").read_text())
        assert "planned vs sentences" in label["agreement"]


def test_model_facts_in_italian_are_kept_or_their_failure_stored(tmp_path: Path) -> None:
    args = ["documents", "--run", str(tmp_path), "--language", "it", "--category", "judicial"]
    result = CliRunner().invoke(
        main,
        [*args, "--n", "1", "--seed", "2", *SMALL, "--disclosures", "planned", "--facts", "model"],
    )
    assert result.exit_code in (0, 3), result.output
    documents = RecordTable(tmp_path / "documents").read()
    rejects = RecordTable(tmp_path / "rejects" / "documents").read()
    for record in documents:
        answers = record.meta["disclosures"]["model"]
        assert answers and all(answer["answer"] is not None for answer in answers)
        assert all(fact["source"] == "model" for fact in accounted_for(record))
    for reject in rejects:
        assert reject.meta["reason"]
        if reject.meta["reason"] == "facts_failed":
            assert reject.meta["disclosures"]["model"]
    [plan] = json.loads((tmp_path / "manifests" / "documents.json").read_text())["plans"].values()
    assert plan["accepted"] == len(documents)
    assert sum(plan["rejected"].values()) == len(rejects)
