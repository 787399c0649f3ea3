"""`gen score`: the questions of quality.yaml asked of every generated document, one score
each, stored in RUN/quality; failed answers kept with their reason; resumed without loss or
duplicates; the pack file validated like the others."""

from __future__ import annotations

import importlib
import json
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner
from fakes import ScriptedBackend
from quality_fakes import FACTS, QualityBackend, documents_run, generated_documents, parse, unused

from gen.backends.streak import BackendBrokenError
from gen.cli import main
from gen.core.errors import ConfigError, UsageError
from gen.core.packs import default_prompts_dir, load_language_pack
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from gen.quality.questions import QUESTIONS, asked, question_parts
from gen.quality.run import ScoreOptions, run


def scores(paths: RunPaths) -> dict[str, dict]:
    return {r.id: r.meta.get("quality") for r in RecordTable(paths.quality).read()}


def test_each_generated_document_gets_a_score_per_question_it_is_asked(tmp_path: Path) -> None:
    paths = documents_run(tmp_path)
    backend = QualityBackend()
    summary = run(paths, ScoreOptions(backend=backend))

    # persona only where the prompt was about the persona, facts only where planned; the
    # imported text is no generated document
    assert scores(paths) == {
        "d-health": {"real": 0.8, "language": 0.8, "persona": 0.9, "facts": 0.8},
        "d-judicial": {"real": 0.8, "language": 0.8, "persona": 0.9},
        "d-other": {"real": 0.8, "language": 0.8},
    }
    assert summary.documents == summary.scored == summary.new_scored == 3
    assert summary.failed == 0 and not RecordTable(paths.rejects("score")).exists()
    # every question is asked after the whole document: one prompt prefix per document
    by_document: dict[str, list[str]] = {}
    for prompt, labels in backend.scored:
        assert labels == [" yes", " Yes", " no", " No"]
        by_document.setdefault(parse(prompt)[0], []).append(prompt)
    for prompts in by_document.values():
        prefix = prompts[0].split("Question:")[0]
        assert all(prompt.startswith(prefix) for prompt in prompts)
    facts_prompt = by_document[scores_text(paths, "d-health")][-1]
    assert "- Mario Rossi has had type 2 diabetes since 2015\n" in facts_prompt
    assert f"- Mario Rossi {FACTS[1]}\n" in facts_prompt

    manifest = json.loads(paths.manifest("score").read_text())
    assert manifest["scored"] == 3 and manifest["model"] == "judge.gguf"
    assert manifest["questions"]["persona"] == {"scored": 2, "mean": 0.9, "failed": {}}
    assert manifest["questions"]["facts"]["scored"] == 1
    stored = RecordTable(paths.quality).read()[0]
    assert stored.meta["scoring"] == {"backend": "scripted", "model": "judge.gguf"}


def scores_text(paths: RunPaths, record_id: str) -> str:
    return next(r.text for r in RecordTable(paths.documents).read() if r.id == record_id)


def test_a_score_is_the_share_of_the_yes_words(tmp_path: Path) -> None:
    """The words of one answer add up, and the shares ignore what the model gives other
    words: the fake spreads only half of the probability over the four answer words."""
    paths = documents_run(tmp_path)
    backend = QualityBackend(lambda document, question: 0.25 if "English" in question else 0.6)
    run(paths, ScoreOptions(backend=backend))
    assert scores(paths)["d-other"] == {"real": 0.6, "language": 0.25}


def test_a_failed_answer_is_kept_with_its_reason_and_counted(tmp_path: Path) -> None:
    paths = documents_run(tmp_path)
    summary = run(paths, ScoreOptions(backend=QualityBackend(broken="Anna Verdi")))
    judicial = {r.id: r for r in RecordTable(paths.quality).read()}["d-judicial"]
    assert judicial.meta["quality"] == {}
    assert judicial.meta["quality_failed"] == {
        "real": "model_error",
        "language": "model_error",
        "persona": "model_error",
    }
    rejects = {r.id: r.meta for r in RecordTable(paths.rejects("score")).read()}
    assert sorted(rejects) == ["d-judicial:language", "d-judicial:persona", "d-judicial:real"]
    assert rejects["d-judicial:real"]["reason"] == "model_error"
    assert rejects["d-judicial:real"]["detail"] == "the server went away"
    assert rejects["d-judicial:real"]["document_id"] == "d-judicial"
    assert summary.failed == 3
    manifest = json.loads(paths.manifest("score").read_text())
    assert manifest["questions"]["real"]["failed"] == {"model_error": 1}
    assert manifest["failed_answers"] == manifest["rejects"] == 3


def test_a_prompt_over_the_context_fails_as_too_long_without_asking(tmp_path: Path) -> None:
    paths = documents_run(tmp_path)
    backend = QualityBackend()
    run(paths, ScoreOptions(backend=backend, context_tokens=60))
    assert backend.scored == []
    failed = [r.meta["quality_failed"] for r in RecordTable(paths.quality).read()]
    assert all(set(reasons.values()) == {"too_long"} for reasons in failed) and len(failed) == 3


def test_a_backend_that_keeps_failing_stops_the_stage_before_writing(tmp_path: Path) -> None:
    paths = documents_run(tmp_path)
    with pytest.raises(BackendBrokenError, match="failed 5 times in a row"):
        run(paths, ScoreOptions(backend=QualityBackend(broken=" ")))
    assert not RecordTable(paths.quality).exists()


