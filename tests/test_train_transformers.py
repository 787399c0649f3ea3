"""The transformers trainer on the CPU with a tiny BERT made in the test (no download):
training, resuming after kill -9, exact offsets, thresholds, snapping, the folder checks,
and the commands that take its model."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from review_data import make_run
from tiny_bert import make_tiny_bert

from gen.backends.cpu_share import available_cores
from gen.backends.models import file_sha256
from gen.cli import main
from gen.core.packs import default_prompts_dir
from gen.core.records import Record, Span, check_spans
from gen.core.store import RecordTable
from gen.dataset.assemble import build_dataset
from gen.dataset.options import BuildOptions
from gen.importing.run import import_files
from gen.predict.loader import load_detector
from gen.text.words import word_spans, word_tags
from scraping.queries.generate import generate_queries

pytest.importorskip("torch")
pytest.importorskip("transformers")

ROOT = Path(__file__).resolve().parents[1]
GOLD_DEV = ROOT / "bench" / "gold" / "gold-dev.jsonl"
#: Padded with blanks, accents decomposed and composed, emoji, CJK, a no-break space.
ODD = (
    "  \t Il sig. Ñandú Mu\u0308ller 😀 paga con IBAN IT60X0542811101000000123456 già."
    "\u00a0東京 \n "
)


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    """Italian queries (identifiers) and six hand-labeled documents (special categories)."""
    folder = tmp_path_factory.mktemp("hf-run")
    generate_queries(folder, locale="it_IT", n=40, seed=0, prompts_dir=default_prompts_dir())
    source = folder / "some-gold.jsonl"
    source.write_text("\n".join(GOLD_DEV.read_text(encoding="utf-8").splitlines()[:6]) + "\n")
    import_files(folder, [source], "gold")
    build_dataset(folder, BuildOptions())
    return folder


@pytest.fixture(scope="module")
def base(run, tmp_path_factory) -> Path:
    texts = [r.text for r in RecordTable(run / "dataset").read()]
    return make_tiny_bert(tmp_path_factory.mktemp("tiny-bert") / "bert", texts)


def _args(run: Path, base: Path, out: Path, *extra: str, epochs: int = 2) -> list[str]:
    return [
        *("train", "--run", str(run), "--out", str(out)),
        *("--trainer", "transformers", "--base-model", str(base)),
        *("--epochs", str(epochs), "--length", "64", "--stride", "16", "--device", "cpu", *extra),
    ]


@pytest.fixture(scope="module")
def trained(run, base, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("hf-model") / "model"
    result = CliRunner().invoke(main, _args(run, base, out))
    assert result.exit_code == 0, result.output
    return out


def test_trains_on_the_cpu_and_writes_a_scored_detector(trained, run, base):
    info = json.loads((trained / "detector.json").read_text())
    assert info["trainer"] == "transformers" and info["device"] == "cpu"
    assert info["tags"][0] == "O" and "I-IBAN" in info["tags"] and "I-health" in info["tags"]
    assert sorted(info["thresholds"]) == info["labels"]
    assert all(0 < t < 1 for t in info["thresholds"].values())
    assert set(info["snap"]) <= set(info["labels"]) and info["unit"] == "clause"
    assert info["threads"] == available_cores() and info["languages"][0] in ("it", "en")
    assert len(info["dev_f1_by_epoch"]) == 2 and 1 <= info["best_epoch"] <= 2
    assert set(info["dev_score"]) == {"precision", "recall", "f1"}
    sha = file_sha256(base / "model.safetensors")
    assert info["base_model"] == str(base) and info["base_model_sha256"] == {
        "model.safetensors": sha
    }
    assert sha in (trained / "README.md").read_text()
    from transformers import AutoModelForTokenClassification

    model = AutoModelForTokenClassification.from_pretrained(trained / "model")
    every = sum(p.numel() for p in model.parameters())
    words = model.get_input_embeddings().weight.numel()
    assert info["trainable_parameters"] == every - words  # the word embeddings stay frozen
    scores = json.loads((trained / "scores.json").read_text())
    assert scores["settings"]["class_weights"] == "sqrt" and scores["settings"]["length"] == 64
    manifest = json.loads((run / "export" / "hf-tokens" / "manifest.json").read_text())
    assert manifest["details"]["length"] == 64 and manifest["details"]["stride"] == 16
    # The detector cuts texts with the base model's own tokenizer file.
    assert (trained / "model" / "tokenizer.json").read_bytes() == (
        base / "tokenizer.json"
    ).read_bytes()


def test_a_run_killed_with_sigkill_resumes_from_its_last_whole_checkpoint(run, base, tmp_path):
    out = tmp_path / "model"
    args = _args(run, base, out, "--train-embeddings", "--threads", "1", epochs=12)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    command = [sys.executable, "-c", "from gen.cli import main; main()", *args]
    process = subprocess.Popen(
        command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    checkpoints = tmp_path / ".model.work" / "full" / "checkpoints"
    deadline = time.monotonic() + 600
    while not list(checkpoints.glob("checkpoint-*/trainer_state.json")):
        assert process.poll() is None, "the training ended before its first checkpoint"
        assert time.monotonic() < deadline
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert not out.exists()
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    info = json.loads((out / "detector.json").read_text())
    assert info["resumed"] and len(info["dev_f1_by_epoch"]) == 12 and info["threads"] == 1
    from transformers import AutoModelForTokenClassification

    model = AutoModelForTokenClassification.from_pretrained(out / "model")
    assert info["trainable_parameters"] == sum(p.numel() for p in model.parameters())
    assert not (tmp_path / ".model.work").exists()


def test_a_checkpoint_left_half_written_is_removed_and_the_one_before_resumed(tmp_path):
    from gen.train.transformers_loop import resume_point

    for step, state in ((4, '{"global_step": 4}'), (8, '{"global_st'), (12, None)):
        folder = tmp_path / f"checkpoint-{step}"
        folder.mkdir()
        (folder / "model.safetensors").write_bytes(b"...")
        if state is not None:
            (folder / "trainer_state.json").write_text(state)
    assert resume_point(tmp_path) == (tmp_path / "checkpoint-4", 4)
    assert [p.name for p in tmp_path.iterdir()] == ["checkpoint-4"]
    assert resume_point(tmp_path / "none") is None


def test_words_read_through_windows_give_back_every_span_exactly(base):
    """A classifier right on every first sub-token, read through small windows of the
    tiny model's tokenizer, gives back the spans at exact character offsets."""
    from gen.export.formats.hf_tokens import (
        cut_into_windows,
        encode_windows,
        load_tokenizer,
        window_word_starts,
    )
    from gen.train.token_tags import decide, scored_spans, word_probabilities

    text = ODD * 3
    iban = "IT60X0542811101000000123456"
    spans = [
        Span(start, start + len(iban), "IBAN", "gold")
        for start in (i for i in range(len(text)) if text.startswith(iban, i))
    ]
    person = text.index("Ñandú Mu\u0308ller")
    spans.append(Span(person, person + len("Ñandú Mu\u0308ller"), "PERSON", "gold"))
    tags = ["O", "I-IBAN", "I-PERSON"]
    words = word_spans(text)
    gold = [tags.index(tag) for tag in word_tags(words, spans)]
    tokenizer = load_tokenizer(base)
    cut_into_windows(tokenizer, 12, 4)
    encodings = encode_windows(tokenizer, text)
    assert len(encodings) > 5
    starts = [window_word_starts(encoding, words) for encoding in encodings]
    noise = np.random.default_rng(0)
    windows = [
        np.eye(3)[[0 if word is None else gold[word] for word in window]] * 0.7
        + noise.uniform(0, 0.1, (len(window), 3))
        for window in starts
    ]
    probabilities = word_probabilities(len(words), starts, windows, 3)
    found = scored_spans(words, decide(probabilities, np.full(2, 0.5)), probabilities, tags, "m")
    assert [(s.start, s.end, s.label) for s in found] == sorted(
        (s.start, s.end, s.label) for s in spans
    )


