"""`gen documents` as a user runs it: what it prints, its exit status, its manifest."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner, Result
from stub_openai_server import StubOpenAIServer, fictional_document

import gen.generate.run as documents_stage
from gen.backends.base import Capabilities, GenerationRequest
from gen.cli import main
from gen.core.packs import load_language_pack
from tests.fakes import ScriptedBackend, table_held_elsewhere, unique_reply

PLAN = "en-health-all-s0"
REPO = Path(__file__).resolve().parents[1]


class Loader:
    """Stands in for make_backend: hands out `backend` and counts the loads."""

    def __init__(self, backend: ScriptedBackend) -> None:
        self.backend = backend
        self.loads = 0

    def __call__(self, options: object) -> ScriptedBackend:
        self.loads += 1
        return self.backend


@pytest.fixture
def use_backend(monkeypatch: pytest.MonkeyPatch):
    def install(backend: ScriptedBackend) -> Loader:
        loader = Loader(backend)
        monkeypatch.setattr(documents_stage, "make_backend", loader)
        return loader

    return install


def documents(run: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["documents", "--run", str(run), "--category", "health", *args])


def manifest(run: Path) -> dict:
    return json.loads((run / "manifests" / "documents.json").read_text())


def test_a_resume_with_a_smaller_n_changes_nothing_and_says_so(tmp_path: Path, use_backend) -> None:
    loader = use_backend(ScriptedBackend(unique_reply))
    first = documents(tmp_path, "--n", "5", "--max-tokens", "200")
    assert first.exit_code == 0, first.output
    again = documents(tmp_path, "--n", "2", "--max-tokens", "100")
    assert again.exit_code == 0, again.output
    assert "5/2" not in again.output
    assert f"plan {PLAN} already has 5 documents (--n 2): nothing to generate" in again.output
    assert loader.loads == 1  # no model is loaded for nothing

    runs = manifest(tmp_path)["plans"][PLAN]["runs"]
    assert [(r["status"], r["n"], r["new_documents"]) for r in runs] == [
        ("complete", 5, 5),
        ("nothing_to_do", 2, 0),
    ]
    assert runs[0]["max_tokens"] == 200 and "max_tokens" not in runs[1]
    meta = pd.read_parquet(tmp_path / "documents")["meta"].map(json.loads)
    assert set(meta.map(lambda m: m["run"])) == {runs[0]["run"]}

    more = documents(tmp_path, "--n", "7", "--max-tokens", "100")
    assert "7/7 documents" in more.output and "(2 new" in more.output
    plan = manifest(tmp_path)["plans"][PLAN]
    assert [r.get("max_tokens") for r in plan["runs"]] == [200, None, 100]
    assert plan["runs"][0] == runs[0] and plan["accepted"] == 7


def short_answer(request) -> str:
    return "Sure! Here's the generated document:\nPatient: Anna. Seen on Monday, stable, no"


def test_every_answer_too_short_exits_3_naming_max_tokens(tmp_path: Path, use_backend) -> None:
    use_backend(ScriptedBackend(short_answer, finish_reason="length"))
    result = documents(tmp_path, "--n", "2", "--max-tokens", "40")
    assert result.exit_code == 3
    assert "0/2 documents for plan" in result.output
    error = result.output.strip().splitlines()[-1]
    assert error.startswith(
        f"error: 0/2 documents for plan {PLAN}: every answer was too_short: --max-tokens 40 "
        "cannot reach min_chars 200"
    )
    assert "6 of 6 stopped at the token limit" in error
    assert "a re-run with the same options cannot help" in error
    assert manifest(tmp_path)["plans"][PLAN]["runs"][-1]["status"] == "short"


def test_a_model_that_repeats_itself_exits_3_naming_duplicates(tmp_path: Path, use_backend) -> None:
    same = unique_reply(GenerationRequest("referred to Anna Rossi of the type", seed=1))
    use_backend(ScriptedBackend(lambda request: same))
    result = documents(tmp_path, "--n", "3")
    assert result.exit_code == 3
    error = result.output.strip().splitlines()[-1]
    assert "error: 1/3 documents" in error
    assert "8 of 9 answers were exact_duplicate: the model keeps writing the same document" in error


def test_a_second_process_on_the_run_is_refused_before_loading_a_model(
    tmp_path: Path, use_backend
) -> None:
    folder = tmp_path / "documents"
    # Another process writing the plan's documents, e.g. a long `gen documents`.
    with table_held_elsewhere(folder) as holder:
        loader = use_backend(ScriptedBackend(unique_reply))
        refused = documents(tmp_path, "--n", "2")
        assert refused.exit_code == 2
        (line,) = refused.output.strip().splitlines()
        assert line.startswith(
            f"error: {folder} is being written by another process (pid {holder.pid}"
        )
        assert loader.loads == 0  # refused before the model load, not after it
    assert documents(tmp_path, "--n", "2").exit_code == 0
    assert loader.loads == 1


def test_max_tokens_that_cannot_reach_min_chars_is_refused_up_front(
    tmp_path: Path, use_backend
) -> None:
    loader = use_backend(ScriptedBackend(unique_reply))
    result = documents(tmp_path, "--n", "2", "--max-tokens", "20")
    assert result.exit_code == 2
    assert result.output.count("\n") == 1
    assert "error: --max-tokens 20 cannot reach checks.min_chars 200 of " in result.output
    assert "even at 6 characters per token" in result.output
    assert "use --max-tokens 34 or more" in result.output
    assert loader.loads == 0 and not any(tmp_path.iterdir())


class CountingBackend(ScriptedBackend):
    """A scripted backend with a tokenizer: 4 characters a token."""

    capabilities = Capabilities(counts_tokens=True)

    def count_tokens(self, text: str) -> int:
        return len(text) // 4


def test_a_prompt_that_does_not_fit_the_context_is_refused_up_front(
    tmp_path: Path, use_backend
) -> None:
    backend = CountingBackend(unique_reply)
    use_backend(backend)
    result = documents(tmp_path, "--n", "2", "--ctx", "400", "--max-tokens", "200")
    assert result.exit_code == 2
    assert "with --max-tokens 200 that is" in result.output
    assert "over --ctx 400: raise --ctx to" in result.output
    assert backend.requests == []


def test_without_max_tokens_the_context_check_names_the_type_s_budget(
    tmp_path: Path, use_backend
) -> None:
    backend = CountingBackend(unique_reply)
    use_backend(backend)
    result = documents(tmp_path, "--n", "2", "--ctx", "700")
    assert result.exit_code == 2
    error = result.output.strip()
    assert "-word document type (" in error and "x sampling.tokens_per_word 2.2 of " in error
    assert "over --ctx 700: raise --ctx to" in error and "or lower --max-tokens to" in error
    assert backend.requests == []


def test_a_budget_that_cannot_reach_min_chars_is_refused_up_front(
    tmp_path: Path, use_backend
) -> None:
    prompts = tmp_path / "prompts"
    shutil.copytree(REPO / "prompts", prompts)
    generation = prompts / "en" / "generation.yaml"
    generation.write_text(
        generation.read_text().replace("tokens_per_word: 2.2", "tokens_per_word: 0.1")
    )
    loader = use_backend(ScriptedBackend(unique_reply))
    result = documents(tmp_path / "run", "--n", "2", "--prompts", str(prompts))
    assert result.exit_code == 2
    shortest = min(t.words for t in load_language_pack("en", prompts).doc_types("health"))
    assert (
        f"error: the token budget {math.ceil(shortest * 0.1)} of a {shortest}-word document "
        f"type ({shortest} x sampling.tokens_per_word 0.1 of {generation}) cannot reach "
        "checks.min_chars 200"
    ) in result.output
    assert "use --max-tokens 34 or more" in result.output and loader.loads == 0


def test_documents_cut_by_the_server_context_are_flagged_and_counted(tmp_path: Path) -> None:
    with StubOpenAIServer(answer=fictional_document, finish_reason="length") as server:
        result = documents(
            tmp_path, "--backend", "openai", "--base-url", server.url, "--n", "2",
            "--max-tokens", "300", "--prompt-format", "plain",
        )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "2 documents were cut by the context window (--ctx)" in result.output
    frame = pd.read_parquet(tmp_path / "documents")
    assert frame["flags"].map(list).tolist() == [["ctx_truncated"], ["ctx_truncated"]]
    plan = manifest(tmp_path)["plans"][PLAN]
    assert plan["ctx_truncated"] == 2 and plan["runs"][-1]["ctx_truncated"] == 2


def test_a_manifest_whose_plans_are_not_an_object_is_one_line(tmp_path: Path, use_backend) -> None:
    """(Invalid JSON is tested with the other damaged files, in test_failures.py.)"""
    loader = use_backend(ScriptedBackend(unique_reply))
    (tmp_path / "manifests").mkdir()
    (tmp_path / "manifests" / "documents.json").write_text('{"plans": [1, 2]}')
    result = documents(tmp_path, "--n", "1")
    assert result.exit_code == 1
    assert (
        result.output.strip()
        .splitlines()[-1]
        .endswith(
            "documents.json: `plans` is not an object; it was damaged outside gen: restore it "
            "from a backup or move it away, then re-run"
        )
    )
    assert loader.loads == 0


def test_a_manifest_from_before_histories_keeps_its_settings_as_the_first_call(
    tmp_path: Path, use_backend
) -> None:
    use_backend(ScriptedBackend(unique_reply))
    old = {
        "plans": {
            PLAN: {"spec": {"language": "en"}, "n": 1, "accepted": 0, "max_tokens": 200,
                   "rejected": {"too_short": 2}, "last_run": {"new_documents": 0}},
        },
    }  # fmt: skip
    (tmp_path / "manifests").mkdir()
    (tmp_path / "manifests" / "documents.json").write_text(json.dumps(old))
    assert documents(tmp_path, "--n", "1").exit_code == 0
    plan = manifest(tmp_path)["plans"][PLAN]
    assert plan["runs"][0] == {"n": 1, "max_tokens": 200, "last_run": {"new_documents": 0}}
    assert plan["runs"][1]["new_documents"] == 1
    assert plan["rejected"] == {"too_short": 2} and "max_tokens" not in plan
