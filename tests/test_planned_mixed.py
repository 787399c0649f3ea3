"""`--facts mixed` with pretend writers: the model is asked only for the facts that drew it,
every fact keeps its source, and the counts and the summary line are per source too."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from fakes import ScriptedBackend
from planned_fakes import FACT_REQUEST, fact_writer, writer

import gen.generate.run as documents_stage
from gen.backends.base import GenerationRequest
from gen.cli import main
from gen.core.records import Record
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from gen.generate.disclosures import DisclosureSpec
from gen.generate.options import DocumentsOptions
from gen.generate.placed_facts import FactCounts, no_fact_from_another_source
from gen.generate.plan_spec import PlanSpec
from gen.generate.run import run as generate_run

MIXED = DisclosureSpec(facts="mixed", model_share=0.5)


def generate(tmp_path: Path, good: bool, n: int = 8) -> tuple[RunPaths, ScriptedBackend]:
    paths = RunPaths(tmp_path)
    spec = PlanSpec(language="en", category="health", seed=4, disclosures=MIXED)
    backend = ScriptedBackend(fact_writer(good))
    generate_run(paths, DocumentsOptions(spec, n=n), backend)
    return paths, backend


def test_the_model_is_asked_only_for_its_own_facts(tmp_path: Path) -> None:
    paths, backend = generate(tmp_path, good=True)
    records = RecordTable(paths.documents).read()
    assert len(records) == 8
    asked = [int(m.group(1)) for r in backend.requests if (m := FACT_REQUEST.search(r.prompt))]
    sources = Counter()
    for record in records:
        meta = record.meta["disclosures"]
        assert meta["facts"] == "mixed"
        planned = meta["planned"]
        model = Counter(fact["category"] for fact in planned if fact["source"] == "model")
        assert {a["category"]: a["wanted"] for a in meta.get("model", [])} == model
        for fact in planned:
            sources[fact["source"]] += 1
            assert fact["found"] == "exact"
            assert fact["text"].startswith("keeps fact number") == (fact["source"] == "model")
            assert f"- {record.persona['name']} {fact['text']}" in record.prompt
    assert sum(asked) == sources["model"] and sources["pack"] and sources["model"]
    plan = next(iter(json.loads(paths.manifest("documents").read_text())["plans"].values()))
    counts = plan["disclosures"]
    assert {source: row["planned"] for source, row in counts["by_source"].items()} == sources
    assert counts["by_source"]["model"]["asked"] == sum(asked)
    assert counts["planned"] == counts["exact"] == sum(sources.values())
    assert plan["spec"]["disclosures"]["model_share"] == 0.5


def test_a_mixed_item_whose_model_facts_fail_is_rejected_as_facts_failed(tmp_path: Path) -> None:
    paths, _ = generate(tmp_path, good=False, n=2)
    rejects = RecordTable(paths.rejects("documents")).read()
    assert rejects and all(r.meta["reason"] == "facts_failed" for r in rejects)
    assert all(r.meta["disclosures"]["facts"] == "mixed" for r in rejects)
    documents = RecordTable(paths.documents).read() if RecordTable(paths.documents).exists() else []
    for record in documents:  # only items with no fact of the model's were written
        assert {fact["source"] for fact in record.meta["disclosures"]["planned"]} == {"pack"}
        assert "model" not in record.meta["disclosures"]


def record(planned: list[dict], answers: list[dict] | None = None) -> Record:
    disclosures = {"facts": "mixed", "style": "inline", "planned": planned}
    if answers is not None:
        disclosures["model"] = answers
    return Record(
        id="r",
        text="x",
        category="health",
        doc_type="t",
        language="en",
        source="generated",
        meta={"disclosures": disclosures},
    )


def fact(source: str, found: str, category: str = "health") -> dict:
    return {"category": category, "text": "t", "source": source, "found": found}


def test_facts_are_counted_per_category_and_per_source() -> None:
    counts = FactCounts()
    counts.add(
        record(
            [fact("pack", "exact"), fact("model", "fuzzy"), fact("pack", "missing", "politic")],
            [{"category": "health", "wanted": 2}],  # the model wrote one fact of two
        )
    )
    counts.add(record([fact("model", "missing")], [{"category": "health", "wanted": 1}]))
    counted = counts.to_dict()
    assert counted["by_source"] == {
        "model": {"asked": 3, "planned": 2, "exact": 0, "fuzzy": 1, "missing": 1},
        "pack": {"asked": 2, "planned": 2, "exact": 1, "fuzzy": 0, "missing": 1},
    }
    assert counted["by_category"]["health"] == {
        "asked": 4,
        "planned": 3,
        "exact": 1,
        "fuzzy": 1,
        "missing": 1,
    }
    assert (counted["asked"], counted["planned"]) == (5, 4)


def test_a_documents_facts_come_from_one_source_or_from_both() -> None:
    both = record([fact("pack", "exact"), fact("model", "exact")])
    pack = record([fact("pack", "exact"), fact("pack", "missing")])
    none = record([])
    assert [no_fact_from_another_source(r, "pack") for r in (both, pack, none)] == [
        False,
        True,
        True,
    ]
    assert [no_fact_from_another_source(r, "model") for r in (both, pack, none)] == [
        False,
        False,
        True,
    ]


def test_the_cli_prints_the_found_share_per_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    facts, leave_out = fact_writer(good=True), writer(lambda n, fact: None if n == 1 else fact)

    def reply(request: GenerationRequest) -> str:  # the writer leaves out the first fact
        return (facts if FACT_REQUEST.search(request.prompt) else leave_out)(request)

    backend = ScriptedBackend(reply)
    monkeypatch.setattr(documents_stage, "make_backend", lambda options: backend)
    args = ["documents", "--run", str(tmp_path), "--category", "health", "--n", "6"]
    result = CliRunner().invoke(
        main, [*args, "--disclosures", "planned", "--facts", "mixed", "--seed", "4"]
    )
    assert result.exit_code == 0, result.output
    [line] = [line for line in result.output.splitlines() if "found per source" in line]
    counts = FactCounts()
    for document in RecordTable(tmp_path / "documents").read():
        counts.add(document)
    shares = []
    for source in ("model", "pack"):
        row = counts.by_source[source]
        found = row["exact"] + row["fuzzy"]
        assert found + row["missing"] == row["planned"]
        shares.append(
            f"{source} {round(100 * found / row['planned'])}% ({found} of {row['planned']})"
        )
    assert sum(row["missing"] for row in counts.by_source.values()) > 0
    assert line == f"planned facts found per source: {', '.join(shares)}"


def test_the_model_writing_its_facts_keeps_the_items_non_disclosures(tmp_path: Path) -> None:
    """The writer's prompt, rebuilt once the model wrote its facts, still asks for the item's
    passages; they are counted apart from the facts of either source."""
    paths = RunPaths(tmp_path)
    mixed = DisclosureSpec(facts="mixed", model_share=0.5, non_disclosures=2)
    spec = PlanSpec(language="en", category="health", seed=4, disclosures=mixed)
    generate_run(paths, DocumentsOptions(spec, n=8), ScriptedBackend(fact_writer(True)))
    records = RecordTable(paths.documents).read()
    with_model = [r for r in records if not no_fact_from_another_source(r, "pack")]
    passages = [
        (record, passage)
        for record in with_model
        for passage in record.meta["disclosures"].get("non_disclosures", [])
    ]
    assert with_model and passages
    assert all(f"- {passage['text']}" in record.prompt for record, passage in passages)
    plan = next(iter(json.loads(paths.manifest("documents").read_text())["plans"].values()))
    counts = plan["disclosures"]
    assert set(counts["by_source"]) == {"pack", "model"}
    assert counts["non_disclosures"]["planned"] >= len(passages)