def _edited(trained: Path, tmp_path: Path, **changes: object) -> Path:
    folder = tmp_path / "copy"
    shutil.copytree(trained, folder)
    info = json.loads((folder / "detector.json").read_text())
    info.update(changes)
    (folder / "detector.json").write_text(json.dumps(info))
    return folder


def test_offsets_are_exact_on_padded_non_ascii_text_alone_or_in_a_batch(trained, tmp_path):
    """With every threshold at 0 each word is labeled: the spans then cover exactly the
    words of the text, whitespace and padding tokens left out; at 1 nothing is."""
    info = json.loads((trained / "detector.json").read_text())
    anything = _edited(trained, tmp_path, thresholds=dict.fromkeys(info["labels"], 0.0))
    detector = load_detector(anything, window=16, overlap=4)
    long = ODD * 12
    alone = detector.predict([ODD])
    together = detector.predict([ODD, long, ""])
    assert together[0] == alone[0] and together[2] == []
    for text, spans in zip([ODD, long], together, strict=False):
        check_spans(text, spans)
        assert all(s.source == "model" and 0 <= s.score <= 1 for s in spans)
        words = word_spans(text)
        assert {s.start for s in spans} <= {a for a, _ in words}
        assert {s.end for s in spans} <= {b for _, b in words}
        assert all(any(s.start <= a and b <= s.end for s in spans) for a, b in words)
    nothing = _edited(trained, tmp_path / "none", thresholds=dict.fromkeys(info["labels"], 1.0))
    assert load_detector(nothing).predict([ODD, long]) == [[], []]


