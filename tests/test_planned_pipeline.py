"""Planned documents through the later stages: `gen label` keeps the planned spans and
compares each strategy with them, `gen build` ranks `planned` like any source, and the
inspect page shows the plan."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fakes import ScriptedBackend
from label_fakes import keyword_reply
from planned_fakes import writer

from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from gen.dataset.assemble import build_dataset
from gen.dataset.options import BuildOptions
from gen.generate.disclosures import DisclosureSpec
from gen.generate.options import DocumentsOptions
from gen.generate.plan_spec import PlanSpec
from gen.generate.run import run as generate_run
from gen.inspect.page import document_entry
from labeling.options import LabelOptions
from labeling.planned import SOURCE
from labeling.run import run as label_run


@pytest.fixture
def labeled(tmp_path: Path) -> RunPaths:
    paths = RunPaths(tmp_path)
    spec = PlanSpec(language="en", category="health", disclosures=DisclosureSpec(second_share=0))
    # The keyword labeler marks the sentences that mention insulin: each holds a fact.
    drop_second = writer(lambda number, fact: None if number == 2 else f"{fact} and takes insulin")
    generate_run(paths, DocumentsOptions(spec, n=5), ScriptedBackend(drop_second))
    label_run(paths, LabelOptions(strategy="sentences", backend=ScriptedBackend(keyword_reply)))
    return paths


def test_label_keeps_planned_spans_and_reports_agreement_with_them(labeled: RunPaths) -> None:
    written = {r.id: r for r in RecordTable(labeled.documents).read()}
    for record in RecordTable(labeled.labeled).read():
        planned = [span for span in record.spans if span.source == SOURCE]
        assert planned == [s for s in written[record.id].spans if s.source == SOURCE]
        assert planned and record.meta["disclosures"] == written[record.id].meta["disclosures"]
        assert record.flags == written[record.id].flags
    manifest = json.loads(labeled.manifest("label").read_text())
    health = manifest["agreement"]["planned vs sentences"]["health"]
    assert health["documents"] == 5 and health["first_positive"] > 0
    assert manifest["spans_by_source"][SOURCE] == sum(
        len([s for s in r.spans if s.source == SOURCE]) for r in written.values()
    )


def test_build_keeps_planned_spans_by_default_and_ranks_them(labeled: RunPaths) -> None:
    def kept_sources(*sources: str) -> set[str]:
        options = BuildOptions(include_queries=False, negatives_share=0)
        if sources:
            options = BuildOptions(include_queries=False, negatives_share=0, sources=sources)
        build_dataset(labeled.root, options)
        records = RecordTable(labeled.root / "dataset").read()
        return {span.source for record in records for span in record.spans}

    assert SOURCE in kept_sources()  # the default sources rank planned first
    assert kept_sources(SOURCE, "llm_sentences") == {SOURCE}  # planned wins every overlap
    assert kept_sources("llm_sentences", SOURCE) == {"llm_sentences"}


def test_the_inspect_page_shows_the_plan(labeled: RunPaths) -> None:
    record = RecordTable(labeled.labeled).read()[0]
    rows = document_entry(record, "labeled")["plan"]
    facts = record.meta["disclosures"]["planned"]
    assert [row[:3] for row in rows] == [[f["category"], f["text"], f["found"]] for f in facts]
    assert any(row[2] == "missing" and row[3] is None for row in rows) == (
        "disclosure_missing" in record.flags
    )
    template = (Path(__file__).parents[1] / "gen/inspect/templates/inspect.html.j2").read_text()
    assert "doc.plan" in template
