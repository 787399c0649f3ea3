"""`gen bench` end to end against the loopback stub server: figures, JSON, no secrets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from stub_openai_server import StubOpenAIServer, fictional_document

from gen.backends.llama_cpp import LlamaCppOptions
from gen.backends.openai_backend import OpenAIOptions
from gen.bench.measure import censor_every_third_sentence
from gen.bench.report import Throughput
from gen.bench.run import BenchOptions, run
from gen.cli import main
from gen.core.runs import RunPaths


def test_throughput_figures() -> None:
    row = Throughput("x", documents=2, completion_tokens=100, seconds=4.0)
    assert row.tokens_per_second == 25.0
    assert row.documents_per_hour == 1800.0
    assert row.merged(row).tokens_per_second == 25.0


def test_censored_answer_replaces_every_third_sentence() -> None:
    text = "One is here. Two is there. Three is gone. Four stays."
    assert censor_every_third_sentence(text, "en") == (
        "One is here. [HEALTH_DATA] Three is gone. Four stays."
    )


def test_bench_against_a_server_measures_every_figure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GEN_BENCH_KEY", "sk-never-written")
    with StubOpenAIServer(answer=fictional_document) as server:
        backend = OpenAIOptions(base_url=server.url, api_key_env="GEN_BENCH_KEY", concurrency=2)
        options = BenchOptions(n=4, max_tokens=40, prompt_format="plain", backend=backend)
        report = run(RunPaths(tmp_path), options)
    assert server.peak <= 2
    labels = [row.label for row in report.rows]
    assert labels == [
        "raw engine",
        "pipeline (concurrency 2)",
        "labeling: sentences",
        "labeling: censor",
        "pipeline (concurrency 1)",
    ]
    assert [row.documents for row in report.rows] == [8, 4, 4, 4, 4]
    assert set(report.figures) == {
        "pipeline_to_engine_ratio",
        "document_rejection_rate",
        "concurrency_gain",
        "aligner_documents_per_second",
        "sentences_failure_rate",
        "censor_failure_rate",
        "pipeline_warmup_seconds",
    }
    assert report.figures["pipeline_to_engine_ratio"] > 0
    assert report.figures["document_rejection_rate"] == 0
    # The stub answers every labeling prompt with a document: never a usable label.
    assert report.figures["sentences_failure_rate"] == 1.0
    assert report.figures["censor_failure_rate"] == 1.0
    assert report.figures["aligner_documents_per_second"] > 0
    assert report.path is not None and report.path.parent == tmp_path / "bench"
    written = report.path.read_text()
    assert "sk-never-written" not in written
    assert json.loads(written)["backend"]["api_key_env"] == "GEN_BENCH_KEY"


def test_cli_prints_the_table_and_writes_json(tmp_path: Path) -> None:
    with StubOpenAIServer(answer=fictional_document) as server:
        result = CliRunner().invoke(
            main,
            ["bench", "--run", str(tmp_path), "--backend", "openai", "--base-url", server.url,
             "--concurrency", "1", "--n", "2", "--max-tokens", "40", "--prompt-format", "alpaca"],
        )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "pipeline / raw engine tokens/s" in result.output
    assert len(list((tmp_path / "bench").glob("bench-*.json"))) == 1


def test_cli_unreachable_server_is_one_clear_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["bench", "--run", str(tmp_path), "--backend", "openai"])
    assert result.exit_code == 2
    assert "--base-url" in result.output


@pytest.mark.model
def test_bench_on_the_embedded_model_compares_with_a_bare_llama_cpp_loop(tmp_path: Path) -> None:
    pytest.importorskip("llama_cpp")
    options = BenchOptions(n=1, max_tokens=34, backend=LlamaCppOptions(n_ctx=2048))
    report = run(RunPaths(tmp_path), options)
    assert report.notes == ["no document passed the checks: labeling was not measured"]
    labels = [row.label for row in report.rows]
    assert labels[:2] == ["raw engine", "pipeline (concurrency 1)"]
    assert report.rows[0].documents == 2  # timed before and after the pipeline
    assert report.rows[0].completion_tokens > 0
    assert report.figures["pipeline_to_engine_ratio"] > 0
    assert report.figures["prefix_reuse_gain"] > 0
    assert "concurrency_gain" not in report.figures
    assert 0 <= report.figures["pipeline_time_outside_engine"] < 1
