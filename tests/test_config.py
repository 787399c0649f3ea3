"""Broken prompt YAMLs fail at start-up with one located message, exit 2, nothing written."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from gen.cli import main
from gen.core.errors import ConfigError
from gen.core.packs import default_prompts_dir, load_language_pack
from gen.core.yamlio import read_yaml


@pytest.fixture
def prompts(tmp_path: Path) -> Path:
    target = tmp_path / "prompts"
    shutil.copytree(default_prompts_dir(), target)
    return target


def run_plan(prompts: Path, tmp_path: Path, *args: str):
    result = CliRunner().invoke(main, ["plan", "--prompts", str(prompts), "--n", "3", *args])
    return result


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"fixture drifted: {old!r} not in {path}"
    path.write_text(text.replace(old, new, 1))


def test_shipped_prompts_load_for_every_language() -> None:
    for language in ("en", "it", "de", "es", "fr"):
        pack = load_language_pack(language)
        assert set(pack.taxonomy) == set(pack.categories.categories)
        assert len(pack.files_sha256) == 64


@pytest.mark.parametrize(
    ("file", "old", "new", "expected"),
    [
        (
            "en/generation.yaml",
            "format: chat",
            "format: [chat",
            "en/generation.yaml: line 9, column 7: invalid YAML",
        ),
        ("en/generation.yaml", "format: chat", "formatt: chat", "formatt: unknown key"),
        ("en/generation.yaml", "temperature: 0.9", "temperature: hot", "sampling.temperature"),
        (
            "en/generation.yaml",
            "  top_p: 0.7\n",
            "  top_p: 0.7\n  temperature: 0.2\n",
            "en/generation.yaml: line 30: duplicate key 'temperature' (first on line 28)",
        ),
        ("en/generation.yaml", "response_prefix:", "#", "instruction"),
        ("en/taxonomy.yaml", "politic:", "politics:", "unknown category 'politics'"),
        ("en/taxonomy.yaml", "kind: inherent\n", "kind: innate\n", "health.doc_types.0.kind"),
        (
            "en/generation.yaml",
            "'{doc_type}', which",
            "'{document}', which",
            "instruction: unknown placeholder {document}",
        ),
        ("en/generation.yaml", "format: chat", "format: vicuna", "unknown format 'vicuna'"),
        (
            "en/generation.yaml",
            "about {length} words",
            "about {lenght} words",
            "instruction: unknown placeholder {lenght}",
        ),
        ("en/taxonomy.yaml", "      words: 450\n", "", "health.doc_types.0.words: required key"),
        (
            "en/taxonomy.yaml",
            "words: 450\n",
            "words: 5\n",
            "line 19: health.doc_types.0.words: Input should be greater than or equal to 30",
        ),
        ("categories.yaml", "ethnic: {", "ethnic: {colour: red, ", "categories.ethnic.colour"),
        (
            "categories.yaml",
            "label: ethnic,",
            "label: ethnic origin,",
            "categories.ethnic.label: must be a name without spaces, got 'ethnic origin'",
        ),
        (
            "en/generation.yaml",
            "    - below is",
            "    - below (is",
            "en/generation.yaml: line 47: chatter.preamble: phrase 7 'below (is' is not a valid "
            "regular expression (missing ), unterminated subpattern at position 6)",
        ),
    ],
)
def test_broken_yaml_gives_one_clear_message(
    prompts: Path, tmp_path: Path, file: str, old: str, new: str, expected: str
) -> None:
    if new == "#":  # drop a required key by commenting out the whole instruction block
        path = prompts / file
        text = path.read_text()
        start = text.index("instruction:")
        end = text.index("# For the non-sensitive")
        path.write_text(text[:start] + text[end:])
        expected = "instruction: required key is missing"
    else:
        edit(prompts / file, old, new)
    result = run_plan(prompts, tmp_path)
    assert result.exit_code == 2, result.output
    assert expected in result.output
    assert "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_a_key_written_twice_is_refused_but_a_merged_key_may_be_overridden(tmp_path: Path) -> None:
    path = tmp_path / "x.yaml"
    path.write_text("a: {b: 1, b: 2}\n", "utf-8")
    with pytest.raises(ConfigError, match=r"x.yaml: line 1: duplicate key 'b' \(first on line 1\)"):
        read_yaml(path)
    path.write_text("base: &base {b: 1, c: 2}\nother:\n  <<: *base\n  b: 3\n", "utf-8")
    assert read_yaml(path)["other"] == {"b": 3, "c": 2}


def test_a_type_in_several_categories_has_one_length_and_layout() -> None:
    """A type written once and reused by alias (`- *email`) is asked for the same way in
    every category."""
    for language in ("en", "it", "de", "es", "fr"):
        shape: dict[str, tuple[int, str]] = {}
        for prompts in load_language_pack(language).taxonomy.values():
            for doc_type in prompts.doc_types:
                seen = shape.setdefault(doc_type.name, (doc_type.words, doc_type.layout))
                assert seen == (doc_type.words, doc_type.layout), (language, doc_type.name)


def test_unknown_category_and_language_are_usage_errors(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["plan", "--category", "astrology"])
    assert result.exit_code == 2
    assert "unknown category 'astrology'" in result.output and "health" in result.output
    result = CliRunner().invoke(main, ["plan", "--language", "xx"])
    assert result.exit_code == 2
    assert "no prompts for language 'xx'" in result.output


def test_broken_yaml_writes_nothing(prompts: Path, tmp_path: Path) -> None:
    edit(
        prompts / "en/taxonomy.yaml",
        "health:",
        "health: [",
    )
    run = tmp_path / "run"
    result = CliRunner().invoke(
        main, ["documents", "--prompts", str(prompts), "--run", str(run), "--n", "1"]
    )
    assert result.exit_code == 2
    assert "taxonomy.yaml" in result.output
    assert not run.exists()


def test_a_missing_model_file_is_named(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main, ["documents", "--model", str(tmp_path / "nope.gguf"), "--run", str(tmp_path / "r")]
    )
    assert result.exit_code == 2
    assert "nope.gguf not found" in result.output


def test_config_error_type_is_a_usage_error() -> None:
    assert ConfigError("x").exit_code == 2


def test_a_pack_without_chatter_phrases_says_so(prompts: Path, tmp_path: Path) -> None:
    """A pack copied before the phrases moved to YAML would keep every preamble silently."""
    generation = prompts / "en" / "generation.yaml"
    text = generation.read_text()
    generation.write_text(text[: text.index("# Model chatter")])
    result = run_plan(prompts, tmp_path)
    assert result.exit_code == 2
    assert "en/generation.yaml: chatter: required key is missing" in result.output


def empty_list(path: Path, key: str) -> int:
    """Write `key: []` in place of the list `key` holds (flow or block style, nested keys
    as `a.b`); the line of the key."""
    lines = path.read_text(encoding="utf-8").split("\n")
    *parents, name = key.split(".")
    indent = "  " * len(parents)
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{indent}{name}:"))
    end = start + 1
    while end < len(lines) and (lines[end].startswith(indent + " ") or lines[end] == ""):
        end += 1
    lines[start:end] = [f"{indent}{name}: []"]
    path.write_text("\n".join(lines), encoding="utf-8")
    return start + 1


@pytest.mark.parametrize(
    "key", ["jobs", "employers", "addresses", "month_names", "place_names.lowercase_words"]
)
def test_an_empty_list_in_persona_yaml_is_named_by_plan_and_packs_check(
    prompts: Path, tmp_path: Path, key: str
) -> None:
    """An empty list would silently fall back to Faker's English job titles, its company
    names...: refused with the file, the line and the key, as facts.yaml's value lists."""
    persona = prompts / "it" / "persona.yaml"
    line = empty_list(persona, key)
    expected = f"{persona}: line {line}: {key}: the list is empty"
    result = run_plan(prompts, tmp_path, "--language", "it")
    assert result.exit_code == 2, result.output
    assert result.output.startswith(f"error: {expected}") and "Traceback" not in result.output
    check = CliRunner().invoke(
        main, ["packs", "check", "--prompts", str(prompts), "--language", "it", "--personas", "5"]
    )
    assert check.exit_code == 2
    assert check.output.strip().splitlines()[0].startswith(expected), check.output
    assert "slash forms" not in check.output and "English words" not in check.output
