"""Planned disclosures in the plan: drawn from (seed, item) only, in the writer's prompt,
and shown by `gen plan`; without them the plan is what it always was."""

from __future__ import annotations

import dataclasses
from collections import Counter
from functools import partial
from itertools import islice

import pytest
from click.testing import CliRunner

from gen.cli import main
from gen.core.errors import UsageError
from gen.core.packs import load_language_pack
from gen.generate.disclosures import DisclosureSpec, asked_of_model
from gen.generate.options import DocumentsOptions
from gen.generate.plan import iter_plan, plan_item, with_written_facts
from gen.generate.plan_spec import PlanSpec

PLANNED = DisclosureSpec()


@pytest.fixture(scope="module")
def pack():
    return load_language_pack("en")


def spec(**disclosures: object) -> PlanSpec:
    return PlanSpec(language="en", seed=5, disclosures=DisclosureSpec(**disclosures))


def test_the_same_seed_plans_the_same_facts(pack) -> None:
    first = list(islice(iter_plan(pack, spec()), 21))
    again = [plan_item(pack, spec(), index) for index in range(21)]
    assert first == again
    assert all(item.disclosures for item in first if item.category != "other")
    other_seed = plan_item(pack, dataclasses.replace(spec(), seed=6), 0)
    assert other_seed.disclosures != first[0].disclosures


def test_disclosures_leave_the_rest_of_the_item_and_the_ids_of_plain_plans(pack) -> None:
    plain = PlanSpec(language="en", seed=5)
    for index in range(14):
        before, planned = plan_item(pack, plain, index), plan_item(pack, spec(), index)
        assert (before.category, before.doc_type, before.persona, before.seed) == (
            planned.category,
            planned.doc_type,
            planned.persona,
            planned.seed,
        )
        assert not before.disclosures and "these facts" not in before.parts.instruction
        assert planned.parts.instruction.startswith(before.parts.instruction)
    assert plain.key == "en-all-all-s5"
    keys = {spec().key, spec(facts="model").key, spec(style="placeholder").key}
    keys |= {spec(per_document=3).key, spec(second_share=0.5).key}
    assert len(keys) == 5 and all(key.startswith("en-all-all-s5-planned-") for key in keys)
    assert spec().key == "en-all-all-s5-planned-pack-inline-f2-x30"


def test_own_category_first_then_maybe_a_second_one(pack) -> None:
    items = [plan_item(pack, spec(per_document=3), index) for index in range(350)]
    counts = Counter()
    for item in items:
        if item.category == "other":
            assert item.disclosures == ()
            continue
        own = [d for d in item.disclosures if d.category == item.category]
        assert item.disclosures[: len(own)] == tuple(own) and 1 <= len(own) <= 3
        assert len({d.text for d in own}) == len(own), "one template at most once per item"
        rest = item.disclosures[len(own) :]
        assert len(rest) <= 1 and all(d.category != item.category for d in rest)
        counts[len(own)] += 1
        counts["second"] += len(rest)
    assert set(counts) == {1, 2, 3, "second"}
    assert 0.2 < counts["second"] / 300 < 0.4  # --second-category-share 0.3
    never = [plan_item(pack, spec(second_share=0.0), i) for i in range(70)]
    always = [plan_item(pack, spec(second_share=1.0), i) for i in range(70)]
    assert all(len({d.category for d in item.disclosures}) <= 1 for item in never)
    assert all(len({d.category for d in i.disclosures}) == 2 for i in always if i.disclosures)


def test_the_writer_is_told_the_facts_or_their_placeholders(pack) -> None:
    item = plan_item(pack, spec(), 0)
    name = item.persona["name"]
    for fact in item.disclosures:
        assert f"\n- {name} {fact.text}" in item.parts.instruction
    held = plan_item(pack, spec(style="placeholder"), 0)
    assert held.disclosures == item.disclosures
    assert f"- [[FACT_1]] stands for: {name} {item.disclosures[0].text}" in held.parts.instruction
    assert "write each placeholder below exactly as it is" in held.parts.instruction


