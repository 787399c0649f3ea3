"""The encoder detector on the embedded model: token vectors, training, the folder it
writes, its refusals, and the `detector` labeling strategy."""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from gen.backends.llama_cpp_encoder import LlamaCppEncoder
from gen.backends.models import embedded_model_path
from gen.cli import main
from gen.core.errors import UsageError
from gen.core.packs import default_prompts_dir
from gen.core.record_files import read_record_file
from gen.core.records import Span, check_spans
from gen.core.store import RecordTable
from gen.dataset.assemble import build_dataset
from gen.dataset.options import BuildOptions
from gen.evaluate.run import evaluate
from gen.importing import RecordDefaults
from gen.importing.run import import_files
from gen.predict.loader import load_detector
from gen.text.token_offsets import TextNotMapped, token_offsets
from gen.train import TrainSettings
from gen.train.encoder_detector import HEAD_FILE, IDENTIFIERS, cut_around
from gen.train.encoder_features import EncoderSpec, TokenVectorCache, unit_features, unit_labels
from gen.train.run import train_detector
from gen.train.units import special_labels, text_units
from scraping.queries.generate import generate_queries

pytest.importorskip("sklearn")
pytestmark = pytest.mark.model

GOLD_DEV = Path(__file__).parents[1] / "bench" / "gold" / "gold-dev.jsonl"
#: Binary token F1 of the detector on its own training documents: a head that learned
#: nothing from the 135M's vectors stays near the share of sensitive tokens (about 0.2).
TRAIN_BINARY_F1_FLOOR = 0.5
ODD_TEXT = "Café 😀 naïve — Ünïcödé. He was diagnosed with diabetes in 2019. 東京で働く。\r\n"
#: Marks the texts a test makes unmappable.
UNMAPPABLE = "(no offsets here)"
#: A form padded with spaces and ruled with dashes.
FORM = (
    "CIVIL PARTNERSHIP" + " " * 34 + "Entry No. 0412\n" + " " * 48 + "Registrar: Zoë Ångström\n"
    + "-" * 64 + "\nSigned\u00a0\t\r\n\x07 He was diagnosed with asthma in 2019."
)  # fmt: skip


@pytest.fixture(scope="module", autouse=True)
def cache_dir(tmp_path_factory):
    with pytest.MonkeyPatch.context() as patch:
        folder = tmp_path_factory.mktemp("cache")
        patch.setenv("GEN_CACHE_DIR", str(folder))
        yield folder


@pytest.fixture(scope="module")
def gold_run(tmp_path_factory) -> Path:
    """A run whose dataset is 16 hand-labeled documents of the gold dev split."""
    folder = tmp_path_factory.mktemp("encoder-run")
    lines = GOLD_DEV.read_text(encoding="utf-8").splitlines()[:16]
    source = folder / "some-gold.jsonl"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    import_files(folder, [source], "gold")
    build_dataset(folder, BuildOptions(sources=("gold",)))
    return folder


@pytest.fixture(scope="module")
def trained(gold_run: Path):
    return train_detector(gold_run, TrainSettings(trainer="encoder"))


def test_tokens_cover_the_text_and_windows_keep_left_context() -> None:
    text = ("The patient, Zoë Ångström, was treated for asthma. " * 12) + ODD_TEXT
    wide = LlamaCppEncoder(embedded_model_path(), window=512, overlap=64)
    narrow = LlamaCppEncoder(embedded_model_path(), window=48, overlap=16)
    (whole,), (windowed,) = wide.encode([text]), narrow.encode([text])
    assert np.array_equal(whole.offsets, windowed.offsets)
    covered = np.zeros(len(text), bool)
    for start, end in whole.offsets:
        covered[start:end] = True
    assert covered.all()
    # The first window is the same pass; later tokens see less context but stay finite.
    assert np.allclose(whole.vectors[:48], windowed.vectors[:48], atol=1e-3)
    assert np.isfinite(windowed.vectors).all()
    # A unit cut by a window boundary still gets the mean of all its tokens.
    units = text_units(text, "en", "sentence")
    assert np.abs(unit_features(windowed, units)).sum(axis=1).min() > 0
    # Several texts in one pass give each the vectors it gets alone.
    (alone,) = wide.encode([ODD_TEXT])
    _, together = wide.encode(["Another text first.", ODD_TEXT])
    # (batched matrix products round differently: the same up to float noise)
    cosine = (alone.vectors * together.vectors).sum(1) / (
        np.linalg.norm(alone.vectors, axis=1) * np.linalg.norm(together.vectors, axis=1)
    )
    assert cosine.min() > 0.999


