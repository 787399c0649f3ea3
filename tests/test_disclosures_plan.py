"""Planned disclosures in the plan: drawn from (seed, item) only, in the writer's prompt,
and shown by `gen plan`; without them the plan is what it always was."""

from __future__ import annotations

import dataclasses
from collections import Counter
from itertools import islice

import pytest
from click.testing import CliRunner

from gen.cli import main
from gen.core.errors import UsageError
from gen.core.packs import load_language_pack
from gen.generate.disclosures import DisclosureSpec
from gen.generate.options import DocumentsOptions
from gen.generate.plan import PlanSpec, iter_plan, plan_item, with_written_facts

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


@pytest.mark.parametrize("share", ["0.004", "0.125", "0.999"])
def test_a_second_category_share_that_is_no_whole_percent_is_refused(share: str) -> None:
    """0.004 would silently plan 0%: the plan draws in whole percent, so another share is
    refused instead of rounded to another plan."""
    args = ["plan", "--n", "1", "--disclosures", "planned", "--second-category-share", share]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines() == [
        f"error: --second-category-share {share}: the plan draws in whole percent "
        f"(0.00 to 1.00, e.g. 0.3); {share} is none"
    ]
    with pytest.raises(UsageError, match="whole percent"):
        DisclosureSpec(second_share=float(share))
    assert DisclosureSpec(second_share=0.07).key.endswith("-x7")
    assert CliRunner().invoke(main, [*args[:-1], "0.07"]).exit_code == 0


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
