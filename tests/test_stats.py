import json

import pytest
from build_fixtures import make_run
from click.testing import CliRunner

from gen.cli import main
from gen.core.errors import UsageError
from gen.core.packs import default_prompts_dir
from gen.core.records import Record, Span
from gen.core.runs import RunPaths
from gen.dataset.assemble import build_dataset
from gen.dataset.options import BuildOptions
from gen.dataset.splits import parse_ratios
from gen.export.run import ExportOptions
from gen.export.run import run as export_run
from gen.inspect.stats import chart_png, compute_stats
from gen.inspect.tables import document_table, label_table


def test_label_table_shares_sum_to_one_and_count_other():
    records = [
        Record(
            "a",
            "Anna has asthma.",
            "health",
            "email",
            "en",
            "llm",
            [Span(9, 15, "health", "llm_censor"), Span(0, 4, "PERSON", "faker")],
        ),
        Record("b", "Budget approved.", "other", "report", "en", "llm"),
    ]
    table = label_table(records, "other").set_index("label")
    assert table.loc["health", "chars"] == 6
    assert table.loc["PERSON", "words"] == 1
    assert table.loc["other", "chars"] == 32 - 10
    assert table["char_share"].sum() == pytest.approx(1, abs=1e-3)
    assert table["word_share"].sum() == pytest.approx(1, abs=1e-3)
    assert list(table.index)[-1] == "other"


def test_document_table_counts_and_averages():
    records = [
        Record("a", "x" * 10, "health", "email", "en", "llm"),
        Record("b", "x" * 20, "health", "email", "en", "llm"),
        Record("c", "x" * 5, "other", "memo", "en", "llm"),
    ]
    table = document_table(records, ["category", "doc_type"])
    assert table.to_dict("records") == [
        {"category": "health", "doc_type": "email", "documents": 2, "avg_chars": 15.0},
        {"category": "other", "doc_type": "memo", "documents": 1, "avg_chars": 5.0},
    ]


def test_compute_stats_before_and_after_build_and_export(tmp_path):
    make_run(tmp_path)
    before = compute_stats(tmp_path)
    assert before.basis == "stages"
    assert before.flagged == {"alignment_low": 4}
    assert before.splits.empty
    build_dataset(tmp_path, BuildOptions())
    export_run(RunPaths(tmp_path), ExportOptions("jsonl", parse_ratios("0.8,0.1,0.1")))
    after = compute_stats(tmp_path)
    assert after.basis == "dataset"
    assert after.rejected == {"build: exact_duplicate": 1, "build: near_duplicate": 1}
    assert after.export_format == "jsonl"
    manifest = json.loads((tmp_path / "export" / "jsonl" / "manifest.json").read_text())
    per_split = after.splits.groupby("split")["documents"].sum().to_dict()
    assert per_split == manifest["counts"]
    assert after.models == ["SmolLM2-135M-Instruct"]


def test_chart_png_is_a_png(tmp_path):
    make_run(tmp_path)
    png = chart_png(compute_stats(tmp_path))
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 1000


def test_empty_run_is_a_usage_error(tmp_path):
    with pytest.raises(UsageError, match="gen build"):
        compute_stats(tmp_path)


def test_cli_stats_prints_and_writes(tmp_path):
    make_run(tmp_path)
    result = CliRunner().invoke(main, ["stats", "--run", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "alignment_low" in result.output
    written = {p.name for p in (tmp_path / "stats").iterdir()}
    assert written == {
        "stats.md",
        "labels.csv",
        "categories.csv",
        "doc_types.csv",
        "splits.csv",
        "rejects.csv",
        "chart.png",
    }
    assert "| health |" in (tmp_path / "stats" / "stats.md").read_text()
    empty = CliRunner().invoke(main, ["stats", "--run", str(tmp_path / "none")])
    assert empty.exit_code == 2


def test_text_outside_spans_takes_the_negative_label_of_categories_yaml(tmp_path):
    make_run(tmp_path / "run")
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    categories = (default_prompts_dir() / "categories.yaml").read_text(encoding="utf-8")
    (prompts / "categories.yaml").write_text(
        categories.replace("other: {label: other,", "other: {label: harmless,"), encoding="utf-8"
    )
    args = ["stats", "--run", str(tmp_path / "run"), "--prompts", str(prompts)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    labels = (tmp_path / "run" / "stats" / "labels.csv").read_text().splitlines()
    assert labels[-1].startswith("harmless,0,")  # uncovered text, listed last
    assert not any(line.startswith("other,") for line in labels)