def test_token_offsets_are_exact_where_a_piece_is_longer_than_32_bytes() -> None:
    """SmolLM2 has single tokens for "\\n" and 47 spaces, and for 64 dashes (Qwen2.5 for runs
    of spaces): llama-cpp-python's detokenize reads such a piece as nothing."""
    encoder = LlamaCppEncoder(embedded_model_path(), window=64, overlap=16)
    (vectors,) = encoder.encode([FORM])
    starts, ends = vectors.offsets[:, 0].tolist(), vectors.offsets[:, 1].tolist()
    # no gap, in order, to the end (two tokens share a character a byte-level BPE split)
    assert starts[0] == 0 and ends[-1] == len(FORM) and starts == sorted(starts)
    assert all(start <= end for start, end in zip(starts[1:], ends[:-1], strict=True))
    pieces = [FORM[start:end] for start, end in vectors.offsets]
    assert "-" * 64 in pieces and "\n" + " " * 47 in pieces
    assert np.isfinite(vectors.vectors).all()


def test_unit_labels_take_a_clause_told_inside_a_longer_sentence() -> None:
    text = "We met on Monday at the office, and she told me she has epilepsy since 2010."
    units = text_units(text, "en", "sentence")
    told = Span(text.index("she has"), len(text) - 1, "health")
    assert unit_labels(text, units, [told], ["health"], cover=0.9) == ["health"]
    # A few words of a long span in a unit do not make it learn the label.
    long_span = Span(0, len(text) - 1, "health")
    other = "Nothing here. " + text
    shifted = Span(long_span.start + 14, long_span.end + 14, "health")
    assert unit_labels(other, text_units(other, "en", "sentence"), [shifted], ["health"], 0.5) == [
        None,
        "health",
    ]


def test_a_unit_span_is_cut_around_the_identifiers_inside_it() -> None:
    text = "Dr. Anna Rossi (anna@example.org) treats his asthma."
    unit = Span(0, len(text), "health")
    holes = [Span(4, 14, "PERSON"), Span(16, 32, "EMAIL")]
    pieces = cut_around(text, [unit], holes)
    assert [text[s.start : s.end] for s in pieces] == ["Dr", "treats his asthma"]
    assert all(s.label == "health" for s in pieces)


def test_training_writes_a_detector_that_learned_its_documents(trained, gold_run) -> None:
    folder = trained.folder
    info = json.loads((folder / "detector.json").read_text())
    assert info["trainer"] == "encoder"
    assert info["encoder_sha256"] == EncoderSpec.of(embedded_model_path(), 1, 0).sha256
    assert set(info["labels"]) <= set(special_labels()) and info["labels"]
    assert (folder / HEAD_FILE).is_file() and (folder / "README.md").is_file()
    # The gold documents' identifiers are learned by the spaCy model beside the head.
    assert "PERSON" in info["identifiers"] and (folder / IDENTIFIERS / "model").is_dir()
    records = [r for r in read_record_file(GOLD_DEV, "gold")][:16]
    detector = load_detector(folder)
    predicted = detector.predict([r.text for r in records])
    special = set(special_labels())
    gold = [replace(r, spans=[s for s in r.spans if s.label in special]) for r in records]
    pred = [replace(r, spans=p) for r, p in zip(records, predicted, strict=True)]
    report = evaluate(gold, pred).groups["all"]
    assert report.token_binary.f1 >= TRAIN_BINARY_F1_FLOOR


def test_a_second_pass_reads_the_cache_without_loading_the_model(trained, cache_dir) -> None:
    info = json.loads((trained.folder / "detector.json").read_text())
    spec = EncoderSpec(Path(info["encoder"]), info["encoder_sha256"], info["window"], 256)
    texts = [r.text for r in read_record_file(GOLD_DEV, "gold")][:16]
    fresh = TokenVectorCache(spec)
    fresh.pooled(texts, "again", lambda index, vectors: vectors)
    assert (fresh.hits, fresh.misses) == (16, 0)
    assert fresh._encoder is None
    # A damaged file is computed again.
    damaged = next(cache_dir.rglob("*.npz"))
    damaged.write_bytes(b"not a numpy file")
    again = TokenVectorCache(spec)
    again.pooled(texts, "again", lambda index, vectors: vectors)
    assert again.misses == 1


