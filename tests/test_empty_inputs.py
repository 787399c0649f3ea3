"""One rule for empty inputs: a file, folder or split without a record is a usage error
(exit status 2) naming it, whatever the command and the format; nothing is written."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from gen.cli import main
from gen.core.packs import default_prompts_dir
from gen.core.runs import RunPaths
from gen.dataset.assemble import build_dataset
from gen.dataset.options import BuildOptions
from scraping.queries.generate import generate_queries


def _fails(args: list[str], *named: str) -> str:
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    for text in named:
        assert text in result.output, result.output
    return result.output


def _empty_docbin(path: Path) -> Path:
    spacy = pytest.importorskip("spacy")
    from spacy.tokens import DocBin

    DocBin(docs=[]).to_disk(path)
    spacy.blank("en")
    return path


@pytest.mark.parametrize("name", ["empty.jsonl", "empty.conll", "empty.txt", "empty.spacy"])
def test_importing_an_empty_file_is_a_usage_error_and_makes_no_run_folder(tmp_path, name):
    path = tmp_path / name
    if name.endswith(".spacy"):
        _empty_docbin(path)
    else:
        path.write_text("", encoding="utf-8")
    run = tmp_path / "run"
    target = "documents" if name.endswith(".txt") else "gold"
    output = _fails(["import", str(path), "--run", str(run), "--as", target], str(path))
    assert "no records" in output or "empty" in output
    assert not run.exists()


def test_eval_of_empty_files_names_the_gold_file(tmp_path):
    gold, pred = tmp_path / "gold.jsonl", tmp_path / "pred.jsonl"
    gold.write_text("")
    pred.write_text("\n\n")
    _fails(["eval", str(gold), str(pred)], f"GOLD file {gold}", "no records found")
    gold.write_text('{"id": "a", "text": "abc"}\n')
    _fails(["eval", str(gold), str(pred)], f"PRED file {pred}", "no records found")


def test_predict_on_an_empty_file_names_it_before_loading_a_model(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    out = tmp_path / "found.jsonl"
    model = tmp_path / "model"
    model.mkdir()
    (model / "detector.json").write_text('{"trainer": "spacy"}')  # no model to load in it
    _fails(
        ["predict", str(empty), "--model", str(model), "--out", str(out)],
        f"input {empty}",
        "no records found",
    )
    assert not out.exists()


def test_export_warns_about_an_empty_split(tmp_path):
    """Every time: a warning is said once per command, not once per process, which may
    run many commands (a test session, a notebook)."""
    generate_queries(tmp_path, locale="en_US", n=2, seed=3, prompts_dir=default_prompts_dir())
    build_dataset(tmp_path, BuildOptions())
    for _ in range(2):
        result = CliRunner().invoke(
            main,
            ["export", "--run", str(tmp_path), "--format", "jsonl", "--split", "0.05,0.5,0.45"],
        )
        assert result.exit_code == 0, result.output
        assert "warning: the train split is empty" in result.output
    assert (RunPaths(tmp_path).export / "jsonl" / "train.jsonl").read_text() == ""
