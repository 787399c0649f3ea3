import re
from collections import Counter
from itertools import islice

import pytest
from click.testing import CliRunner

import gen.generate.plan as plan_module
from gen.cli import main
from gen.core.errors import UsageError
from gen.core.packs import load_language_pack
from gen.generate.plan import iter_plan, plan_item
from gen.generate.plan_spec import PlanSpec


@pytest.fixture(scope="module")
def pack():
    return load_language_pack("en")


def test_same_spec_gives_the_same_items(pack) -> None:
    spec = PlanSpec(language="en", category="all", seed=7)
    first = list(islice(iter_plan(pack, spec), 20))
    again = list(islice(iter_plan(pack, spec), 20))
    assert first == again


def test_an_item_depends_only_on_seed_and_index(pack) -> None:
    spec = PlanSpec(language="en", category="health", seed=3)
    assert plan_item(pack, spec, 12) == list(islice(iter_plan(pack, spec), 13))[12]


def test_items_differ_and_seeds_change_them(pack) -> None:
    spec = PlanSpec(language="en", category="health", seed=1)
    items = list(islice(iter_plan(pack, spec), 30))
    assert len({item.id for item in items}) == 30
    assert len({item.persona["name"] for item in items}) >= 25
    assert len({item.seed for item in items}) == 30
    other = plan_item(pack, PlanSpec(language="en", category="health", seed=2), 0)
    assert other.persona != items[0].persona


def test_all_spreads_over_categories_with_negatives(pack) -> None:
    items = list(islice(iter_plan(pack, PlanSpec(language="en")), 70))
    counts = Counter(item.category for item in items)
    assert set(counts) == set(pack.categories.categories)
    assert set(counts.values()) == {10}
    negatives = [item for item in items if item.category == "other"]
    assert all(item.sensitive_info == "" for item in negatives)


def test_prompt_carries_the_persona_and_document_type(pack) -> None:
    item = plan_item(pack, PlanSpec(language="en", category="judicial"), 0)
    assert item.persona["name"] in item.parts.instruction
    assert f"'{item.doc_type}'" in item.parts.instruction
    assert item.sensitive_info in item.parts.instruction
    assert item.parts.response_prefix.startswith("Sure!")


@pytest.mark.parametrize("language", ["en", "it", "de", "es", "fr"])
def test_the_prompt_asks_for_the_type_s_length_and_layout(language: str) -> None:
    pack = load_language_pack(language)
    for category in pack.categories.categories:
        for index in range(3):
            item = plan_item(pack, PlanSpec(language=language, category=category), index)
            (doc_type,) = [t for t in pack.doc_types(category) if t.name == item.doc_type]
            assert item.words == doc_type.words
            assert f" {doc_type.words} " in item.parts.instruction
            assert doc_type.layout in item.parts.instruction
            assert "{" not in item.parts.instruction


def test_doc_type_filter_and_unknown_type(pack) -> None:
    spec = PlanSpec(language="en", category="all", doc_type="email")
    items = list(islice(iter_plan(pack, spec), 12))
    assert {item.doc_type for item in items} == {"Email"}
    assert "other" not in {item.category for item in items}
    with pytest.raises(UsageError, match="unknown document type 'Horoscope'"):
        next(iter_plan(pack, PlanSpec(language="en", category="health", doc_type="Horoscope")))


def test_italian_plan_uses_italian_persona_and_prompt() -> None:
    pack = load_language_pack("it")
    genders = Counter()
    for index in range(20):
        item = plan_item(pack, PlanSpec(language="it", category="health"), index)
        assert "Genera un documento" in item.parts.instruction
        gender = item.persona["gender"]
        genders[gender] += 1
        born = {"donna": "nata", "uomo": "nato"}[gender]
        assert f"è {born} il {item.persona['birth_date']}," in item.parts.instruction
        assert f"lavora come {item.persona['job']} (datore di lavoro:" in item.parts.instruction
    assert set(genders) == {"donna", "uomo"}


def _printed_counts(output: str, *, shapes: bool = False) -> tuple[Counter, Counter]:
    """(documents per category, per (category, document type)) from `gen plan`'s table; with
    `shapes`, per (category, document type, shape): a row `type / shape`, or `type` alone for
    a narrative."""
    by_category: Counter = Counter()
    by_type: Counter = Counter()
    category = None
    lines = output.splitlines()
    header = next(number for number, line in enumerate(lines) if line.startswith("plan "))
    for line in lines[header + 1 :]:
        name, count = line.strip().rsplit(maxsplit=1)
        if not count.lstrip("~").isdigit() or line.startswith(("note:", "  shapes:")):
            continue
        if line.startswith("      "):
            doc_type, _, shape = name.partition(" / ")
            key = (category, doc_type, shape or "narrative") if shapes else (category, name)
            by_type[key] = int(count.lstrip("~"))
        elif line.startswith("  "):
            category = name
            by_category[name] = int(count)
    return by_category, by_type


