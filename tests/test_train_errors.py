"""Bad input to `gen train` and `gen predict`: one clear line, exit status 2, no model written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from gen.cli import main
from gen.core.errors import UsageError
from gen.core.packs import default_prompts_dir
from gen.dataset.assemble import build_dataset
from gen.dataset.options import BuildOptions
from gen.train import TrainSettings
from scraping.queries.generate import generate_queries

pytest.importorskip("spacy")


def _run(folder: Path, n: int) -> Path:
    generate_queries(folder, locale="en_US", n=n, seed=3, prompts_dir=default_prompts_dir())
    build_dataset(folder, BuildOptions())
    return folder


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    return _run(tmp_path_factory.mktemp("errors"), 40)


def _fails(args: list[str], message: str) -> None:
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1, result.output


def test_an_export_without_a_dev_split(run, tmp_path):
    run = Path(shutil.copytree(run, tmp_path / "copy"))
    result = CliRunner().invoke(
        main, ["export", "--run", str(run), "--format", "spacy", "--split", "0.8,0.2"]
    )
    assert result.exit_code == 0, result.output
    _fails(["train", "--run", str(run), "--out", str(tmp_path / "m")], "has no dev split")
    assert not (tmp_path / "m").exists()


def test_an_empty_train_split(tmp_path):
    run = _run(tmp_path / "tiny", 2)
    result = CliRunner().invoke(
        main, ["export", "--run", str(run), "--format", "spacy", "--split", "0.05,0.5,0.45"]
    )
    assert result.exit_code == 0, result.output
    _fails(["train", "--run", str(run)], "train split of")


def test_no_dataset(tmp_path):
    _fails(["train", "--run", str(tmp_path)], "gen build")


def test_gold_labels_that_do_not_match(run, tmp_path):
    gold = tmp_path / "gold.jsonl"
    text = "He was treated for asthma."
    gold.write_text(
        json.dumps(
            {"id": "g", "text": text, "spans": [{"start": 19, "end": 25, "label": "health"}]}
        )
        + "\n"
    )
    _fails(["train", "--run", str(run), "--gold", str(gold)], "do not match the model's")
    _fails(["train", "--run", str(run), "--gold", str(tmp_path / "none.jsonl")], "not found")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--base-model", "/nonexistent/pipeline"], "base model '/nonexistent/pipeline' not found"),
        (["--trainer", "transformers"], "needs --base-model"),
        (
            ["--trainer", "transformers", "--base-model", "/nonexistent"],
            "base model /nonexistent not found",
        ),
        (["--learning-curve", "0,2"], "--learning-curve"),
        (["--class-weights", "log"], "--class-weights 'log'"),
    ],
)
def test_bad_options(run, tmp_path, options, message):
    _fails(["train", "--run", str(run), "--out", str(tmp_path / "m"), *options], message)
    assert not (tmp_path / "m").exists()


def test_predict_bad_input(tmp_path):
    _fails(["predict", str(tmp_path), "--model", str(tmp_path / "none")], "model folder")
    _fails(["predict", str(tmp_path), "--model", str(tmp_path)], "detector.json")
    (tmp_path / "detector.json").write_text("{broken")
    _fails(["predict", str(tmp_path), "--model", str(tmp_path)], "not a detector description")


def test_the_run_gold_table_is_the_default_gold_set(run, tmp_path):
    run = Path(shutil.copytree(run, tmp_path / "copy"))
    gold = tmp_path / "gold.jsonl"
    span = {"start": 0, "end": 6, "label": "health"}
    gold.write_text(json.dumps({"id": "g", "text": "Asthma.", "spans": [span]}) + "\n")
    imported = CliRunner().invoke(main, ["import", str(gold), "--run", str(run), "--as", "gold"])
    assert imported.exit_code == 0, imported.output
    _fails(["train", "--run", str(run)], f"{run / 'gold'} (health) do not match")


@pytest.mark.parametrize("rate", ["-1", "0"])
def test_a_learning_rate_that_is_not_positive_is_refused(run, tmp_path, rate):
    result = CliRunner().invoke(
        main, ["train", "--run", str(run), "--out", str(tmp_path / "m"), "--learning-rate", rate]
    )
    assert result.exit_code == 2, result.output
    assert "--learning-rate" in result.output
    assert not (tmp_path / "m").exists()


def test_train_settings_refuse_a_learning_rate_that_is_not_positive():
    with pytest.raises(UsageError, match="--learning-rate must be greater than 0"):
        TrainSettings(learning_rate=0.0)


@pytest.mark.parametrize(
    ("options", "note"),
    [
        (["--device", "cuda"], "note: --device does not apply to --trainer spacy; ignored"),
        (["--length", "50"], "note: --length does not apply to --trainer spacy; ignored"),
        (
            ["--max-span-words", "5"],
            "note: --max-span-words does not apply to --trainer spacy --component ner; ignored",
        ),
    ],
)
def test_options_the_trainer_does_not_read_are_noted_before_training(
    run, tmp_path, monkeypatch, options, note
):
    def stop(*args, **kwargs):
        raise UsageError("stopped before training")

    monkeypatch.setattr("gen.cli.train.train_detector", stop)
    result = CliRunner().invoke(main, ["train", "--run", str(run), *options])
    assert result.exit_code == 2, result.output
    assert note in result.output
    assert "stopped before training" in result.output


@pytest.mark.parametrize(
    ("option", "value", "shown"),
    [("--epochs", "0", "x>=1"), ("--patience", "-1", "x>=0"), ("--stride", "-1", "x>=0")],
)
def test_a_value_out_of_its_shown_range_is_refused_by_name(run, tmp_path, option, value, shown):
    result = CliRunner().invoke(
        main, ["train", "--run", str(run), "--out", str(tmp_path / "m"), option, value]
    )
    assert result.exit_code == 2, result.output
    assert f"Invalid value for '{option}': {value} is not in the range {shown}" in result.output
    assert not (tmp_path / "m").exists()


def test_a_resumed_learning_curve_says_what_it_kept_and_each_bar_names_its_share(
    run, tmp_path, monkeypatch
):
    from gen.train.spacy_trainer import SpacyTrainer

    fit = SpacyTrainer.fit
    calls = []

    def killed_at_the_third_training(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return fit(self, *args, **kwargs)

    out = tmp_path / "m"
    args = ["train", "--run", str(run), "--out", str(out), "--epochs", "1"]
    args += ["--learning-curve", "0.25,0.5,1.0"]
    monkeypatch.setattr(SpacyTrainer, "fit", killed_at_the_third_training)
    first = CliRunner().invoke(main, args)
    assert first.exit_code == 130, first.output
    assert "train spacy ner [learning curve: share 0.25 of train, point 1 of 3]" in first.stderr
    monkeypatch.setattr(SpacyTrainer, "fit", fit)
    again = CliRunner().invoke(main, args)
    assert again.exit_code == 0, again.output
    assert (
        "learning curve resumed: share 0.25 kept from an interrupted run (1 of 3 points)"
        in again.stderr
    )
    assert "train spacy ner [learning curve: share 0.5 of train, point 2 of 3]" in again.stderr
    assert "train spacy ner [learning curve: share 0.25" not in again.stderr
    assert "train spacy ner [full train split]" in again.stderr
