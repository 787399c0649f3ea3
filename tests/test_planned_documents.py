"""`gen documents --disclosures planned` with pretend writers: facts written verbatim,
rephrased, left out or held by placeholders; every fact is found or flagged, and counted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fakes import ScriptedBackend
from planned_fakes import first_person, placeholder_writer, writer

import gen.generate.run as documents_stage
from gen.cli import main
from gen.core.records import Record, check_spans
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from gen.generate.disclosures import DisclosureSpec
from gen.generate.options import DocumentsOptions
from gen.generate.plan_spec import PlanSpec
from gen.generate.run import run as generate_run
from labeling.planned import SOURCE


def generate(
    tmp_path: Path, reply: Any, *, n: int = 6, required: bool = False, **spec: Any
) -> tuple[RunPaths, Any]:
    paths = RunPaths(tmp_path)
    plan = PlanSpec(language="en", seed=3, disclosures=DisclosureSpec(**spec))
    options = DocumentsOptions(plan, n=n, require_disclosures=required)
    return paths, generate_run(paths, options, ScriptedBackend(reply))


def documents(paths: RunPaths) -> list[Record]:
    return RecordTable(paths.documents).read()


def planned_of(record: Record) -> list[dict[str, Any]]:
    return record.meta["disclosures"]["planned"]


def plan_manifest(paths: RunPaths) -> dict[str, Any]:
    manifest = json.loads(paths.manifest("documents").read_text())
    [plan] = manifest["plans"].values()
    return plan


def test_facts_written_verbatim_are_exact_spans(tmp_path: Path) -> None:
    paths, summary = generate(tmp_path, writer(lambda number, fact: fact))
    records = documents(paths)
    assert len(records) == 6
    facts = 0
    for record in records:
        check_spans(record.text, record.spans, record_id=record.id)
        planned = [span for span in record.spans if span.source == SOURCE]
        if record.category == "other":
            assert not planned and "disclosures" not in record.meta
            continue
        assert record.flags == []
        assert [fact["found"] for fact in planned_of(record)] == ["exact"] * len(planned)
        for span, fact in zip(planned, planned_of(record), strict=True):
            assert record.text[span.start : span.end] == fact["text"]
            assert (span.label, span.quality, span.score) == (fact["category"], "exact", 1.0)
            assert (fact["start"], fact["end"], fact["source"]) == (span.start, span.end, "pack")
        facts += len(planned)
    counts = plan_manifest(paths)["disclosures"]
    assert counts["planned"] == counts["exact"] == counts["asked"] == facts > 5
    assert counts["missing"] == counts["fuzzy"] == 0
    assert sum(row["planned"] for row in counts["by_category"].values()) == facts
    assert summary.facts.total()["exact"] == facts


def test_a_rephrased_fact_is_fuzzy(tmp_path: Path) -> None:
    paths, _ = generate(tmp_path, writer(lambda number, fact: first_person(fact).upper()))
    outcomes = {
        fact["found"] for r in documents(paths) if "disclosures" in r.meta for fact in planned_of(r)
    }
    assert outcomes <= {"exact", "fuzzy"} and "fuzzy" in outcomes
    for record in documents(paths):
        for span in record.spans:
            if span.source == SOURCE and span.quality == "fuzzy":
                assert 0.7 <= span.score <= 1.0


def test_a_dropped_fact_flags_the_document(tmp_path: Path) -> None:
    paths, summary = generate(tmp_path, writer(lambda number, fact: None if number == 1 else fact))
    flagged = [r for r in documents(paths) if "disclosures" in r.meta]
    assert flagged and all(r.flags == ["disclosure_missing"] for r in flagged)
    for record in flagged:
        first, *rest = planned_of(record)
        assert first["found"] == "missing" and "start" not in first
        assert all(fact["found"] == "exact" for fact in rest)
    counts = plan_manifest(paths)["disclosures"]
    assert counts["missing"] == len(flagged) and counts["exact"] == counts["planned"] - len(flagged)
    assert summary.accepted == 6


def test_required_disclosures_reject_a_document_missing_a_fact(tmp_path: Path) -> None:
    paths, summary = generate(
        tmp_path, writer(lambda number, fact: None if number == 1 else fact), required=True
    )
    assert summary.short  # only `other` documents can pass: the plan runs short
    rejects = RecordTable(paths.rejects("documents")).read()
    assert rejects and all(r.meta["reason"] == "disclosure_missing" for r in rejects)
    for reject in rejects:
        assert reject.meta["detail"] == planned_of(reject)[0]["text"]
        assert reject.flags[0] == "disclosure_missing"
    assert all(r.category == "other" for r in documents(paths))
    plan = plan_manifest(paths)
    assert plan["rejected"] == {"disclosure_missing": len(rejects)}
    assert plan["disclosures"]["missing"] == len(rejects)
    assert plan["runs"][-1]["require_disclosures"] is True


def test_the_cli_reports_the_facts_and_a_short_run_names_the_cause(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    backend = ScriptedBackend(writer(lambda number, fact: None if number == 1 else fact))
    monkeypatch.setattr(documents_stage, "make_backend", lambda options: backend)
    args = ["documents", "--run", str(tmp_path), "--category", "judicial", "--n", "2"]
    flagged = CliRunner().invoke(main, [*args, "--disclosures", "planned"])
    assert flagged.exit_code == 0, flagged.output
    assert "planned facts: " in flagged.output and " missing (documents flagged" in flagged.output
    required = CliRunner().invoke(
        main, [*args, "--disclosures", "planned", "--require-disclosures", "--seed", "1"]
    )
    assert required.exit_code == 3, required.output
    error = required.output.strip().splitlines()[-1]
    assert "every answer was disclosure_missing: the writer left planned facts out" in error


@pytest.mark.parametrize(
    ("style", "hint", "not_hinted"),
    [
        ("inline", "try --fact-style placeholder or a larger model", None),
        ("placeholder", "try a larger model", "--fact-style placeholder"),
    ],
)
def test_the_hint_of_a_short_run_follows_the_options_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, style: str, hint: str, not_hinted: str | None
) -> None:
    """The cause of a short run never suggests the fact style already in use."""
    reply = (
        placeholder_writer(leave_out=1)
        if style == "placeholder"
        else writer(lambda number, fact: None if number == 1 else fact)
    )
    monkeypatch.setattr(documents_stage, "make_backend", lambda options: ScriptedBackend(reply))
    result = CliRunner().invoke(
        main,
        [
            *["documents", "--run", str(tmp_path), "--category", "judicial", "--n", "2"],
            *["--disclosures", "planned", "--fact-style", style, "--require-disclosures"],
            *["--seed", "1"],
        ],
    )
    assert result.exit_code == 3, result.output
    error = result.output.strip().splitlines()[-1]
    assert "the writer left planned facts out" in error and hint in error
    assert "drop --require-disclosures" in error
    if not_hinted:
        assert not_hinted not in error


def test_placeholders_are_replaced_and_a_left_out_one_is_missing(tmp_path: Path) -> None:
    paths, _ = generate(tmp_path, placeholder_writer(leave_out=2), style="placeholder")
    for record in documents(paths):
        assert "[[FACT" not in record.text and "[FACT" not in record.text
        if "disclosures" not in record.meta:
            continue
        meta = record.meta["disclosures"]
        assert meta["style"] == "placeholder" and meta["unknown_placeholders"] == ["[[FACT_9]]"]
        planned = planned_of(record)
        found = [fact["found"] for fact in planned]
        assert found[0] == "exact" and found[2:] == ["exact"] * len(found[2:])
        if len(planned) > 1:
            assert found[1] == "missing" and record.flags == ["disclosure_missing"]
        spans = [span for span in record.spans if span.source == SOURCE]
        assert [record.text[s.start : s.end] for s in spans] == [
            fact["text"] for fact in planned if fact["found"] == "exact"
        ]
        assert "[[FACT_1]] stands for:" in record.prompt


def test_the_placeholder_prompt_never_shows_facts_as_lines_to_copy(tmp_path: Path) -> None:
    paths, _ = generate(tmp_path, placeholder_writer(), style="placeholder", n=2)
    record = next(r for r in documents(paths) if "disclosures" in r.meta)
    assert "must include these facts" not in record.prompt