def test_a_small_plan_prints_the_counts_of_its_items(pack) -> None:
    result = CliRunner().invoke(main, ["plan", "--n", "70", "--show", "0", "--seed", "4"])
    assert result.exit_code == 0, result.output
    items = list(islice(iter_plan(pack, PlanSpec(language="en", seed=4)), 70))
    by_category, by_type = _printed_counts(result.output)
    assert by_category == Counter(item.category for item in items)
    assert by_type == Counter((item.category, item.doc_type) for item in items)
    assert "~" not in result.output


def test_counting_a_huge_plan_builds_no_item(monkeypatch) -> None:
    """Ten million items are counted from the formula (category i % len(categories)):
    no persona is drawn and no document type, so time and memory stay flat."""
    drawn = Counter()

    def counting(name, function):
        def wrapper(*args, **kwargs):
            drawn[name] += 1
            assert drawn[name] <= 1000, f"{name} called for every item"
            return function(*args, **kwargs)

        monkeypatch.setattr(f"gen.generate.plan.{name}", wrapper)

    counting("draw_persona", plan_module.draw_persona)
    counting("derive_seed", plan_module.derive_seed)
    result = CliRunner().invoke(main, ["plan", "--n", "10000000", "--show", "1"])
    assert result.exit_code == 0, result.output
    assert drawn == {"draw_persona": 1, "derive_seed": 1}
    by_category, by_type = _printed_counts(result.output)
    assert sum(by_category.values()) == 10_000_000
    assert set(by_category.values()) == {1_428_572, 1_428_571}  # 10M over 7 categories
    for category, total in by_category.items():
        types = [count for (cat, _), count in by_type.items() if cat == category]
        assert abs(sum(types) - total) <= len(types), category
    assert "expected" in result.output


_ITEM = re.compile(r"^--- \S+  \[(\w+) / (.+) / (\w+)\]  seed=", re.MULTILINE)


@pytest.mark.parametrize(
    "args",
    [
        ["--doc-type", "Medical records", "--topic-share", "1"],
        ["--disclosures", "planned", "--layout-share", "0.5", "--topic-share", "0.3"],
        ["--category", "health", "--disclosures", "planned", "--layout-share", "1"],
    ],
)
def test_the_table_counts_the_items_as_they_are_shown(args: list[str]) -> None:
    """A topic-only item counts under its own type, a layout item as a layout: the table
    says what the items say (before: topic items counted under the type asked)."""
    result = CliRunner().invoke(main, ["plan", "--n", "40", "--show", "40", *args])
    assert result.exit_code == 0, result.output
    shown = Counter(_ITEM.findall(result.output))
    assert sum(shown.values()) == 40
    by_category, by_type = _printed_counts(result.output, shapes=True)
    assert by_type == shown
    assert by_category == Counter(category for category, _, _ in shown.elements())
    shapes = Counter(shape for _, _, shape in shown.elements())
    listed = ", ".join(f"{shape} {count}" for shape, count in sorted(shapes.items()))
    assert f"  shapes: {listed}\n" in result.output


def test_a_huge_plan_expects_its_shapes() -> None:
    """Beyond the exact counts, topic items are expected under the topics' types."""
    args = ["plan", "--n", "1000000", "--show", "0", "--category", "health", "--topic-share", "0.5"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    by_category, by_type = _printed_counts(result.output, shapes=True)
    topics = sum(count for (_, _, shape), count in by_type.items() if shape == "topic")
    assert by_category == {"health": 1_000_000}
    assert abs(topics - 500_000) <= len(by_type) and "~" in result.output


@pytest.mark.parametrize(
    ("args", "note"),
    [
        (
            ["--doc-type", "Medical records", "--topic-share", "0.5"],
            "note: --doc-type does not apply to topic-only documents (--topic-share)",
        ),
        (
            ["--category", "other", "--topic-share", "0.5"],
            "note: --topic-share does not apply to category other",
        ),
        (
            ["--doc-type", "Psychiatric report", "--disclosures", "planned", "--layout-share", "1"],
            "note: --layout-share does not apply to Psychiatric report",
        ),
    ],
)
def test_an_option_without_effect_is_noted_in_one_line(args: list[str], note: str) -> None:
    result = CliRunner().invoke(main, ["plan", "--n", "4", "--show", "0", *args])
    assert result.exit_code == 0, result.output
    notes = [line for line in result.output.splitlines() if line.startswith("note:")]
    assert len(notes) == 1 and notes[0].startswith(note), result.output


def test_options_with_effect_are_not_noted() -> None:
    args = ["--disclosures", "planned", "--layout-share", "0.5", "--topic-share", "0.3"]
    result = CliRunner().invoke(main, ["plan", "--n", "4", "--show", "0", *args])
    assert result.exit_code == 0 and "note:" not in result.output, result.output


def test_gen_documents_notes_them_before_any_work(tmp_path) -> None:
    args = ["--category", "other", "--topic-share", "0.5", "--model", str(tmp_path / "no.gguf")]
    result = CliRunner().invoke(main, ["documents", "--run", str(tmp_path / "run"), *args])
    assert result.output.startswith("note: --topic-share does not apply to category other")
