from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from gen.core.errors import ConfigError
from gen.core.packs import default_prompts_dir, load_language_pack
from labeling.strategies import load_labeling

Edit = Callable[[dict[str, Any]], None]


@pytest.mark.parametrize("language", ["en", "it", "de", "es", "fr"])
def test_shipped_labeling_prompts_cover_every_sensitive_category(language: str) -> None:
    pack = load_language_pack(language)
    prompts = load_labeling(pack, needed=("sentences", "censor", "inline"))
    sensitive = set(pack.categories.sensitive)
    assert set(prompts.categories) == sensitive
    sentences, censor, inline = prompts.sentences, prompts.censor, prompts.inline
    assert set(sentences.examples) == set(censor.tags) == set(inline.tags) == sensitive
    for name in sensitive:
        flags = {example.sensitive for example in sentences.examples[name]}
        assert flags == {True, False}, "each category needs positive and negative examples"
        assert f"[{censor.tags[name]}]" in censor.examples[name].censored
    assert len(set(censor.tags.values())) == len(sensitive)


def edited_prompts(tmp_path: Path, edit: Edit) -> Path:
    root = tmp_path / "prompts"
    shutil.copytree(default_prompts_dir(), root)
    path = root / "en" / "labeling.yaml"
    data = yaml.safe_load(path.read_text())
    edit(data)
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False))
    return root


def _drop_sentences_placeholder(data: dict[str, Any]) -> None:
    data["sentences"]["instruction"] = "Label them: {examples}"


def _missing_tag(data: dict[str, Any]) -> None:
    del data["censor"]["tags"]["ethnic"]


def _inline_tags_clash(data: dict[str, Any]) -> None:
    data["inline"]["tags"]["politic"] = "Health"


def _unknown_block(data: dict[str, Any]) -> None:
    data["toy"] = {"anything": 1}


def _unknown_placeholder(data: dict[str, Any]) -> None:
    data["censor"]["instruction"] += " {persona}"


def _missing_category(data: dict[str, Any]) -> None:
    del data["categories"]["ethnic"]


def _unknown_category(data: dict[str, Any]) -> None:
    data["categories"]["other"] = data["categories"]["health"]


def _shared_tag(data: dict[str, Any]) -> None:
    data["censor"]["tags"]["politic"] = "HEALTH_DATA"


def _no_examples(data: dict[str, Any]) -> None:
    data["sentences"]["examples"]["health"] = []


def _unknown_key(data: dict[str, Any]) -> None:
    data["sentences"]["max_sentences"] = 3


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            _drop_sentences_placeholder,
            "sentences.instruction: the template must contain {sentences}",
        ),
        (_unknown_placeholder, "unknown placeholder {persona}"),
        (_missing_category, "categories.ethnic: required key is missing"),
        (_unknown_category, "categories.other: not a sensitive category"),
        (_shared_tag, "share one tag"),
        (_no_examples, "sentences.examples.health: give at least one example"),
        (_missing_tag, "censor.tags.ethnic: required key is missing"),
        (_inline_tags_clash, "inline.tags.politic: <Health> is the same tag as <health>"),
        (_unknown_block, "toy: unknown key"),
        (_unknown_key, "sentences.max_sentences: unknown key"),
    ],
)
def test_broken_labeling_yaml_names_file_and_key(tmp_path: Path, edit: Edit, message: str) -> None:
    root = edited_prompts(tmp_path, edit)
    with pytest.raises(ConfigError) as caught:
        load_labeling(load_language_pack("en", root))
    assert str(root / "en" / "labeling.yaml") in str(caught.value)
    assert message in str(caught.value)


def test_a_strategy_block_is_optional_until_the_strategy_runs(tmp_path: Path) -> None:
    def drop_censor(data: dict[str, Any]) -> None:
        del data["censor"]

    root = edited_prompts(tmp_path, drop_censor)
    pack = load_language_pack("en", root)
    assert load_labeling(pack, needed=("sentences",)).sentences is not None
    with pytest.raises(ConfigError, match=r"labeling.yaml: censor: required key is missing"):
        load_labeling(pack, needed=("sentences", "censor"))
