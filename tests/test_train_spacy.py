"""`gen train` (spaCy) and `gen predict` on Faker queries: the loop closes and scores well."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from gen.cli import main
from gen.core.packs import default_prompts_dir
from gen.core.record_files import read_record_file as read_records
from gen.core.records import Span, check_spans
from gen.core.store import RecordTable
from gen.dataset.assemble import build_dataset
from gen.dataset.options import BuildOptions
from gen.evaluate.run import evaluate
from gen.predict.loader import load_detector
from gen.train import TrainSettings
from gen.train.run import train_detector
from scraping.queries.generate import generate_queries

pytest.importorskip("spacy")

#: Entity F1 floors on held-out queries of another seed (chance is about 0).
STRICT_F1_FLOOR = 0.5
TOKEN_F1_FLOOR = 0.6
#: Strict F1 floor in a long document whose filler lines ("Über Ñandú — naïve façade")
#: look like nothing in the queries: capitalised foreign words draw invented names.
LONG_DOCUMENT_STRICT_F1_FLOOR = 0.4


def queries_run(folder: Path, n: int, seed: int) -> Path:
    generate_queries(folder, locale="en_US", n=n, seed=seed, prompts_dir=default_prompts_dir())
    build_dataset(folder, BuildOptions())
    return folder


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    return queries_run(tmp_path_factory.mktemp("train-run"), 900, seed=0)


@pytest.fixture(scope="module")
def heldout(tmp_path_factory) -> Path:
    """Queries of another seed, written as a gold JSONL file."""
    folder = tmp_path_factory.mktemp("heldout")
    generate_queries(folder, locale="en_US", n=60, seed=7, prompts_dir=default_prompts_dir())
    path = folder / "gold.jsonl"
    rows = [
        {"id": r.id, "text": r.text, "spans": [s.to_dict() for s in r.spans]}
        for r in RecordTable(folder / "queries").read()
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def trained(run, heldout):
    out = run / "models" / "ner"
    result = CliRunner().invoke(
        main,
        [
            "train",
            "--run",
            str(run),
            "--out",
            str(out),
            "--gold",
            str(heldout),
            "--epochs",
            "12",
            "--learning-curve",
            "0.5,1.0",
        ],
    )
    assert result.exit_code == 0, result.output
    return out, result.stdout


def test_detector_finds_identifiers_in_held_out_queries(trained):
    out, _ = trained
    scores = json.loads((out / "scores.json").read_text())["sets"]
    gold = scores["gold"]["evaluation"]["groups"]["all"]
    assert gold["entities"]["strict"]["overall"]["f1"] >= STRICT_F1_FLOOR
    assert gold["token_scores"]["micro"]["f1"] >= TOKEN_F1_FLOOR
    assert (
        scores["test"]["evaluation"]["groups"]["all"]["token_scores"]["micro"]["f1"]
        >= TOKEN_F1_FLOOR
    )


def test_output_prints_the_thesis_tables_and_the_card_holds_data_labels_settings(trained):
    out, output = trained
    for table in (
        "Tokens (overlap per label)",
        "sensitive (binary)",
        "Documents (positive",
        "Entities (SemEval-2013 schemes)",
    ):
        assert table in output
    assert "Scores on gold" in output and "documents/s" in output
    card = (out / "README.md").read_text()
    assert "## Data" in card and "## Settings" in card and "component: ner" in card
    assert "| gold |" in card and "EMAIL" in card
    info = json.loads((out / "detector.json").read_text())
    assert info["trainer"] == "spacy" and "EMAIL" in info["labels"]
    data = json.loads((out / "data.json").read_text())
    assert data["train_records"] == len(data["splits"]["train"]) > 100


def test_a_cut_confusion_matrix_points_to_the_scores_file_not_to_a_missing_option(tmp_path):
    run = queries_run(tmp_path / "run", 60, seed=1)
    out = tmp_path / "model"
    result = CliRunner().invoke(
        main,
        ["train", "--run", str(run), "--out", str(out), "--epochs", "1"],
        env={"COLUMNS": "80"},
    )
    assert result.exit_code == 0, result.output
    for text in (result.output, (out / "test.txt").read_text(encoding="utf-8")):
        assert "--format json" not in text
        assert "scores.json in the model folder has it whole)" in text


def test_output_ends_with_where_the_model_is_and_the_next_command(trained):
    out, output = trained
    last = output.strip().splitlines()[-3:]
    assert last[0] == f"model: {out}"
    assert last[1] == (
        f"card {out / 'README.md'}, scores {out / 'scores.json'} "
        f"(tables: {out / 'test.txt'}, {out / 'gold.txt'})"
    )
    assert last[2] == f"next: gen predict --model {out} INPUT --out predictions.jsonl"


def test_learning_curve_table_and_png(trained):
    out, _ = trained
    curve = json.loads((out / "curve.json").read_text())
    assert [point["share"] for point in curve] == [0.5, 1.0]
    assert curve[0]["records"] < curve[1]["records"]
    assert "| 0.5 |" in (out / "curve.md").read_text()
    assert (out / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # work and staging folders are cleaned up, and the lock file goes with the lock
    assert [p.name for p in out.parent.glob(".*")] == []


def test_predict_is_exact_on_non_ascii_text_and_documents_longer_than_a_window(
    trained, heldout, tmp_path
):
    out, _ = trained
    queries = read_records(heldout)[:25]
    filler = "\n\nÜber Ñandú — 😀 naïve façade. "
    text, spans = "", []
    for record in queries:
        text += filler
        spans += [Span(s.start + len(text), s.end + len(text), s.label) for s in record.spans]
        text += record.text
    source = tmp_path / "long.jsonl"
    source.write_text(json.dumps({"id": "long", "text": text}) + "\n", encoding="utf-8")
    result = CliRunner().invoke(
        main,
        [
            "predict",
            str(source),
            "--model",
            str(out),
            "--out",
            str(tmp_path / "p.jsonl"),
            "--window",
            "40",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "documents/s" in result.output
    (predicted,) = read_records(tmp_path / "p.jsonl")
    assert predicted.text == text and len(text.split()) > 3 * 40
    check_spans(text, predicted.spans)
    assert all(s.source == "model" for s in predicted.spans)
    evaluation = evaluate([replace(predicted, spans=spans)], [predicted])
    assert evaluation.groups["all"].entities["strict"].overall.f1 >= LONG_DOCUMENT_STRICT_F1_FLOOR


def test_predict_a_folder_of_text_files_and_a_run_split(trained, run, tmp_path):
    out, _ = trained
    folder = tmp_path / "texts"
    folder.mkdir()
    (folder / "a.txt").write_text(
        "Écrivez à josé.álvarez@example.com 😀 ou au +1 202 555 0147.", encoding="utf-8"
    )
    runner = CliRunner()
    result = runner.invoke(
        main, ["predict", str(folder), "--model", str(out), "--out", str(tmp_path / "a.parquet")]
    )
    assert result.exit_code == 0, result.output
    (record,) = read_records(tmp_path / "a.parquet")
    assert record.id == "a"  # the id gen import gives the file
    check_spans(record.text, record.spans)
    result = runner.invoke(
        main,
        [
            "predict",
            str(run),
            "--split",
            "test",
            "--model",
            str(out),
            "--out",
            str(tmp_path / "t.jsonl"),
        ],
    )
    assert result.exit_code == 0, result.output
    manifest = json.loads((run / "export" / "spacy" / "manifest.json").read_text())
    assert sorted(r.id for r in read_records(tmp_path / "t.jsonl")) == sorted(
        manifest["splits"]["test"]
    )


def test_spancat_gives_scored_spans(run, tmp_path):
    settings = TrainSettings(component="spancat", epochs=4, max_span_words=6)
    report = train_detector(run, settings, out=tmp_path / "spancat")
    assert report.info["component"] == "spancat"
    detector = load_detector(tmp_path / "spancat")
    texts = ["Send it to anna.bell@example.org or call 202-555-0147 today."]
    (spans,) = detector.predict(texts)
    check_spans(texts[0], spans)
    assert spans and all(s.score is not None and 0 < s.score <= 1 for s in spans)


def test_base_model_tok2vec_is_reused(run, tmp_path):
    import spacy

    base = spacy.blank("en")
    base.add_pipe("tok2vec")
    base.initialize()
    base.to_disk(tmp_path / "base")
    report = train_detector(
        run, TrainSettings(base_model=str(tmp_path / "base"), epochs=2), out=tmp_path / "m"
    )
    assert report.info["language"] == "en"
    assert json.loads((tmp_path / "m" / "model" / "meta.json").read_text())["pipeline"] == [
        "tok2vec",
        "ner",
    ]