def _eager(trained, tmp_path) -> Path:
    """A copy of the trained detector whose thresholds are 0: every unit becomes a span."""
    folder = tmp_path / "eager"
    shutil.copytree(trained.folder, folder)
    with np.load(folder / HEAD_FILE) as head:
        arrays = dict(head)
    arrays["thresholds"] = np.zeros_like(arrays["thresholds"])
    np.savez(folder / HEAD_FILE, **arrays)
    info = json.loads((folder / "detector.json").read_text())
    info["thresholds"] = dict.fromkeys(info["thresholds"], 0.0)  # repeated for the card
    (folder / "detector.json").write_text(json.dumps(info))
    return folder


def test_predicted_spans_are_exact_units_of_odd_unicode(trained, tmp_path) -> None:
    (spans,) = load_detector(_eager(trained, tmp_path)).predict([ODD_TEXT])
    units = text_units(ODD_TEXT, "en", "clause")
    assert [(s.start, s.end) for s in spans] == units
    check_spans(ODD_TEXT, spans)
    assert all(0 < s.score <= 1 and s.source == "model" for s in spans)


def test_prose_with_tabs_and_spaces_and_invisible_marks_is_predicted_in_clauses(
    trained, tmp_path
) -> None:
    """Text from PDFs and e-mail: its gaps cut no spans into words, and no span starts or
    ends on an invisible character."""
    prose = "He was admitted in May with chest pain, which eased overnight, and went home."
    texts = [prose.replace(" ", "\t"), prose.replace(" ", "   "), f"\u200b{prose}\u202c\x07"]
    expected = [prose[start:end] for start, end in text_units(prose, "en", "clause")]
    found = load_detector(_eager(trained, tmp_path)).predict(texts)
    for text, spans in zip(texts, found, strict=True):
        assert [re.sub(r"\s+", " ", text[s.start : s.end]) for s in spans] == expected


def _edited(trained, tmp_path: Path, **changes: object) -> Path:
    folder = tmp_path / "edited"
    shutil.copytree(trained.folder, folder)
    info = json.loads((folder / "detector.json").read_text())
    info.update(changes)
    (folder / "detector.json").write_text(json.dumps(info))
    return folder


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"encoder_sha256": "0" * 64}, "has sha256 .*, the detector was trained with 000000000000"),
        ({"encoder": "/nowhere/model.gguf"}, "its encoder /nowhere/model.gguf is not found"),
        ({"format": 0}, "encoder detector format 0, this gen reads format 2"),
    ],
)
def test_a_detector_refuses_another_encoder_or_version(trained, tmp_path, changes, message):
    with pytest.raises(UsageError, match=message):
        load_detector(_edited(trained, tmp_path, **changes))


def test_cli_refuses_a_missing_or_unusable_encoder_and_writes_nothing(gold_run, tmp_path):
    out = tmp_path / "model"

    def train_with(encoder: str):  # type: ignore[no-untyped-def]
        arguments = ["--run", str(gold_run), "--trainer", "encoder", "--encoder", encoder]
        return CliRunner().invoke(main, ["train", *arguments, "--out", str(out)])

    missing = train_with("nope.gguf")
    assert missing.exit_code == 2
    assert "--encoder nope.gguf: file not found" in missing.output
    not_a_model = tmp_path / "notes.gguf"
    not_a_model.write_text("hello")
    broken = train_with(str(not_a_model))
    assert broken.exit_code == 2
    assert "cannot load" in broken.output and "Traceback" not in broken.output
    assert not out.exists()


def test_cli_refuses_a_train_split_without_special_categories(tmp_path):
    generate_queries(tmp_path, locale="en_US", n=40, seed=0, prompts_dir=default_prompts_dir())
    build_dataset(tmp_path, BuildOptions())
    result = CliRunner().invoke(main, ["train", "--run", str(tmp_path), "--trainer", "encoder"])
    assert result.exit_code == 2
    assert "no span of a special category" in result.output
    assert not (tmp_path / "models" / "encoder").exists()


