"""Non-disclosures (`--non-disclosures`): passages on a sensitive topic that disclose
nothing, planned from their own random stream, asked of the writer, found like facts and
kept as negatives in the record's meta, never as spans."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from fakes import ScriptedBackend
from planned_fakes import passage_writer

from gen.cli import main
from gen.core.errors import UsageError
from gen.core.packs import load_language_pack, prompts_root
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from gen.generate.disclosures import DisclosureSpec
from gen.generate.options import DocumentsOptions
from gen.generate.plan import plan_item
from gen.generate.plan_spec import PlanSpec, validate_spec
from gen.generate.run import run as generate_run


def spec(**disclosures: object) -> PlanSpec:
    return PlanSpec(language="en", seed=5, disclosures=DisclosureSpec(**disclosures))


@pytest.fixture(scope="module")
def pack():
    return load_language_pack("en")


def test_non_disclosures_leave_the_facts_of_the_plan_as_they_were(pack) -> None:
    plain, negatives = spec(), spec(non_disclosures=2)
    assert negatives.key == plain.key + "-n2"
    drawn = 0
    for index in range(21):
        before, after = plan_item(pack, plain, index), plan_item(pack, negatives, index)
        assert (before.disclosures, before.persona, before.seed, before.category) == (
            after.disclosures,
            after.persona,
            after.seed,
            after.category,
        )
        assert not before.non_disclosures and len(after.non_disclosures) <= 2
        assert after == plan_item(pack, negatives, index)
        texts = [passage.text for passage in after.non_disclosures]
        assert len(set(texts)) == len(texts)
        for passage in after.non_disclosures:
            assert f"- {passage.text}" in after.parts.instruction
            assert after.category == "other" or passage.category == after.category
        drawn += len(texts)
    assert drawn > 10
    assert any(plan_item(pack, negatives, i).non_disclosures for i in range(6, 42, 7))


def test_placeholder_style_and_a_pack_without_passages_are_refused(pack, tmp_path) -> None:
    with pytest.raises(UsageError, match="--non-disclosures needs --fact-style inline"):
        DisclosureSpec(style="placeholder", non_disclosures=1)
    root = tmp_path / "prompts"
    shutil.copytree(prompts_root(None), root)
    facts = root / "en" / "facts.yaml"
    text = facts.read_text(encoding="utf-8")
    start = text.index("  non_disclosure_instruction:")
    end = text.index("  non_disclosure_line:")
    facts.write_text(text[:start] + text[end:], encoding="utf-8")
    with pytest.raises(UsageError, match=r"has no writer\.non_disclosure_instruction"):
        validate_spec(load_language_pack("en", root), spec(non_disclosures=1))
    validate_spec(load_language_pack("en", root), spec())  # without the option: fine


def generate(tmp_path: Path, leave_out: int | None) -> tuple[RunPaths, list]:
    paths = RunPaths(tmp_path)
    options = DocumentsOptions(spec(non_disclosures=2), n=7)
    generate_run(paths, options, ScriptedBackend(passage_writer(leave_out)))
    return paths, RecordTable(paths.documents).read()


def test_found_passages_are_negatives_in_the_meta_never_spans(tmp_path: Path) -> None:
    paths, records = generate(tmp_path, leave_out=None)
    found = 0
    for record in records:
        passages = record.meta.get("disclosures", {}).get("non_disclosures", [])
        for passage in passages:
            assert passage["found"] == "exact"
            assert record.text[passage["start"] : passage["end"]] == passage["text"].rstrip(".")
            assert not any(
                s.start < passage["end"] and passage["start"] < s.end for s in record.spans
            )
        found += len(passages)
        assert "disclosure_missing" not in record.flags
    assert found > 3
    [plan] = json.loads(paths.manifest("documents").read_text())["plans"].values()
    counts = plan["disclosures"]["non_disclosures"]
    assert counts == {"planned": found, "exact": found, "fuzzy": 0, "missing": 0}


def test_a_passage_left_out_is_counted_not_flagged(tmp_path: Path) -> None:
    _, records = generate(tmp_path, leave_out=1)
    outcomes = [
        passage["found"]
        for record in records
        for passage in record.meta.get("disclosures", {}).get("non_disclosures", [])
    ]
    assert "missing" in outcomes
    assert not any("disclosure_missing" in record.flags for record in records)


def test_the_cli_needs_planned_disclosures_and_shows_the_passages() -> None:
    refused = CliRunner().invoke(main, ["plan", "--non-disclosures", "1"])
    assert refused.exit_code == 2
    assert refused.output.strip() == "error: --non-disclosures needs --disclosures planned"
    args = ["plan", "--n", "6", "--show", "6", "--disclosures", "planned"]
    shown = CliRunner().invoke(main, [*args, "--non-disclosures", "3"])
    assert shown.exit_code == 0, shown.output
    assert "non-disclosure 1 [" in shown.output and "0-3 non-disclosures each" in shown.output


def test_every_pack_plans_them(tmp_path: Path) -> None:
    for language in ("en", "it", "de", "es", "fr"):
        pack = load_language_pack(language)
        planned = dataclasses.replace(spec(non_disclosures=3), language=language)
        validate_spec(pack, planned)
        items = [plan_item(pack, planned, index) for index in range(14)]
        assert sum(len(item.non_disclosures) for item in items) > 7
