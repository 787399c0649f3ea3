"""Strategies are plug-ins: a toy one, defined here and nowhere else, runs through the whole
stage (YAML block, CLI, manifest, agreement with the others)."""

from __future__ import annotations

import importlib
import json
import re
import shutil
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import ClassVar

import pytest
import yaml
from click.testing import CliRunner
from fakes import ScriptedBackend
from label_fakes import documents, keyword_reply

from gen.cli import main
from gen.core.errors import UsageError
from gen.core.packs import default_prompts_dir
from gen.core.records import Record, Span
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from gen.core.yamlio import StrictModel
from gen.predict.detector import UnreadTexts
from labeling.options import LabelOptions
from labeling.run import run
from labeling.strategies import (
    LabelerSetup,
    Strategy,
    parse_strategies,
    registered,
    sources,
    strategies,
)
from labeling.strategies.outcome import OK, StrategyOutcome


class ToyPrompts(StrictModel):
    """The toy's block of labeling.yaml: words that disclose each category."""

    words: dict[str, list[str]]


class ToyLabeler:
    def __init__(self, setup: LabelerSetup) -> None:
        block = setup.prompts.block("toy", ToyPrompts)
        self.words = {
            word: setup.pack.categories.categories[name].label
            for name, words in block.words.items()
            for word in words
        }

    def label(self, document: Record) -> StrategyOutcome:
        spans = [
            Span(match.start(), match.end(), self.words[match.group().lower()], "toy")
            for match in re.finditer(r"\w+", document.text)
            if match.group().lower() in self.words
        ]
        return StrategyOutcome("toy", OK, spans=spans)


TOY = Strategy(
    name="toy",
    source="toy",
    summary="marks listed words",
    build=ToyLabeler,
    prompts=ToyPrompts,
    needs_model=False,
)


@pytest.fixture
def toy() -> Iterator[Strategy]:
    with registered(TOY) as strategy:
        yield strategy


def prompts_with_toy_block(tmp_path: Path) -> Path:
    root = tmp_path / "prompts"
    shutil.copytree(default_prompts_dir(), root)
    path = root / "en" / "labeling.yaml"
    data = yaml.safe_load(path.read_text())
    data["toy"] = {"words": {"health": ["diabetes", "insulin"], "judicial": ["convicted"]}}
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False))
    return root


def make_run(tmp_path: Path) -> RunPaths:
    paths = RunPaths(tmp_path / "run")
    with RecordTable(paths.documents) as table:
        table.extend(documents())
    return paths


def test_the_registry_finds_the_shipped_strategies() -> None:
    names = [s.name for s in strategies()]
    assert names == ["sentences", "censor", "inline", "detector"]
    assert sources() == ("llm_sentences", "llm_censor", "llm_inline", "detector")
    assert parse_strategies("both") == ("sentences", "censor")
    assert parse_strategies("censor, sentences") == ("sentences", "censor")
    assert parse_strategies("all") == ("sentences", "censor", "inline")
    with pytest.raises(UsageError, match="unknown strategy 'sentence'; expected sentences"):
        parse_strategies("sentence")
    with pytest.raises(UsageError, match="--strategy is empty"):
        parse_strategies(" , ")


def test_a_toy_strategy_runs_beside_the_shipped_ones(toy: Strategy, tmp_path: Path) -> None:
    assert parse_strategies("all") == ("sentences", "censor", "inline", "toy")
    paths = make_run(tmp_path)
    options = LabelOptions(
        strategy="sentences,toy",
        backend=ScriptedBackend(keyword_reply),
        prompts_dir=prompts_with_toy_block(tmp_path),
    )
    summary = run(paths, options)
    assert summary.strategies == ("sentences", "toy")
    labeled = {r.id: r for r in RecordTable(paths.labeled).read()}
    toy_spans = [
        labeled["d-health"].text[s.start : s.end]
        for s in labeled["d-health"].spans
        if s.source == "toy"
    ]
    assert toy_spans == ["diabetes", "insulin"]
    manifest = json.loads(paths.manifest("label").read_text())
    assert manifest["strategy"] == "sentences,toy"
    assert manifest["strategies"]["toy"] == {"ok": 3, "reasons": {}}
    assert manifest["spans_by_source"]["toy"] == 3
    agreement = manifest["agreement"]["sentences vs toy"]
    assert set(agreement) == {"health", "judicial"}
    assert 0 < agreement["health"]["f1"] < 1  # words inside the sentences the other found