def test_the_detector_strategy_labels_a_run(trained, tmp_path):
    run = tmp_path / "run"
    text_file = tmp_path / "letter.txt"
    text_file.write_text(ODD_TEXT * 3, encoding="utf-8")
    import_files(run, [text_file], "documents", RecordDefaults(category="health"))
    runner = CliRunner()
    refused = runner.invoke(main, ["label", "--run", str(run), "--strategy", "detector"])
    assert refused.exit_code == 2 and "needs --detector DIR" in refused.output
    result = runner.invoke(
        main,
        [
            "label",
            "--run",
            str(run),
            "--strategy",
            "detector",
            "--detector",
            str(trained.folder),
            "--min-score",
            "0",
        ],
    )
    assert result.exit_code == 0, result.output
    (labeled,) = RecordTable(run / "labeled").read()
    assert all(s.source == "detector" and s.score is not None for s in labeled.spans)
    check_spans(labeled.text, labeled.spans)


def _unmappable(monkeypatch: pytest.MonkeyPatch) -> None:
    """Texts that hold `UNMAPPABLE` get no token offsets, as a tokenizer whose pieces cannot
    be aligned to a text (gen.text.token_offsets) would give none."""

    def offsets(pieces, text):  # type: ignore[no-untyped-def]
        if UNMAPPABLE in text:
            raise TextNotMapped("the tokens' pieces and the text differ too much (a test)")
        return token_offsets(pieces, text)

    monkeypatch.setattr("gen.backends.llama_cpp_encoder.token_offsets", offsets)


def test_a_document_the_encoder_cannot_map_is_named_and_the_others_go_on(
    trained, gold_run, tmp_path, monkeypatch
):
    _unmappable(monkeypatch)
    runner = CliRunner()
    # gen predict
    source = tmp_path / "input.jsonl"
    rows = [
        {"id": "plain", "text": ODD_TEXT},
        {"id": "unmapped", "text": f"{UNMAPPABLE} " + ODD_TEXT},
    ]
    source.write_text("".join(json.dumps(row) + "\n" for row in rows))
    out = tmp_path / "predicted.jsonl"
    args = ["predict", str(source), "--model", str(trained.folder), "--out", str(out)]
    result = runner.invoke(main, args)
    assert result.exit_code == 0, result.output
    model = embedded_model_path().name
    assert f"left out unmapped: {model}: the tokens' pieces and the text differ" in result.output
    assert [json.loads(line)["id"] for line in out.read_text().splitlines()] == ["plain"]
    # gen label --strategy detector
    run = tmp_path / "run"
    for name, text in (("plain", FORM), ("unmapped", f"{UNMAPPABLE} " + FORM)):
        (tmp_path / f"{name}.txt").write_text(text, encoding="utf-8")
    files = [tmp_path / "plain.txt", tmp_path / "unmapped.txt"]
    import_files(run, files, "documents", RecordDefaults(category="health"))
    args = ["label", "--run", str(run), "--strategy", "detector", "--detector", str(trained.folder)]
    result = runner.invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "left out unmapped: " in result.output and "reasons: unread 1" in result.output
    # gen review push --select uncertain
    args = ["review", "push", "--run", str(run), "--out", str(tmp_path / "tasks"), "--select",
            "uncertain", "--sample", "2", "--detector", str(trained.folder)]  # fmt: skip
    result = runner.invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "wrote 1 tasks" in result.output and "left out unmapped: " in result.output
    # gen train --trainer encoder: a few documents it cannot map
    lines = [json.loads(line) for line in GOLD_DEV.read_text(encoding="utf-8").splitlines()[:16]]
    marked = {row["id"] for row in lines[::5]}
    for row in lines:
        row["text"] += f" {UNMAPPABLE}" * (row["id"] in marked)
    copy = tmp_path / "marked-run"
    copy.mkdir()
    (copy / "gold.jsonl").write_text("".join(json.dumps(row) + "\n" for row in lines))
    import_files(copy, [copy / "gold.jsonl"], "gold")
    build_dataset(copy, BuildOptions(sources=("gold",)))
    args = ["train", "--run", str(copy), "--trainer", "encoder", "--identifiers", "none"]
    result = runner.invoke(main, args)
    assert result.exit_code == 0, result.output
    info = json.loads((copy / "models" / "encoder" / "detector.json").read_text())
    named = {line.split(":")[0].split()[-1] for line in result.output.splitlines()
             if line.strip().startswith("left out ")}  # fmt: skip
    assert named == marked and set(info["unread_documents"]) <= marked
