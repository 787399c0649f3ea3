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
    assert len(plan["backend"]["model_sha256"]) == 64
    assert plan["backend"]["backend"] == "llama.cpp"
    # the same command again resumes: nothing new is generated
    again = CliRunner().invoke(main, args)
    assert again.exit_code == 0 and "(0 new" in again.output
