"""`prompts/<lang>/facts.yaml`: the facts of planned disclosures, validated when loaded."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from gen.cli import main
from gen.core.errors import ConfigError
from gen.core.grammar import gendered_form
from gen.core.packs import default_prompts_dir, load_language_pack
from gen.core.placeholders import placeholders
from gen.generate.disclosures import fill_template

PERSONAS = {
    "female": {"name": "Anna Verdi", "first_name": "Anna", "gender": "donna", "age": "40"},
    "male": {"name": "Luca Neri", "first_name": "Luca", "gender": "uomo", "age": "40"},
}


@pytest.mark.parametrize("language", ["en", "it", "de", "es", "fr"])
def test_every_sensitive_category_has_varied_facts(language: str) -> None:
    pack = load_language_pack(language)
    facts = pack.facts.categories
    assert set(facts) == set(pack.categories.sensitive)
    for name, category in facts.items():
        assert len(category.templates) >= 22, name
        openings = {
            " ".join(gendered_form(template, "female").split()[:2])
            for template in category.templates
        }
        assert len(openings) >= 10, f"{name}: templates should not all open alike ({openings})"
        assert sum(len(options) for options in category.values.values()) >= 45, name


@pytest.mark.parametrize("language", ["en", "it", "de", "es", "fr"])
def test_every_template_fills_in_both_genders(language: str) -> None:
    facts = load_language_pack(language).facts.categories
    for category in facts.values():
        for index, template in enumerate(category.templates):
            for gender, persona in PERSONAS.items():
                persona = {**persona, "city": "Lucca", "employer": "Acme", "last_name": "X"}
                text = fill_template(category, template, persona, gender, random.Random(index))
                assert "{" not in text and "}" not in text and text == text.strip()
                assert not text[0].isupper() or text.split()[0] in {"HIV"}, text


@pytest.mark.parametrize("language", ["en", "it", "de", "es", "fr"])
def test_every_non_disclosure_is_a_whole_sentence_without_the_persona(language: str) -> None:
    """Hard negatives fill like facts, read as whole sentences and never name the persona."""
    facts = load_language_pack(language).facts.categories
    for category in facts.values():
        assert len(category.non_disclosures) >= 10
        for index, template in enumerate(category.non_disclosures):
            persona = {**PERSONAS["female"], "city": "Lucca", "employer": "Acme", "last_name": "X"}
            text = fill_template(category, template, persona, "female", random.Random(index))
            assert "{" not in text and "}" not in text and text == text.strip()
            assert text[0].isupper() or not text[0].isalpha(), text
            assert text[-1] in '.!?»”"', text
            assert persona["first_name"] not in text and persona["name"] not in text


def test_italian_facts_agree_with_the_persona_gender() -> None:
    health = load_language_pack("it").facts.categories["politic"]
    iscritta = next(
        i
        for i, t in enumerate(health.templates)
        if not isinstance(t, str) and t.female.startswith("è iscritta a {partito}")
    )
    female = fill_template(
        health, health.templates[iscritta], PERSONAS["female"], "female", random.Random(1)
    )
    male = fill_template(
        health, health.templates[iscritta], PERSONAS["male"], "male", random.Random(1)
    )
    assert female.startswith("è iscritta a ") and male.startswith("è iscritto a ")
    assert female.removeprefix("è iscritta") == male.removeprefix("è iscritto")


def test_german_facts_agree_with_the_persona_gender() -> None:
    politic = load_language_pack("de").facts.categories["politic"]
    steward = next(
        i
        for i, t in enumerate(politic.templates)
        if not isinstance(t, str) and t.female.startswith("ist Vertrauensfrau")
    )
    employer = {"employer": "Stadtwerke Erding"}
    template = politic.templates[steward]
    female = fill_template(
        politic, template, PERSONAS["female"] | employer, "female", random.Random(1)
    )
    male = fill_template(politic, template, PERSONAS["male"] | employer, "male", random.Random(1))
    assert female.startswith("ist Vertrauensfrau bei ") and male.startswith("ist Vertrauensmann")
    assert female.removeprefix("ist Vertrauensfrau") == male.removeprefix("ist Vertrauensmann")


def prompts_copy(tmp_path: Path, old: str, new: str, language: str = "en") -> Path:
    root = tmp_path / "prompts"
    shutil.copytree(default_prompts_dir(), root)
    path = root / language / "facts.yaml"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return root


def plan_error(root: Path, *args: str) -> str:
    result = CliRunner().invoke(
        main, ["plan", "--prompts", str(root), "--disclosures", "planned", *args]
    )
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    return lines[0]


def line_of(path: Path, text: str) -> int:
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(number for number, line in enumerate(lines, 1) if line == text)


def test_an_unknown_slot_is_one_line_with_file_line_and_key(tmp_path: Path) -> None:
    root = prompts_copy(
        tmp_path, "was diagnosed with {condition} at", "was diagnosed with {condtion} at"
    )
    error = plan_error(root)
    facts = root / "en" / "facts.yaml"
    templates_line = line_of(facts, "    templates:")  # health's block comes first
    assert error.startswith(f"error: {facts}: line {templates_line}: categories.health.templates:")
    assert "template 1 'was diagnosed with {condtion} at the age of {child_age}'" in error
    assert "unknown placeholder {condtion}; allowed: " in error and "{condition}" in error


def test_a_value_list_no_template_uses_is_an_error(tmp_path: Path) -> None:
    root = prompts_copy(tmp_path, "      allergen: [", "      allergens: [")
    error = plan_error(root)
    assert "categories.health.templates: " in error
    assert "unknown placeholder {allergen}" in error


def test_a_misspelt_gender_key_is_named(tmp_path: Path) -> None:
    root = prompts_copy(
        tmp_path,
        '{female: "describes herself as {ideology}", male:',
        '{female: "describes herself as {ideology}", mael:',
    )
    error = plan_error(root)
    assert "categories.politic.templates.9.forms.male: required key is missing" in error


def test_a_written_gender_alternative_is_refused(tmp_path: Path) -> None:
    """As in every pack file: the model would copy "iscritto/a" into its documents."""
    root = prompts_copy(
        tmp_path,
        "      - ha un precedente per",
        "      - è iscritto/a e ha un precedente per",
        "it",
    )
    error = plan_error(root, "--language", "it")
    assert "categories.judicial.templates.13.word: slash form 'iscritto/a'" in error


@pytest.mark.parametrize(
    ("line", "twice"),
    [
        (
            "      - has been taking {treatment} since {year}\n",
            "categories.health.templates: the template "
            "'has been taking {treatment} since {year}' is listed twice",
        ),
        (
            '      - {female: "married her long-time girlfriend in {year}", '
            'male: "married his long-time boyfriend in {year}"}\n',
            "categories.sexuality.templates: the template 'married her long-time girlfriend "
            "in {year} / married his long-time boyfriend in {year}' is listed twice",
        ),
    ],
)
def test_a_template_listed_twice_is_refused(tmp_path: Path, line: str, twice: str) -> None:
    """A repeat is drawn twice as often, and could plan one fact twice in a document."""
    assert plan_error(prompts_copy(tmp_path, line, line * 2)).endswith(twice)


def test_a_value_listed_twice_is_refused(tmp_path: Path) -> None:
    root = prompts_copy(tmp_path, "[peanuts, penicillin,", "[peanuts, peanuts, penicillin,")
    error = plan_error(root)
    assert error.endswith("categories.health.values: allergen: the value 'peanuts' is listed twice")


def test_a_value_yaml_cut_at_a_comma_is_refused(tmp_path: Path) -> None:
    """`[tree nuts (almonds, walnuts)]` is two values to YAML, each with half a bracket."""
    root = prompts_copy(
        tmp_path, "[peanuts, penicillin,", "[tree nuts (almonds, walnuts), penicillin,"
    )
    error = plan_error(root)
    assert (
        "categories.health.values: allergen: the value 'tree nuts (almonds' has a bracket" in error
    )
    assert "write the value in quotes" in error


def test_a_missing_category_and_a_non_sensitive_one_are_refused(tmp_path: Path) -> None:
    root = prompts_copy(tmp_path, "  ethnic:\n    topic:", "  other:\n    topic:")
    error = plan_error(root)
    assert "categories: 'other' is no sensitive category of categories.yaml" in error


def test_same_words_must_be_single_words_in_one_group(tmp_path: Path) -> None:
    root = prompts_copy(tmp_path, "- [was, were]", "- [was, were, has]")
    assert "finder.same_words: 'has' is in groups 6 and 7" in plan_error(root)


def test_finder_word_lists_are_single_words(tmp_path: Path) -> None:
    root = prompts_copy(tmp_path, "whom, whose, that,", "whom, whose, so that,")
    lines = (root / "en" / "facts.yaml").read_text(encoding="utf-8").splitlines()
    line = next(n for n, text in enumerate(lines, 1) if text.startswith("  clause_words:"))
    error = plan_error(root)
    assert f"line {line}: finder.clause_words: 'so that' is not one word" in error


@pytest.mark.parametrize(
    ("key", "old", "new", "word"),
    [
        ("joins", "  joins: [and]", "  joins: [and, plus]", "plus"),
        ("auxiliaries", "  auxiliaries: [is,", "  auxiliaries: [gets, is,", "gets"),
        ("possessives", "  possessives: [his,", "  possessives: [yours, his,", "yours"),
    ],
)
def test_joins_auxiliaries_and_possessives_must_be_function_words(
    tmp_path: Path, key: str, old: str, new: str, word: str
) -> None:
    """A word of these lists that were a content word would have to be found."""
    error = plan_error(prompts_copy(tmp_path, old, new))
    assert f"finder: {key}: {word!r} is not in function_words" in error


def test_without_planned_disclosures_facts_yaml_is_not_needed(tmp_path: Path) -> None:
    root = tmp_path / "prompts"
    shutil.copytree(default_prompts_dir(), root)
    (root / "en" / "facts.yaml").unlink()
    result = CliRunner().invoke(main, ["plan", "--prompts", str(root), "--n", "3"])
    assert result.exit_code == 0, result.output
    assert "facts.yaml: file not found" in plan_error(root)
    with pytest.raises(ConfigError, match=r"facts\.yaml: file not found"):
        load_language_pack("en", root).facts  # noqa: B018


def test_templates_use_only_known_slots() -> None:
    """The slots the loader allows are what `fill_template` fills: persona, values, year."""
    for language in ("en", "it", "de", "es", "fr"):
        for category in load_language_pack(language).facts.categories.values():
            used = {
                name
                for t in category.templates
                for name in placeholders(gendered_form(t, "female"))
            }
            assert set(category.values) <= used


def test_packs_check_loads_facts_yaml(tmp_path: Path) -> None:
    root = prompts_copy(tmp_path, "      allergen: [", "      allergens: [")
    result = CliRunner().invoke(main, ["packs", "check", "--prompts", str(root), "--personas", "2"])
    assert result.exit_code == 2
    [line] = [line for line in result.output.splitlines() if "facts.yaml" in line]
    assert line.startswith(f"{root}/en/facts.yaml: line ") and "{allergen}" in line
    assert "it: ok (10 files" in result.output
