from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from gen.core.errors import ConfigError
from gen.core.packs import default_prompts_dir, load_language_pack
from labeling.config import load_labeling

Edit = Callable[[dict[str, Any]], None]


@pytest.mark.parametrize("language", ["en", "it"])
def test_shipped_labeling_prompts_cover_every_sensitive_category(language: str) -> None:
    pack = load_language_pack(language)
    prompts = load_labeling(pack)
    assert set(prompts.categories) == set(pack.categories.sensitive)
    for info in prompts.categories.values():
        flags = {example.sensitive for example in info.sentence_examples}
        assert flags == {True, False}, "each category needs positive and negative examples"
        assert info.censor_example and f"[{info.tag}]" in info.censor_example.censored
    assert len(set(prompts.tags())) == len(prompts.categories)


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


def _unknown_placeholder(data: dict[str, Any]) -> None:
    data["censor"]["instruction"] += " {persona}"


def _missing_category(data: dict[str, Any]) -> None:
    del data["categories"]["ethnic"]


def _unknown_category(data: dict[str, Any]) -> None:
    data["categories"]["other"] = data["categories"]["health"]


def _shared_tag(data: dict[str, Any]) -> None:
    data["categories"]["politic"]["tag"] = "HEALTH_DATA"


def _no_examples(data: dict[str, Any]) -> None:
    data["categories"]["health"]["sentence_examples"] = []


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
        (_no_examples, "categories.health.sentence_examples"),
        (_unknown_key, "sentences.max_sentences: unknown key"),
    ],
)
def test_broken_labeling_yaml_names_file_and_key(tmp_path: Path, edit: Edit, message: str) -> None:
    root = edited_prompts(tmp_path, edit)
    with pytest.raises(ConfigError) as caught:
        load_labeling(load_language_pack("en", root))
    assert str(root / "en" / "labeling.yaml") in str(caught.value)
    assert message in str(caught.value)