def test_the_model_serves_predict_label_and_review_selection(trained, tmp_path):
    runner = CliRunner()
    source = tmp_path / "input.jsonl"
    source.write_text(json.dumps({"id": "a", "text": ODD}) + "\n")
    out = tmp_path / "found.jsonl"
    result = runner.invoke(
        main, ["predict", str(source), "--model", str(trained), "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    (row,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert row["text"] == ODD
    letter = tmp_path / "letter.txt"
    letter.write_text("Anna Rossi soffre di diabete dal 2019. " * 4, encoding="utf-8")
    run = tmp_path / "run"
    import_files(run, [letter], "documents")
    args = ["label", "--run", str(run), "--strategy", "detector", "--detector", str(trained)]
    result = runner.invoke(main, [*args, "--min-score", "0"])
    assert result.exit_code == 0, result.output
    (labeled,) = RecordTable(run / "labeled").read()
    check_spans(labeled.text, labeled.spans)
    assert all(s.source == "detector" and s.score is not None for s in labeled.spans)
    review_run = make_run(tmp_path / "review-run")
    push = ["review", "push", "--run", str(review_run), "--out", str(tmp_path / "tasks")]
    push += ["--select", "uncertain", "--sample", "1", "--detector", str(trained)]
    result = runner.invoke(main, push)
    assert result.exit_code == 0, result.output
    assert "wrote 1 tasks" in result.output


def _truncate_weights(folder: Path) -> None:
    weights = folder / "model" / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:100])


def _edit(**changes: object):  # type: ignore[no-untyped-def]
    def change(folder: Path) -> None:
        info = json.loads((folder / "detector.json").read_text())
        info.update(changes)
        (folder / "detector.json").write_text(json.dumps(info))

    return change


DAMAGES = {
    "truncated weights": (_truncate_weights, "cannot load the model in"),
    "no tokenizer": (
        lambda f: (f / "model" / "tokenizer.json").unlink(),
        "tokenizer.json not found",
    ),
    "a threshold of 2": (_edit(thresholds={"IBAN": 2.0}), "thresholds"),
    "tags not the model's": (_edit(tags=["O", "I-IBAN"], thresholds={"IBAN": 0.5}), "differ from"),
    "older format": (_edit(format=None), "format None"),
    "snap of an unknown label": (_edit(snap=["nope"]), "snap ['nope']"),
}


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_a_damaged_model_folder_is_one_line_everywhere_it_is_loaded(trained, tmp_path, damage):
    folder = tmp_path / "damaged"
    shutil.copytree(trained, folder)
    change, message = DAMAGES[damage]
    change(folder)
    source = tmp_path / "input.jsonl"
    source.write_text(json.dumps({"id": "a", "text": "Anna ha l'asma."}) + "\n")
    run = tmp_path / "run"
    import_files(run, [source], "documents")
    review_run = make_run(tmp_path / "review-run")
    commands = [
        ["predict", str(source), "--model", str(folder), "--out", str(tmp_path / "p.jsonl")],
        ["label", "--run", str(run), "--strategy", "detector", "--detector", str(folder)],
        ["review", "push", "--run", str(review_run), "--out", str(tmp_path / "tasks"),
         "--select", "uncertain", "--sample", "1", "--detector", str(folder)],
    ]  # fmt: skip
    for args in commands:
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 2, result.output
        (line,) = [line for line in result.output.splitlines() if line.startswith("error:")]
        assert message in line and "Traceback" not in result.output
    assert not (tmp_path / "p.jsonl").exists() and not (tmp_path / "tasks").exists()
    assert not RecordTable(run / "labeled").read()


def test_a_base_folder_without_a_fast_tokenizer_is_refused_in_one_line(run, base, tmp_path):
    slow = tmp_path / "slow"
    shutil.copytree(base, slow)
    (slow / "tokenizer.json").unlink()
    out = tmp_path / "m"
    result = CliRunner().invoke(main, _args(run, slow, out))
    assert result.exit_code == 2
    (line,) = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert f"base model {slow} has no tokenizer.json" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["slow"]