def test_a_pack_without_the_toy_block_fails_before_labeling(toy: Strategy, tmp_path: Path) -> None:
    paths = make_run(tmp_path)
    with pytest.raises(UsageError, match="toy: required key is missing"):
        run(paths, LabelOptions(strategy="toy"))
    assert RecordTable(paths.labeled).read() == []


def test_cli_runs_a_model_free_strategy_without_loading_a_model(
    toy: Strategy, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    command = importlib.import_module("gen.cli.label")

    def no_model(options: object) -> None:
        raise AssertionError("no strategy asked for a model")

    monkeypatch.setattr(command, "make_backend", no_model)
    paths = make_run(tmp_path)
    prompts = prompts_with_toy_block(tmp_path)
    args = ["label", "--run", str(paths.root), "--strategy", "toy", "--prompts", str(prompts)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "3/3 documents labeled with strategy toy" in result.output
    assert "spans: " in result.output and "toy 3" in result.output


def test_cli_rejects_an_unknown_strategy_in_one_line(tmp_path: Path) -> None:
    paths = make_run(tmp_path)
    result = CliRunner().invoke(main, ["label", "--run", str(paths.root), "--strategy", "x,censor"])
    assert result.exit_code == 2
    assert "unknown strategy 'x'" in result.output and "Traceback" not in result.output


def test_cli_notes_a_detector_no_chosen_strategy_reads(
    toy: Strategy, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = make_run(tmp_path)
    prompts = prompts_with_toy_block(tmp_path)
    args = ["label", "--run", str(paths.root), "--strategy", "toy", "--prompts", str(prompts)]
    result = CliRunner().invoke(main, [*args, "--detector", str(tmp_path / "model")])
    assert result.exit_code == 0, result.output
    assert "note: --detector does not apply to --strategy toy; ignored" in result.output


class BellDetector:
    """Finds "diabetes"; cannot read a text that holds a bell character."""

    labels: ClassVar[list[str]] = ["health"]
    scored = True

    def predict(self, texts: list[str]) -> list[list[Span]]:
        found = [
            [Span(t.index("diabetes"), t.index("diabetes") + 8, "health", "model", score=0.9)]
            if "diabetes" in t
            else []
            for t in texts
        ]
        unread = {i: "its tokens do not map back to it" for i, t in enumerate(texts) if "\a" in t}
        if unread:
            raise UnreadTexts(unread, found)
        return found


def test_the_detector_strategy_names_a_document_it_cannot_read_and_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("labeling.strategies.detector.load_detector", lambda f: BellDetector())
    paths = RunPaths(tmp_path / "run")
    bell = documents()[1]
    with RecordTable(paths.documents) as table:
        table.extend([documents()[0], replace(bell, text=bell.text + "\a"), documents()[2]])
    args = ["label", "--run", str(paths.root), "--strategy", "detector", "--detector", "model"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "left out d-judicial: its tokens do not map back to it" in result.output
    assert "detector: ok 2, failed 1 (reasons: unread 1)" in result.output
    labeled = {r.id: r for r in RecordTable(paths.labeled).read()}
    found = {i: [s.label for s in r.spans if s.source == "detector"] for i, r in labeled.items()}
    assert found == {"d-health": ["health"], "d-judicial": [], "d-other": []}
    assert labeled["d-judicial"].flags == ["detector_failed"]
