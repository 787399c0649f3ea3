"""`gen packs check`: every file of every pack loaded, every template rendered for a sample
of personas, one line per problem and exit status 2."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from gen.cli import main
from gen.core.packs import default_prompts_dir, pack_codes
from gen.packs.check import check_packs
from gen.packs.english import english_in, native_words


def packs_check(*args: str):
    return CliRunner().invoke(main, ["packs", "check", *args])


def test_every_shipped_pack_passes_with_a_thousand_personas() -> None:
    reports = check_packs(None, None, 1000)
    assert [report.code for report in reports] == pack_codes(default_prompts_dir())
    assert {"en", "it", "de", "es", "fr"} <= {report.code for report in reports}
    for report in reports:
        assert report.problems == [], report.problems
        assert report.personas == 1000 and report.prompts == 1000
        names = {Path(file).name for file in report.files}
        assert {"language.yaml", "persona.yaml", "taxonomy.yaml", "generation.yaml"} <= names
        assert {
            "labeling.yaml",
            "facts.yaml",
            "quality.yaml",
            f"{report.code}.yaml",
        } <= names  # + queries, wikipedia


def test_the_command_says_ok_per_pack() -> None:
    result = packs_check("--personas", "20")
    assert result.exit_code == 0, result.output
    assert "en: ok (10 files, 20 personas, 20 prompts rendered)" in result.output
    assert "it: ok" in result.output


@pytest.fixture
def prompts(tmp_path: Path) -> Path:
    """A copy of the prompts whose German pack is made anew from the Italian one in Faker's
    de_CH, without its own jobs: de_CH has no job titles, and Faker falls back to English ones."""
    target = tmp_path / "prompts"
    shutil.copytree(default_prompts_dir(), target)
    shutil.rmtree(target / "de")
    (target / "queries" / "de.yaml").unlink()
    (target / "wikipedia" / "de.yaml").unlink()
    shutil.copytree(target / "it", target / "de")
    language = target / "de" / "language.yaml"
    language.write_text(language.read_text().replace("it_IT", "de_CH"))
    persona = target / "de" / "persona.yaml"
    text = persona.read_text()
    persona.write_text(text[: text.index("# Professioni")])
    return target


def test_a_new_pack_gets_one_line_per_problem_and_exit_2(prompts: Path) -> None:
    result = packs_check("--prompts", str(prompts), "--language", "de", "--personas", "100")
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert f"{prompts}/queries/de.yaml: no query templates for locale 'de_CH'" in lines
    assert f"{prompts}/wikipedia/de.yaml: no Wikipedia configuration for language 'de'" in lines
    jobs = [line for line in lines if line.startswith(f"{prompts}/de/persona.yaml: job:")]
    assert len(jobs) == 2, lines  # one line per kind, however many personas
    assert any("English words from Faker's English fallback" in line for line in jobs)
    assert any("slash forms in" in line for line in jobs)  # "Designer, fashion/clothing"
    assert not any("name:" in line or "doctor:" in line for line in lines)  # names are names
    assert lines[-1] == "error: 4 problems in de"
    assert "Traceback" not in result.output


def test_a_broken_file_is_one_line_and_the_other_packs_still_pass(prompts: Path) -> None:
    shutil.rmtree(prompts / "de")
    labeling = prompts / "it" / "labeling.yaml"
    labeling.write_text(labeling.read_text() + "\nunknown_block: 1\n")
    result = packs_check("--prompts", str(prompts), "--personas", "10")
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert any(line.startswith(f"{prompts}/it/labeling.yaml:") for line in lines), lines
    assert "en: ok (10 files, 10 personas, 10 prompts rendered)" in lines
    assert lines[-1] == "error: 1 problem in it"


def test_every_problem_of_a_file_is_a_line_of_its_own_and_counted(prompts: Path) -> None:
    """An empty value list and an unknown key in facts.yaml: two lines, two problems (and no
    third about the templates that use the empty list's slot)."""
    facts = prompts / "en" / "facts.yaml"
    text = re.sub(r"      party: \[[^\]]*\]", "      party: []", facts.read_text(), count=1)
    text = text.replace("  max_words: 30\n", "  max_words: 30\n  bogus_key: 1\n", 1)
    facts.write_text(text)
    rows = text.splitlines()
    bogus = rows.index("  bogus_key: 1") + 1
    values = rows.index("      party: []")
    result = packs_check("--prompts", str(prompts), "--language", "en", "--personas", "5")
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert lines == [
        f"{facts}: line {bogus}: model.bogus_key: unknown key",
        f"{facts}: line {values}: categories.politic.values: party: the value list is empty",
        "error: 2 problems in en",
    ]


def test_an_unknown_pack_is_a_usage_error() -> None:
    result = packs_check("--language", "xx")
    assert result.exit_code == 2
    assert "no prompts for language 'xx'" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_english_words_spare_the_words_of_the_locale_s_own_faker_data() -> None:
    assert english_in("Bocca Group") == ["group"]
    assert english_in("Teacher, early years/pre") == ["early", "pre", "teacher", "years"]
    assert english_in("Retail merchandiser", native_words("de_CH")) == ["merchandiser", "retail"]
    assert english_in("Land- und Baumaschinentechnik", native_words("de_AT")) == []  # Land
    assert english_in("Torre di Fine", native_words("it_IT")) == []  # a town
    assert english_in("Music therapist", native_words("it_IT")) == ["music", "therapist"]


def test_shapes_problems_are_one_line_each(prompts: Path) -> None:
    """A skeleton with an unknown slot, and a category left without topics."""
    shapes = prompts / "en" / "shapes.yaml"
    text = shapes.read_text().replace("        Usual GP: {doctor}\n", "        GP: {surgery}\n", 1)
    shapes.write_text(text)
    result = packs_check("--prompts", str(prompts), "--language", "en", "--personas", "5")
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 2 and lines[-1] == "error: 1 problem in en", lines
    assert lines[0].startswith(f"{shapes}: line ")
    assert "layouts.Medical records.0:" in lines[0] and "unknown slot {surgery}" in lines[0]
    shapes.write_text(
        text.replace("GP: {surgery}", "GP: {doctor}")[: text.index("  ethnic:\n    - {type:")]
    )
    topics = text.splitlines().index("topics:") + 1
    result = packs_check("--prompts", str(prompts), "--language", "en", "--personas", "5")
    assert result.output.strip().splitlines()[0] == (
        f"{shapes}: line {topics}: topics: no topic list for the category 'ethnic'"
    )


def test_a_pack_following_another_country_than_its_personas_is_one_line(prompts: Path) -> None:
    """US personas beside UK forms: the date format, and then a birth date format."""
    language = prompts / "en" / "language.yaml"
    language.write_text(language.read_text().replace("en_GB", "en_US"))
    result = packs_check("--prompts", str(prompts), "--language", "en", "--personas", "5")
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    shapes = prompts / "en" / "shapes.yaml"
    assert lines[0].startswith(f"{shapes}: line ") and "date_format: '%d/%m/%Y'" in lines[0]
    assert "the personas' locale en_US" in lines[0] and "writes the month first" in lines[0]
    assert any("an amount in '£'" in line for line in lines), lines
    persona = prompts / "en" / "persona.yaml"
    assert any(line.startswith(f"{persona}: line ") for line in lines), lines


def test_every_shapes_problem_names_its_line_and_key(prompts: Path) -> None:
    """Unknown placeholders in the instructions and the field line, a field list of no
    category, a layout of no document type, an unknown strftime directive, and a value that
    YAML cut at an unquoted comma (two values): one line each, with the line and the key."""
    shapes = prompts / "en" / "shapes.yaml"
    text = shapes.read_text()
    edits = {
        'date_format: "%d/%m/%Y"': 'date_format: "%Q/%d"',
        'field_line: "{label}: {value}"': 'field_line: "{label}: {value} {unit}"',
        "Write {notes} for": "Write {notes} {wordz} for",
        "Write a {type}: {subject}.": "Write a {type}: {subjekt}.",
        "fields:\n": "fields:\n  astrology:\n    - label: Sign\n      values: [Leo]\n",
        "layouts:\n": "layouts:\n  Horoscope:\n    - {words: 90, notes: a note, text: '{notes}'}\n",
        'values: ["{status}"]': 'values: [Two (theft 2015, assault 2018), "{status}"]',
    }
    for old, new in edits.items():
        assert text.count(old) >= 1, old
        text = text.replace(old, new, 1)
    shapes.write_text(text)
    rows = text.splitlines()

    def line(start: str) -> int:
        return next(n for n, row in enumerate(rows, 1) if row.startswith(start))

    result = packs_check("--prompts", str(prompts), "--language", "en", "--personas", "5")
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert lines[-1] == "error: 8 problems in en", lines
    expected = {
        "date_format": (line("date_format:"), "unknown strftime directive %Q"),
        "field_line": (line("field_line:"), "unknown placeholder {unit}"),
        "notes_instruction": (line("notes_instruction:"), "unknown placeholder {wordz}"),
        "topic_instruction": (line("topic_instruction:"), "unknown placeholder {subjekt}"),
        "fields.astrology": (line("  astrology:"), "'astrology' is no sensitive category"),
        "layouts.Horoscope": (line("  Horoscope:"), "'Horoscope' is no document type"),
    }
    for key, (number, what) in expected.items():
        found = [row for row in lines if row.startswith(f"{shapes}: line {number}: {key}: ")]
        assert len(found) == 1 and what in found[0], (key, lines)
    for half in ("'Two (theft 2015'", "'assault 2018)'"):  # each half a value of its own
        cut = [row for row in lines if half in row]
        assert len(cut) == 1 and "write the value in quotes" in cut[0]
        assert re.match(rf"{shapes}: line \d+: fields\.judicial\.\d\.values\.\d: ", cut[0])
    assert "Traceback" not in result.output
