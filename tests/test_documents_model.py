"""The real embedded model through llama.cpp: two short documents end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from gen.backends import embedded_model_path
from gen.cli import main

pytestmark = pytest.mark.model


def test_two_documents_with_the_embedded_model(tmp_path: Path) -> None:
    assert embedded_model_path().stat().st_size > 50_000_000
    args = [
        "documents",
        "--run",
        str(tmp_path),
        "--category",
        "health",
        "--n",
        "2",
        "--max-tokens",
        "160",
        "--ctx",
        "1024",
        "--seed",
        "11",
    ]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    frame = pd.read_parquet(tmp_path / "documents")
    assert len(frame) == 2 and frame["id"].is_unique
    assert (frame["category"] == "health").all()
    assert frame["text"].str.len().min() >= 200
    assert not frame["text"].str.startswith("Sure! Here's").any()
    manifest = json.loads((tmp_path / "manifests" / "documents.json").read_text())
    plan = manifest["plans"]["en-health-all-s11"]
    assert plan["accepted"] == 2
    backend = plan["runs"][-1]["backend"]
    assert len(backend["model_sha256"]) == 64
    assert backend["backend"] == "llama.cpp"
    # the same command again resumes: nothing new is generated
    again = CliRunner().invoke(main, args)
    assert again.exit_code == 0 and "already has 2 documents" in again.output


def documents(tmp_path: Path, *args: str):
    return CliRunner().invoke(
        main, ["documents", "--run", str(tmp_path), "--category", "health", "--seed", "3", *args]
    )


def test_a_context_too_small_for_prompt_and_answer_is_refused(tmp_path: Path) -> None:
    result = documents(tmp_path, "--ctx", "320", "--max-tokens", "200")
    assert result.exit_code == 2
    error = result.output.strip().splitlines()[-1]
    assert "tokens; with --max-tokens 200 that is" in error
    assert "over --ctx 320: raise --ctx to" in error
    assert not (tmp_path / "documents").exists()


def test_answers_cut_by_max_tokens_end_with_exit_3_and_say_why(tmp_path: Path) -> None:
    result = documents(tmp_path, "--n", "1", "--max-tokens", "40", "--ctx", "1024")
    assert result.exit_code == 3, result.output
    error = result.output.strip().splitlines()[-1]
    assert "error: 0/1 documents for plan en-health-all-s3: every answer was too_short: " in error
    assert "--max-tokens 40 cannot reach min_chars 200" in error
