"""The whole pipeline with a capable model: opt-in, never needed by CI.

    GEN_TEST_MODEL=~/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf \\
        .venv/bin/python -m pytest -m capable

Skipped when `GEN_TEST_MODEL` is unset. One document is written with inline tags, labeled
by every strategy, built with Faker queries, trained on and scored on the gold test split:
what a user runs, with the model they run it with.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from gen.cli import main
from gen.core.records import Span, check_spans

MODEL = os.environ.get("GEN_TEST_MODEL", "")
GOLD_TEST = Path(__file__).resolve().parents[1] / "bench" / "gold" / "gold-test.jsonl"

pytestmark = [
    pytest.mark.capable,
    pytest.mark.skipif(not MODEL, reason="GEN_TEST_MODEL names no GGUF file"),
]


def gen(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_one_document_written_labeled_by_every_strategy_built_trained_and_scored(
    tmp_path: Path,
) -> None:
    run = ["--run", str(tmp_path)]
    model = ["--model", MODEL]
    gen(
        "documents",
        *run,
        *model,
        "--category",
        "health",
        "--n",
        "1",
        "--inline-labels",
        "--max-tokens",
        "500",
        "--seed",
        "5",
    )
    documents = pd.read_parquet(tmp_path / "documents")
    assert len(documents) == 1 and len(documents["text"].iloc[0]) >= 200

    gen("label", *run, *model, "--strategy", "all")
    labeled = pd.read_parquet(tmp_path / "labeled")
    text, spans = labeled["text"].iloc[0], list(labeled["spans"].iloc[0])
    check_spans(text, [Span.from_dict(s) for s in spans], record_id="capable")
    manifest = json.loads((tmp_path / "manifests" / "label.json").read_text())
    for name in ("sentences", "censor", "inline"):
        statuses = manifest["strategies"][name]
        assert sum(statuses.values()) >= 1, (name, statuses)
    # a capable model finds the health passages of a health document it was asked to write
    assert any(s["label"] == "health" for s in spans), spans

    gen("queries", *run, "--n", "60")
    gen("build", *run)
    output = gen("train", *run, "--gold", str(GOLD_TEST), "--epochs", "2")
    scores = json.loads((tmp_path / "models" / "spacy" / "scores.json").read_text())
    assert "gold" in scores["sets"], output