def test_model_facts_enter_the_prompt_once_written(pack) -> None:
    model = spec(facts="model", per_document=3, second_share=1.0)
    item = plan_item(pack, model, 0)
    assert item.disclosures and all(d.text == "" and d.source == "model" for d in item.disclosures)
    assert "must include these facts" not in item.parts.instruction
    own, second = item.disclosures[0].category, item.disclosures[-1].category
    written = with_written_facts(
        pack, model, item, {own: ["keeps a diary of seizures"], second: ["votes Green"]}
    )
    assert [(d.category, d.text) for d in written.disclosures] == [
        (own, "keeps a diary of seizures"),
        (second, "votes Green"),
    ]
    assert f"- {item.persona['name']} votes Green" in written.parts.instruction


def test_plan_shows_the_planned_facts() -> None:
    result = CliRunner().invoke(
        main,
        ["plan", "--category", "health", "--n", "2", "--show", "1", "--disclosures", "planned"],
    )
    assert result.exit_code == 0, result.output
    assert "planned fact 1 [health]: " in result.output
    assert "plan en-health-all-s0-planned-pack-inline-f2-x30: 2 documents" in result.output
    assert "planned disclosures: facts from the pack, inline style" in result.output
    model = CliRunner().invoke(
        main, ["plan", "--n", "1", "--show", "1", "--disclosures", "planned", "--facts", "model"]
    )
    assert "planned fact 1 [health]: written by the model in a first request" in model.output


def test_disclosure_options_need_planned_disclosures() -> None:
    result = CliRunner().invoke(main, ["plan", "--facts", "model"])
    assert result.exit_code == 2
    assert result.output.strip() == "error: --facts needs --disclosures planned"
    with pytest.raises(UsageError, match="--require-disclosures needs --disclosures planned"):
        DocumentsOptions(PlanSpec(language="en"), n=1, require_disclosures=True)
    with pytest.raises(UsageError, match="placeholder and --inline-labels cannot be combined"):
        DocumentsOptions(spec(style="placeholder"), n=1, inline_labels=True)


@pytest.mark.parametrize(
    ("flag", "share", "facts"),
    [
        ("--second-category-share", "0.004", []),
        ("--second-category-share", "0.125", []),
        ("--second-category-share", "0.999", []),
        ("--model-fact-share", "0.004", ["--facts", "mixed"]),
        ("--model-fact-share", "0.555", ["--facts", "mixed"]),
    ],
)
def test_a_share_that_is_no_whole_percent_is_refused(
    flag: str, share: str, facts: list[str]
) -> None:
    """0.004 would silently plan 0%: the plan draws in whole percent, so another share is
    refused instead of rounded to another plan."""
    args = ["plan", "--n", "1", "--disclosures", "planned", *facts, flag]
    result = CliRunner().invoke(main, [*args, share])
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines() == [
        f"error: {flag} {share}: the plan draws in whole percent "
        f"(0.00 to 1.00, e.g. 0.3); {share} is none"
    ]
    assert CliRunner().invoke(main, [*args, "0.07"]).exit_code == 0
    with pytest.raises(UsageError, match="whole percent"):
        DisclosureSpec(facts="mixed", second_share=0.3, model_share=float(share))
    assert DisclosureSpec(second_share=0.07).key.endswith("-x7")
    assert DisclosureSpec(facts="mixed", model_share=0.07).key.startswith("planned-mixed7-")


NEEDS_MIXED = "--model-fact-share needs --facts mixed"


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["--disclosures", "planned"], NEEDS_MIXED),
        (
            ["--disclosures", "planned", "--facts", "model"],
            "--model-fact-share needs --facts mixed",
        ),
        ([], "--model-fact-share needs --disclosures planned"),
    ],
)
def test_a_model_fact_share_needs_mixed_facts(args: list[str], error: str) -> None:
    result = CliRunner().invoke(main, ["plan", "--n", "1", *args, "--model-fact-share", "0.5"])
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines() == [f"error: {error}"]


def mixed(share: float) -> PlanSpec:
    return spec(facts="mixed", model_share=share)


