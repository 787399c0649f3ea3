"""Gendered words declared once per pack, and slash forms refused wherever a pack writes a
prompt or a persona value: one line naming the file, the line and the key."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from pydantic import ValidationError

from gen.cli import main
from gen.core.grammar import slash_form
from gen.core.pack_persona import PersonaConfig
from gen.core.packs import default_prompts_dir


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("è nato/a il {birth_date}", "nato/a"),
        ("Caro/a {name}", "Caro/a"),
        ("o/a", "o/a"),
        ("he/she was seen", "he/she"),
        ("Gentile Sig./Sig.ra {last_name}", "Sig./Sig.ra"),
        ("nato(a) a Lodi", "nato(a)"),
        ("alle Lehrer*innen", "Lehrer*innen"),
        ("Lehrer:in", "Lehrer:in"),
        ("né·e le", "né·e"),
        ("LehrerInnen", "LehrerInnen"),
        ("Gefahrgutbeauftragte*r", "Gefahrgutbeauftragte*r"),
        ("Podologe / Podologin", "Podologe / Podologin"),
    ],
)
def test_written_gender_alternatives_are_found(text: str, found: str) -> None:
    assert slash_form(text) == found


@pytest.mark.parametrize(
    "text",
    [
        "nata il 12/03/1980",
        "Via Roma 12/A",
        "see https://example.org/a/b",
        "{first_name}/{last_name}",
        "{first_name} / {last_name}",
        "Termin 12 / 2024",
        "Nome: Rossi, ore 14:30",
        "Dott.ssa Bianchi e Sig.ra Verdi",
        "(a) the first item",
        "McIntosh",
        "S.r.l.",
        "{{literal}} braces",
    ],
)
def test_dates_numbers_links_and_abbreviations_are_not_slash_forms(text: str) -> None:
    assert slash_form(text) is None


@pytest.fixture
def prompts(tmp_path: Path) -> Path:
    target = tmp_path / "prompts"
    shutil.copytree(default_prompts_dir(), target)
    return target


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"fixture drifted: {old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def plan_error(prompts: Path, language: str) -> str:
    result = CliRunner().invoke(
        main, ["plan", "--prompts", str(prompts), "--language", language, "--n", "2"]
    )
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


@pytest.mark.parametrize(
    ("file", "old", "new", "expected"),
    [
        (
            "it/generation.yaml",
            "è {born} il",
            "è nato/a il",
            "it/generation.yaml: line 14: instruction: slash form 'nato/a': write one form",
        ),
        (
            "it/generation.yaml",
            "usa {name} di {city}",
            "usa il/la {name} di {city}",
            "it/generation.yaml: line 20: other_instruction: slash form 'il/la'",
        ),
        (
            "en/generation.yaml",
            'response_prefix: "Sure!',
            'response_prefix: "Sure, he/she!',
            "en/generation.yaml: line 26: response_prefix: slash form 'he/she'",
        ),
        (
            "it/persona.yaml",
            "  - {female: infermiera, male: infermiere}",
            "  - infermiere/a",
            "it/persona.yaml: line 27: jobs.0.word: slash form 'infermiere/a'",
        ),
        (
            "it/persona.yaml",
            "doctor_title: {female: Dott.ssa, male: Dott.}",
            "doctor_title: Dott./Dott.ssa",
            "it/persona.yaml: line 10: doctor_title.word: slash form 'Dott./Dott.ssa'",
        ),
        (
            "it/language.yaml",
            "born: {female: nata, male: nato}",
            "born: {female: nata, male: nato/a}",
            "it/language.yaml: line 7: gendered.born.male: slash form 'nato/a'",
        ),
        (
            "it/taxonomy.yaml",
            "name: Cartella clinica\n",
            "name: Cartella clinica del/della paziente\n",
            "it/taxonomy.yaml: line 10: health.doc_types.0.name: slash form 'del/della'",
        ),
    ],
)
def test_a_slash_form_is_refused_on_load_with_file_line_and_key(
    prompts: Path, file: str, old: str, new: str, expected: str
) -> None:
    edit(prompts / file, old, new)
    assert str(prompts / expected.split(":")[0]) in plan_error(prompts, file.split("/")[0])
    assert expected in plan_error(prompts, file.split("/")[0])


def test_an_undeclared_gendered_placeholder_names_file_line_key_and_where_to_declare(
    prompts: Path,
) -> None:
    edit(prompts / "en/generation.yaml", "was born on {birth_date}", "was {born} on {birth_date}")
    line = plan_error(prompts, "en")
    assert "en/generation.yaml: line 16: instruction: unknown placeholder {born}" in line
    assert "declared under `gendered:` in language.yaml" in line


def test_a_declared_gendered_word_renders_in_the_persona_s_gender(prompts: Path) -> None:
    edit(
        prompts / "en/language.yaml",
        "gendered:\n",
        "gendered:\n  born: {female: née, male: born}\n",
    )
    edit(prompts / "en/generation.yaml", "was born on {birth_date}", "was {born} on {birth_date}")
    result = CliRunner().invoke(
        main, ["plan", "--prompts", str(prompts), "--n", "20", "--show", "20"]
    )
    assert result.exit_code == 0, result.output
    assert "was née on" in result.output and "was born on" in result.output
    assert "{born}" not in result.output


def test_a_gendered_name_may_not_shadow_a_placeholder(prompts: Path) -> None:
    edit(prompts / "it/language.yaml", "  born:", "  job:")
    assert "it/language.yaml: line 6: gendered: 'job' is already a placeholder" in plan_error(
        prompts, "it"
    )


def test_persona_lists_are_checked_on_load(prompts: Path) -> None:
    edit(prompts / "it/persona.yaml", '  - "Comune di {city}"', '  - "Comune di {town}"')
    line = plan_error(prompts, "it")
    assert "it/persona.yaml:" in line and "employers: unknown placeholder {town}" in line
    assert "{cooperative}" in line  # the pack's own lists are allowed names


def test_a_date_format_with_a_month_name_needs_twelve_of_them(prompts: Path) -> None:
    edit(prompts / "it/persona.yaml", "ottobre, novembre, dicembre]", "ottobre, novembre]")
    line = plan_error(prompts, "it")
    assert "it/persona.yaml: line 14: month_names: 11 names; expected 12" in line


def test_a_pack_without_persona_yaml_says_so(prompts: Path) -> None:
    (prompts / "it" / "persona.yaml").unlink()
    assert plan_error(prompts, "it").endswith("it/persona.yaml: file not found")


def test_a_month_name_format_without_month_names_is_refused() -> None:
    with pytest.raises(ValidationError, match=r"uses \{month_name\}: list the month_names"):
        PersonaConfig(
            gender={"female": "woman", "male": "man"},
            doctor_title="Dr.",
            birth_date_formats=("{month_name} {day}, {year}",),
        )