def test_windows_longer_than_the_model_reads_are_refused_in_one_line(trained, run, base, tmp_path):
    result = CliRunner().invoke(main, _args(run, base, tmp_path / "m", "--length", "200"))
    assert result.exit_code == 2 and not (tmp_path / "m").exists()
    (line,) = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert "--length 200 is longer than the 128 tokens the model reads" in line
    source = tmp_path / "input.jsonl"
    source.write_text(json.dumps({"id": "a", "text": ODD}) + "\n")
    args = ["predict", str(source), "--model", str(trained), "--out", str(tmp_path / "p.jsonl")]
    result = CliRunner().invoke(main, [*args, "--window", "500"])
    assert result.exit_code == 2 and "--window 500 is longer than the 128 tokens" in result.output


def test_class_weights(tmp_path, run, base):
    from gen.train.transformers_loop import class_weights

    rows = [{"labels": [-100, 0, 0, 0, 1, -100]}]
    tags = ["O", "I-IBAN", "I-PERSON"]
    inverse = class_weights("inverse", tags, rows)
    assert inverse[1] > inverse[0] and inverse[2] == 1.0
    assert class_weights("sqrt", tags, rows) == pytest.approx([w**0.5 for w in inverse[:2]] + [1.0])
    assert class_weights("none", ["O"], rows) is None
    bad = tmp_path / "weights.json"
    bad.write_text(json.dumps({"I-NOPE": 2.0}))
    result = CliRunner().invoke(main, _args(run, base, tmp_path / "m", "--class-weights", str(bad)))
    assert result.exit_code == 2 and "unknown tags ['I-NOPE']" in result.output


def test_a_unit_takes_the_label_most_of_its_words_have_and_the_others_lose_it():
    from gen.train.token_tags import snap_to_units

    text = "Anna Rossi has had diabetes since 2019; she votes every year."
    words = word_spans(text)
    first = (0, text.index(";"))
    second = (text.index("she"), len(text) - 1)
    classes = np.zeros(len(words), dtype=int)
    named = {text[a:b]: i for i, (a, b) in enumerate(words)}
    classes[[named["Anna"], named["Rossi"]]] = 1  # PERSON, not snapped
    classes[[named["had"], named["diabetes"], named["since"], named["2019"]]] = 2  # health
    classes[named["votes"]] = 2  # one word of five: below the cover
    snapped = snap_to_units(words, classes, [first, second], [2], 0.5)
    names = [text[a:b] for a, b in words]
    health = [name for name, c in zip(names, snapped, strict=True) if c == 2]
    assert health == ["has", "had", "diabetes", "since", "2019"]
    assert [names[i] for i in np.flatnonzero(snapped == 1)] == ["Anna", "Rossi"]


def test_labels_snap_to_units_only_where_that_scores_higher_on_held_out_documents():
    """health gains by snapping; PERSON would too, but an identifier is never a unit."""
    from gen.train.transformers_dev import HeldOut

    text = "She has had diabetes since 2019; she lives in Rome.\nAnna Maria Rossi"
    name = text.index("Anna Maria Rossi")
    record = Record("r", text, "health", "note", "en", "gold", [
        Span(0, text.index(";"), "health", "gold"),
        Span(name, len(text), "PERSON", "gold"),
    ])  # fmt: skip
    tags = ["O", "I-PERSON", "I-health"]
    words = word_spans(text)
    gold = np.array([tags.index(t) for t in word_tags(words, record.spans)])
    held = HeldOut([record], tags, [words], [gold])
    probabilities = np.eye(3)[gold] * 0.9 + 0.03
    missed = [text.index("has"), text.rindex("Rossi")]  # a word of each missed
    for start in missed:
        probabilities[[a for a, _ in words].index(start)] = [0.96, 0.02, 0.02]
    choice = held.choose([probabilities], "clause", 0.5)
    assert choice.snapped == ["health"]
    assert held.choose([probabilities]).snapped == []


@pytest.mark.parametrize("architecture", ["xlm-roberta", "deberta-v2"])
def test_the_same_command_trains_another_encoder(run, tmp_path, architecture):
    texts = [r.text for r in RecordTable(run / "dataset").read()]
    other = make_tiny_bert(tmp_path / architecture, texts, architecture)
    out = tmp_path / "m"
    result = CliRunner().invoke(main, _args(run, other, out, epochs=1))
    assert result.exit_code == 0, result.output
    detector = load_detector(out)
    assert detector.model.config.model_type == architecture
    (spans,) = detector.predict([ODD])
    check_spans(ODD, spans)
