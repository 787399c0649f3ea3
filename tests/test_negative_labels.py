"""The negative (`other`) category comes from prompts/categories.yaml everywhere: build,
the sentence exports, eval, stats (tests/test_stats.py), the inspect page
(tests/test_inspect.py) and the queries."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from gen.cli import main
from gen.core.errors import ConfigError
from gen.core.packs import default_prompts_dir, load_categories, negative_labels
from gen.core.records import Record, Span
from gen.core.store import RecordTable, write_records
from gen.dataset.assemble import assemble
from gen.dataset.options import BuildOptions
from gen.export.base import ExportJob, NoSettings
from gen.export.formats.sentences import ChunkSettings, chunk_rows, sentence_rows
from scraping.queries.generate import generate_queries

OTHER = "other: {label: other, sensitive: false"


def prompts_with(tmp_path: Path, *replacements: tuple[str, str]) -> Path:
    """A copy of the prompts folder whose categories.yaml has `replacements` applied."""
    prompts = tmp_path / "prompts"
    shutil.copytree(default_prompts_dir(), prompts)
    path = prompts / "categories.yaml"
    text = path.read_text(encoding="utf-8")
    for old, new in replacements:
        assert old in text
        text = text.replace(old, new)
    path.write_text(text, encoding="utf-8")
    return prompts


def test_the_shipped_categories_have_one_negative_label() -> None:
    assert negative_labels() == ("other",)
    assert load_categories().negative == ["other"]


def test_categories_without_a_negative_are_refused(tmp_path: Path) -> None:
    prompts = prompts_with(tmp_path, (OTHER, "other: {label: other, sensitive: true"))
    with pytest.raises(ConfigError, match=r"categories\.yaml.*sensitive: false"):
        load_categories(prompts)


def test_a_renamed_negative_label_reaches_every_default(tmp_path: Path) -> None:
    prompts = prompts_with(tmp_path, (OTHER, "other: {label: harmless, sensitive: false"))
    assert negative_labels(prompts) == ("harmless",)


def test_build_drops_negative_spans_instead_of_making_them_sensitive() -> None:
    text = "Anna has asthma. The weather was fine."
    record = Record("d", text, "health", "email", "en", "llm", [
        Span(0, 16, "health", "llm_sentences"),
        Span(17, len(text), "other", "llm_sentences"),
    ])  # fmt: skip
    for scheme in ("binary", "categories+pii"):
        options = BuildOptions(scheme=scheme, negative_labels=("other",))
        [built], _, report = assemble([record], [], [], options)
        assert [(s.start, s.end) for s in built.spans] == [(0, 16)]
        assert report.spans_dropped == {"negative": 1}
    kept = assemble([record], [], [], BuildOptions(negative_labels=("none",)))[0][0]
    assert [s.label for s in kept.spans] == ["health", "other"]


def test_sentence_exports_label_untouched_text_with_the_negative_label(tmp_path: Path) -> None:
    prompts = prompts_with(tmp_path, (OTHER, "other: {label: harmless, sensitive: false"))
    text = "Anna has asthma. The weather was fine."
    record = Record("d", text, "health", "email", "en", "llm", [Span(9, 15, "health")])
    job = ExportJob({"train": [record]}, tmp_path, NoSettings(), prompts)
    assert [label for _, label in sentence_rows(job, record)] == ["health", "harmless"]
    settings = ChunkSettings(chunk_width=2, context_width=2, stride=2)
    chunks = ExportJob({"train": [record]}, tmp_path, settings, prompts)
    assert [label for _, label in chunk_rows(chunks, record)] == [
        "harmless", "health", "harmless", "harmless", "harmless"
    ]  # fmt: skip


def test_eval_counts_the_negative_labels_of_the_prompts_as_no_label(tmp_path: Path) -> None:
    prompts = prompts_with(tmp_path, (OTHER, "other: {label: harmless, sensitive: false"))
    text = "Anna has asthma. The weather was fine."
    gold = Record("d", text, "health", "email", "en", "gold", [Span(9, 15, "health")])
    pred = Record("d", text, "health", "email", "en", "gold",
                  [Span(9, 15, "health"), Span(17, 38, "harmless")])  # fmt: skip
    files = [tmp_path / "gold.parquet", tmp_path / "pred.parquet"]
    write_records(files[0], [gold])
    write_records(files[1], [pred])
    args = ["eval", *map(str, files), "--format", "json"]
    result = CliRunner().invoke(main, [*args, "--prompts", str(prompts)])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["negative_labels"] == ["harmless"]
    assert payload["groups"]["all"]["labels"] == ["health"]
    assert payload["groups"]["all"]["token_scores"]["micro"]["f1"] == 1.0
    # With the shipped categories, `harmless` is a label like any other.
    default = json.loads(CliRunner().invoke(main, args).stdout)
    assert default["negative_labels"] == ["other"]
    assert default["groups"]["all"]["labels"] == ["harmless", "health"]


def test_queries_take_the_negative_category(tmp_path: Path) -> None:
    prompts = prompts_with(tmp_path, (OTHER, "none: {label: none, sensitive: false"))
    generate_queries(tmp_path / "run", locale="en_US", n=5, seed=0, prompts_dir=prompts)
    records = RecordTable(tmp_path / "run" / "queries").read()
    assert {record.category for record in records} == {"none"}
