"""A refused or killed command leaves nothing that a later run keeps: no empty folders,
no manifest of a call that never started, no staging folder of a killed training."""

from __future__ import annotations

import shutil

import pytest
from click.testing import CliRunner
from fakes import ScriptedBackend, unique_reply
from label_fakes import documents as label_documents
from label_fakes import keyword_reply

import gen.generate.run as documents_stage
from gen.cli import main
from gen.core.errors import UsageError
from gen.core.packs import default_prompts_dir
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from gen.dataset.assemble import build_dataset
from gen.dataset.options import BuildOptions
from labeling.options import LabelOptions
from labeling.run import run as label_run
from scraping.queries.generate import generate_queries


def test_plan_refuses_an_unknown_prompt_format():
    result = CliRunner().invoke(main, ["plan", "--n", "2", "--prompt-format", "nope"])
    assert result.exit_code == 2, result.output
    assert "--prompt-format 'nope': expected 'chat' or one of alpaca" in result.output


def test_a_refused_documents_call_leaves_no_folder(tmp_path, monkeypatch):
    loads = []
    monkeypatch.setattr(
        documents_stage,
        "make_backend",
        lambda options: loads.append(options) or ScriptedBackend(unique_reply),
    )
    run = tmp_path / "run"
    result = CliRunner().invoke(
        main, ["documents", "--run", str(run), "--n", "1", "--prompt-format", "nope"]
    )
    assert result.exit_code == 2, result.output
    assert "--prompt-format 'nope'" in result.output
    assert not loads, "refused before the model loads"
    assert not run.exists(), sorted(p.relative_to(run) for p in run.rglob("*"))


def test_a_table_opened_and_closed_unused_removes_the_folders_it_made(tmp_path):
    with RecordTable(tmp_path / "run" / "rejects" / "documents"):
        pass
    assert not (tmp_path / "run").exists()
    (tmp_path / "kept").mkdir()
    with RecordTable(tmp_path / "kept" / "rejects" / "label"):
        pass
    assert list((tmp_path / "kept").iterdir()) == []


def test_a_label_call_refused_for_its_prompt_format_writes_no_manifest(tmp_path):
    paths = RunPaths(tmp_path)
    with RecordTable(paths.documents) as table:
        table.extend(label_documents())
    backend = ScriptedBackend(keyword_reply)
    with pytest.raises(UsageError, match="--prompt-format 'nope'"):
        label_run(paths, LabelOptions(strategy="sentences", backend=backend, prompt_format="nope"))
    assert not paths.manifest("label").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["documents"]


def test_the_staging_folders_of_a_killed_training_are_removed_by_the_next(tmp_path):
    pytest.importorskip("spacy")
    generate_queries(tmp_path, locale="en_US", n=40, seed=3, prompts_dir=default_prompts_dir())
    build_dataset(tmp_path, BuildOptions())
    models = tmp_path / "models"
    killed = [models / f".spacy.{digit * 32}.tmp" for digit in "01"]
    for folder in killed:
        (folder / "model").mkdir(parents=True)
        (folder / "model" / "weights").write_bytes(bytes(1000))
    shutil.copytree(killed[0], models / f".spacy.{'2' * 32}.old")
    result = CliRunner().invoke(main, ["train", "--run", str(tmp_path), "--epochs", "1"])
    assert result.exit_code == 0, result.output
    assert "removed 3 staging folder(s) left by interrupted trainings" in result.output
    assert sorted(p.name for p in models.iterdir()) == ["spacy"]


@pytest.fixture
def query_run(tmp_path):
    pytest.importorskip("spacy")
    generate_queries(tmp_path, locale="en_US", n=40, seed=3, prompts_dir=default_prompts_dir())
    build_dataset(tmp_path, BuildOptions())
    return tmp_path


def _failing_fit(error: BaseException, keep: str | None = None):
    def fit(self, data, folder, settings, work):
        if keep:
            (work / keep).write_text("a checkpoint")
        raise error

    return fit


@pytest.mark.parametrize(
    ("error", "code"), [(UsageError("no entity in train"), 2), (RuntimeError("crash"), 1)]
)
def test_a_refused_or_failed_training_leaves_nothing_beside_its_folder(
    query_run, monkeypatch, error, code
):
    from gen.train.spacy_trainer import SpacyTrainer

    monkeypatch.setattr(SpacyTrainer, "fit", _failing_fit(error))
    out = query_run / "trained" / "ner"
    result = CliRunner().invoke(main, ["train", "--run", str(query_run), "--out", str(out)])
    assert result.exit_code == code, result.output
    assert list(out.parent.iterdir()) == []


def test_an_interrupted_training_keeps_only_what_it_resumes_from_and_says_so(
    query_run, monkeypatch
):
    from gen.train.spacy_trainer import SpacyTrainer

    out = query_run / "trained" / "ner"
    monkeypatch.setattr(SpacyTrainer, "fit", _failing_fit(KeyboardInterrupt(), keep="step-3"))
    result = CliRunner().invoke(main, ["train", "--run", str(query_run), "--out", str(out)])
    assert result.exit_code == 130, result.output
    assert "no new record was saved" not in result.output
    assert "interrupted: the model folder was left as it was" in result.output
    work = out.parent / ".ner.work"
    assert f"kept {work} for the same command to resume from" in result.output
    assert sorted(p.name for p in out.parent.iterdir()) == [".ner.work"]