def test_mixed_facts_plan_the_same_categories_and_the_packs_texts(pack) -> None:
    """Each fact draws its source after the pack's texts: share 0 plans what `pack` does,
    share 1 what `model` does, and in between a fact the pack keeps is the `pack` run's."""
    indexes = range(70)
    packed = [plan_item(pack, spec(), index) for index in indexes]
    model = [plan_item(pack, spec(facts="model"), index) for index in indexes]
    assert [i.disclosures for i in map(partial(plan_item, pack, mixed(0.0)), indexes)] == [
        item.disclosures for item in packed
    ]
    assert [i.disclosures for i in map(partial(plan_item, pack, mixed(1.0)), indexes)] == [
        item.disclosures for item in model
    ]
    half = [plan_item(pack, mixed(0.5), index) for index in indexes]
    assert half == [plan_item(pack, mixed(0.5), index) for index in indexes]
    sources = Counter()
    for item, alone in zip(half, packed, strict=True):
        assert (item.id[-6:], item.persona, item.doc_type, item.seed) == (
            alone.id[-6:],
            alone.persona,
            alone.doc_type,
            alone.seed,
        )
        assert [d.category for d in item.disclosures] == [d.category for d in alone.disclosures]
        for fact, planned in zip(item.disclosures, alone.disclosures, strict=True):
            sources[fact.source] += 1
            assert fact == planned if fact.source == "pack" else fact.text == ""
        if item.disclosures and all(d.source == "pack" for d in item.disclosures):
            assert item.parts == alone.parts  # the writer's prompt is complete already
        elif item.disclosures:
            assert "must include these facts" not in item.parts.instruction
    assert 0.35 < sources["model"] / sum(sources.values()) < 0.65
    keys = {spec().key, mixed(0.0).key, mixed(0.5).key, mixed(1.0).key, spec(facts="model").key}
    assert len(keys) == 5 and mixed(0.5).key == "en-all-all-s5-planned-mixed50-inline-f2-x30"


def test_the_model_writes_only_its_own_facts_of_a_mixed_item(pack) -> None:
    spec_ = mixed(0.5)
    items = (plan_item(pack, spec_, index) for index in range(70))
    item = next(i for i in items if {d.source for d in i.disclosures} == {"pack", "model"})
    asked = asked_of_model(item.disclosures)
    assert sum(asked.values()) == sum(d.source == "model" for d in item.disclosures)
    written = with_written_facts(
        pack, spec_, item, {category: ["keeps a diary"] * n for category, n in asked.items()}
    )
    assert [d.source for d in written.disclosures] == [d.source for d in item.disclosures]
    for before, after in zip(item.disclosures, written.disclosures, strict=True):
        assert after.text == (before.text if before.source == "pack" else "keeps a diary")
        assert f"- {item.persona['name']} {after.text}\n" in written.parts.instruction + "\n"
    unwritten = with_written_facts(pack, spec_, item, {})
    assert unwritten.disclosures == tuple(d for d in item.disclosures if d.source == "pack")


def test_plan_shows_a_mixed_plan() -> None:
    args = ["plan", "--n", "14", "--show", "14", "--disclosures", "planned", "--facts", "mixed"]
    result = CliRunner().invoke(main, [*args, "--model-fact-share", "0.4"])
    assert result.exit_code == 0, result.output
    assert "plan en-all-all-s0-planned-mixed40-inline-f2-x30: 14 documents" in result.output
    assert "facts from the model (40%) and the pack, inline style" in result.output
    assert "written by the model in a first request" in result.output


def test_italian_plans_gendered_facts() -> None:
    pack = load_language_pack("it")
    planned = PlanSpec(language="it", category="politic", disclosures=PLANNED)
    items = [plan_item(pack, planned, index) for index in range(60)]
    joined = {item.persona["gender"]: [] for item in items}  # the pack's word: donna, uomo
    for item in items:
        joined[item.persona["gender"]] += [d.text for d in item.disclosures]
    female, male = " ".join(joined["donna"]), " ".join(joined["uomo"])
    assert "iscritta" in female and "iscritto" not in female
    assert "iscritto" in male and "iscritta" not in male
