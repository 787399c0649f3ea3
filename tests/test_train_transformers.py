"""The transformers trainer on the CPU with a tiny BERT made in the test (no download)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from tiny_bert import make_tiny_bert

from gen.cli import main
from gen.core.packs import default_prompts_dir
from gen.core.records import check_spans
from gen.core.store import RecordTable
from gen.dataset.assemble import build_dataset
from gen.dataset.options import BuildOptions
from gen.predict.loader import load_detector
from scraping.queries.generate import generate_queries

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("seqeval")


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("hf-run")
    generate_queries(folder, locale="it_IT", n=60, seed=0, prompts_dir=default_prompts_dir())
    build_dataset(folder, BuildOptions())
    return folder


@pytest.fixture(scope="module")
def base(run, tmp_path_factory) -> Path:
    texts = [r.text for r in RecordTable(run / "dataset").read()]
    return make_tiny_bert(tmp_path_factory.mktemp("tiny-bert") / "bert", texts)


def _train(run: Path, base: Path, out: Path, *extra: str):
    options = ["--epochs", "1", "--length", "32", "--stride", "8", "--device", "cpu", *extra]
    return CliRunner().invoke(
        main,
        [
            *("train", "--run", str(run), "--out", str(out)),
            *("--trainer", "transformers", "--base-model", str(base)),
            *options,
        ],
    )


@pytest.fixture(scope="module")
def trained(run, base, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("hf-model") / "model"
    result = _train(run, base, out, "--batch-size", "8")
    assert result.exit_code == 0, result.output
    return out


def test_trains_on_the_cpu_and_writes_a_scored_detector(trained, run):
    info = json.loads((trained / "detector.json").read_text())
    assert info["trainer"] == "transformers" and info["device"] == "cpu"
    assert info["tags"][0] == "O" and "I-IBAN" in info["tags"]
    assert "eval_f1" in info["dev_score"]
    scores = json.loads((trained / "scores.json").read_text())
    assert scores["settings"]["class_weights"] == "inverse"
    manifest = json.loads((run / "export" / "hf-tokens" / "manifest.json").read_text())
    assert manifest["details"]["length"] == 32 and manifest["details"]["stride"] == 8


def test_predicts_exact_spans_on_long_non_ascii_text(trained):
    detector = load_detector(trained, window=16, overlap=4)
    text = " ".join(["Il sig. Ñandú Müller 😀 paga con IBAN IT60X0542811101000000123456 già."] * 8)
    (spans,) = detector.predict([text])
    check_spans(text, spans)
    assert all(s.source == "model" and s.score is not None and 0 <= s.score <= 1 for s in spans)
    assert all(text[s.start : s.end] == text[s.start : s.end].strip() for s in spans)


def test_an_interrupted_run_resumes_from_its_checkpoint(run, base, tmp_path):
    from gen.train import TrainSettings
    from gen.train.data import load_training_data
    from gen.train.transformers_trainer import TransformersTrainer

    trainer = TransformersTrainer()
    settings = TrainSettings(
        trainer="transformers", base_model=str(base), epochs=1, length=32, stride=8, batch_size=8
    )
    data = load_training_data(run, trainer.export_format, trainer.export_settings(settings))
    work = tmp_path / "work"
    work.mkdir()
    (tmp_path / "a").mkdir()
    first = trainer.fit(data, tmp_path / "a", settings, work)
    assert not first["resumed"] and list((work / "checkpoints").glob("checkpoint-*"))
    (tmp_path / "b").mkdir()
    assert trainer.fit(data, tmp_path / "b", settings, work)["resumed"]


def test_class_weights(tmp_path, run, base):
    from gen.train.transformers_trainer import class_weights

    rows = [{"labels": [-100, 0, 0, 0, 1, -100]}]
    weights = class_weights("inverse", ["O", "I-IBAN", "I-PERSON"], rows)
    assert weights[1] > weights[0] and weights[2] == 1.0
    assert class_weights("none", ["O"], rows) is None
    bad = tmp_path / "weights.json"
    bad.write_text(json.dumps({"I-NOPE": 2.0}))
    result = _train(run, base, tmp_path / "m", "--class-weights", str(bad))
    assert result.exit_code == 2 and "unknown tags ['I-NOPE']" in result.output


def test_a_window_is_read_on_the_first_sub_token_of_each_word():
    """As the export labels them: a word of gen.text.words takes its first sub-token's
    tag; the other pieces' predictions, and special and padding tokens, are not read."""
    import torch

    from gen.text.words import word_spans
    from gen.train.transformers_detector import read_window

    text = "Anna Rossi's e-mail"
    tags = ["O", "I-PERSON", "I-health"]
    offsets = [(0, 0), (0, 4), (5, 8), (8, 10), (10, 11), (11, 12), (13, 14), (14, 15)]
    offsets += [(15, 19), (0, 0), (0, 0)]  # [CLS] Anna Ros ##si ' s e - mail [SEP] [PAD]
    best = [2, 1, 1, 0, 2, 2, 0, 1, 1, 2, 2]
    probabilities = torch.nn.functional.one_hot(torch.tensor(best), 3) * 0.5 + 0.1
    words, found, scores = read_window(word_spans(text), offsets, probabilities, tags)
    assert [text[a:b] for a, b in words] == ["Anna", "Rossi's", "e-mail"]
    assert found == ["I-PERSON", "I-PERSON", "O"]
    assert scores == pytest.approx([0.6, 0.6, 0.6])