def test_an_interrupted_run_resumes_without_losing_or_repeating_a_document(
    tmp_path: Path,
) -> None:
    paths = documents_run(tmp_path)
    first = QualityBackend(interrupt_at=6)  # during the second document's questions
    with pytest.raises(KeyboardInterrupt):
        run(paths, ScoreOptions(backend=first, batch_size=1))
    assert len(RecordTable(paths.quality).ids()) == 1  # the finished batch was kept

    second = QualityBackend()
    summary = run(paths, ScoreOptions(backend=second, batch_size=1))
    assert summary.new_scored == 2 and summary.scored == 3
    assert len(second.documents_asked()) == 2  # the stored document is not asked again
    frame = pd.read_parquet(paths.quality)
    assert sorted(frame["id"]) == ["d-health", "d-judicial", "d-other"]
    third = QualityBackend()
    assert run(paths, ScoreOptions(backend=third)).new_scored == 0 and third.scored == []


def test_another_model_needs_overwrite(tmp_path: Path) -> None:
    paths = documents_run(tmp_path)
    run(paths, ScoreOptions(backend=QualityBackend()))
    stronger = QualityBackend(lambda document, question: 0.3, model_id="stronger.gguf")
    with pytest.raises(
        UsageError, match=re.escape("was scored with judge.gguf, not stronger.gguf")
    ):
        run(paths, ScoreOptions(backend=stronger))
    run(paths, ScoreOptions(backend=stronger, overwrite=True))
    assert {score for s in scores(paths).values() for score in s.values()} == {0.3}


def test_a_backend_without_log_probabilities_is_refused(tmp_path: Path) -> None:
    paths = documents_run(tmp_path)
    with pytest.raises(UsageError, match="cannot score answers here"):
        run(paths, ScoreOptions(backend=ScriptedBackend(unused)))
    assert not (paths.root / "quality").exists()


def fake_model(monkeypatch: pytest.MonkeyPatch, backend: QualityBackend) -> None:
    module = importlib.import_module("gen.cli.score")
    monkeypatch.setattr(module, "make_backend", lambda options: backend)


def test_cli_scores_and_reports_each_question(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    documents_run(tmp_path)
    fake_model(monkeypatch, QualityBackend(broken="Anna Verdi"))
    result = CliRunner().invoke(main, ["score", "--run", str(tmp_path)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == f"3/3 documents scored by judge.gguf (3 new) in {tmp_path / 'quality'}"
    assert "  persona: 1 scored, mean 0.90; failed: model_error 1" in lines
    assert "  facts: 1 scored, mean 0.80" in lines
    assert f"3 failed answers, with reason and detail: {tmp_path / 'rejects' / 'score'}" in lines


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "error: no generated documents in {run}/documents; run `gen documents --run {run}`"),
        (["--prompt-format", "bogus"], "error: --prompt-format 'bogus': expected 'chat' or one"),
    ],
)
def test_cli_refusals_are_one_line_and_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], message: str
) -> None:
    if args:
        documents_run(tmp_path)
    fake_model(monkeypatch, QualityBackend())
    result = CliRunner().invoke(main, ["score", "--run", str(tmp_path), *args])
    assert result.exit_code == 2
    assert len(result.output.strip().splitlines()) == 1
    assert result.output.startswith(message.format(run=tmp_path)), result.output
    assert not (tmp_path / "quality").exists()


@pytest.fixture
def prompts(tmp_path: Path) -> Path:
    target = tmp_path / "prompts"
    shutil.copytree(default_prompts_dir(), target)
    return target


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "  persona: Is {name} the",
            "  persona: Is {nam} the",
            "line 40: questions.persona: unknown placeholder {nam}",
        ),
        (
            "  facts: |-\n    Does the document state every one of these facts about {name}, "
            "without contradicting any of them?\n    {facts}",
            "  facts: Are the facts there?",
            "line 42: questions.facts: the template must contain {facts}",
        ),
        (
            'instruction: |-\n  Document:\n  """\n  {document}\n  """\n\n  Question: {question}',
            "instruction: |-\n  Question: {question} {document}",
            "line 13: instruction: the template needs {document} once, then {question} once",
        ),
        ('  negative: ["no", "No"]', '  negative: ["no", "yes"]', "listed twice"),
        ('  positive: ["yes", "Yes"]', "  positive: [yes]", "answers.positive.0: Input should"),
    ],
)
def test_quality_yaml_is_validated_with_file_line_and_key(
    prompts: Path, old: str, new: str, message: str
) -> None:
    path = prompts / "en" / "quality.yaml"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    with pytest.raises(ConfigError) as error:
        load_language_pack("en", prompts).quality  # noqa: B018
    assert str(error.value).startswith(f"{path}:"), error.value
    assert message in str(error.value)


def test_packs_check_names_a_missing_quality_yaml(prompts: Path) -> None:
    (prompts / "fr" / "quality.yaml").unlink()
    result = CliRunner().invoke(
        main, ["packs", "check", "--prompts", str(prompts), "--personas", "2"]
    )
    assert result.exit_code == 2
    assert f"{prompts}/fr/quality.yaml: file not found" in result.output.splitlines()


@pytest.mark.parametrize("code", ["en", "it", "de", "es", "fr"])
def test_every_pack_asks_every_question_after_the_document(code: str) -> None:
    pack = load_language_pack(code)
    health = generated_documents()[0]
    assert asked(health, pack) == QUESTIONS
    after = {}
    for name in QUESTIONS:
        before, _, after[name] = question_parts(pack, health, name).instruction.partition(
            health.text
        )
        assert after[name] and "{" not in before + after[name]
    assert "Mario Rossi" in after["persona"]
    assert f"Mario Rossi {FACTS[0]}" in after["facts"] and FACTS[1] in after["facts"]
