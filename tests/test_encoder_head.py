"""The encoder detector's head without a model: fitting, stored arrays, dev thresholds, and
the cross-fitted labels of unplanned disclosures."""

from __future__ import annotations

import dataclasses
import weakref
from pathlib import Path

import numpy as np
import pytest

from gen.backends.llama_cpp_encoder import TokenVectors
from gen.core.records import Record
from gen.train import TrainSettings
from gen.train.encoder_features import (
    EncoderSpec,
    TokenVectorCache,
    _shared,
    cache_root,
    shared_cache,
)
from gen.train.encoder_head import DEFAULT_THRESHOLD, LinearHead, best_thresholds
from gen.train.encoder_trainer import Units, _units, fill_unplanned

pytest.importorskip("sklearn")


def _clusters(rng: np.random.Generator, labels: list[int], spread: float = 0.3) -> np.ndarray:
    """One point per label near that label's corner of the feature space."""
    centers = np.eye(4) * 4
    return np.stack([centers[label] + rng.normal(0, spread, 4) for label in labels])


def test_a_head_separates_its_classes_and_survives_its_arrays() -> None:
    rng = np.random.default_rng(0)
    targets = np.array([0, 1, 2] * 30)
    head = LinearHead.fit(_clusters(rng, list(targets)), targets, classes=4)
    probe = _clusters(rng, [0, 1, 2])
    assert list(head.probabilities(probe).argmax(axis=1)) == [0, 1, 2]
    # Class 3 never occurred: it never wins, and the arrays give the same head back.
    assert head.probabilities(_clusters(rng, [3])).argmax() != 3
    again = LinearHead.from_arrays(head.arrays())
    assert np.allclose(again.probabilities(probe), head.probabilities(probe))


def test_two_classes_keep_one_row_per_class() -> None:
    rng = np.random.default_rng(1)
    targets = np.array([0, 2] * 20)
    head = LinearHead.fit(_clusters(rng, list(targets)), targets, classes=3)
    assert head.coef.shape[0] == 3
    assert list(head.probabilities(_clusters(rng, [0, 2])).argmax(axis=1)) == [0, 2]


def test_dev_thresholds_follow_the_units_and_keep_the_default_without_them() -> None:
    probabilities = np.array([[0.1, 0.9, 0.0], [0.6, 0.4, 0.0], [0.7, 0.3, 0.0], [0.2, 0.8, 0.0]])
    gold = np.array([1, 1, 0, 1])
    thresholds = best_thresholds(probabilities, gold, np.ones(4), ["health", "judicial"])
    # The lowest threshold that keeps the three health units and drops the none unit at 0.3.
    assert thresholds[0] == pytest.approx(0.35)
    assert thresholds[1] == DEFAULT_THRESHOLD  # no dev unit of judicial


def test_unplanned_disclosures_are_labeled_by_a_head_that_never_saw_them() -> None:
    rng = np.random.default_rng(2)
    # 8 planned documents of 4 units: unit 0 planned health, unit 1 an unplanned health
    # fact labeled none, units 2-3 plain; then 2 hand-labeled documents, complete.
    labels, targets, owners, planned = [], [], [], []
    for document in range(10):
        is_planned = document < 8
        truth = [1, 1, 0, 0]
        given = [1, 0, 0, 0] if is_planned else truth
        labels += truth
        targets += given
        owners += [document] * 4
        planned += [is_planned] * 4
    units = Units(
        _clusters(rng, labels, spread=0.2),
        [None] * len(labels),
        np.ones(len(labels)),
        np.array(owners),
        np.array(planned),
        np.zeros(len(labels), dtype=bool),
    )
    given = np.array(targets)
    filled, count = fill_unplanned(units, given, ["none", "health", "judicial", "x"], 0.5)
    unplanned = (np.array(labels) == 1) & (given == 0)
    assert count == unplanned.sum() == 8
    assert (filled[unplanned] == 1).all()
    assert (filled[~unplanned] == given[~unplanned]).all()
    # Too few planned documents to split: nothing changes.
    few = dataclasses.replace(units, planned=units.owners < 2)
    assert fill_unplanned(few, given, ["none", "health", "judicial", "x"], 0.5)[1] == 0
    # A unit that holds a non-disclosure is a negative by construction: never filled.
    passages = dataclasses.replace(units, negative=unplanned & (units.owners < 4))
    filled, count = fill_unplanned(passages, given, ["none", "health", "judicial", "x"], 0.5)
    assert count == 4
    assert (filled[passages.negative] == 0).all()


def test_the_shared_token_vector_cache_follows_the_cache_folder(tmp_path, monkeypatch) -> None:
    """A process that changes GEN_CACHE_DIR (a second run, a test) writes to the new folder."""
    spec = EncoderSpec(Path("model.gguf"), "0" * 64, 64, 16)
    monkeypatch.setenv("GEN_CACHE_DIR", str(tmp_path / "first"))
    first = shared_cache(spec)
    monkeypatch.setenv("GEN_CACHE_DIR", str(tmp_path / "second"))
    second = shared_cache(spec)
    assert first.folder.is_relative_to(tmp_path / "first")
    assert second.folder.is_relative_to(tmp_path / "second")
    assert shared_cache(spec) is second


class _CountingEncoder:
    """Stands in for the model: vectors of ones per character, and how many earlier
    documents' token vectors were still alive each time a document was encoded."""

    def __init__(self) -> None:
        self.made: list[weakref.ref[np.ndarray]] = []
        self.held: list[int] = []

    def alive(self) -> int:
        return sum(made() is not None for made in self.made)

    def encode(self, texts: list[str]) -> list[TokenVectors]:
        self.held.append(self.alive())
        found = []
        for text in texts:
            offsets = np.array([(i, i + 1) for i in range(len(text))], np.int64)
            found.append(TokenVectors(offsets, np.ones((len(text), 4), np.float32)))
        self.made.extend(weakref.ref(vectors.vectors) for vectors in found)
        return found


def test_the_feature_pass_keeps_one_document_s_token_vectors_at_a_time(
    tmp_path, monkeypatch
) -> None:
    """A training over hundreds of documents held every document's token vectors until its
    last one was encoded (about 2 MB each with the 1.5B model): only the units' features
    are kept, each computed as its document's vectors arrive or are read from the cache."""
    monkeypatch.setenv("GEN_CACHE_DIR", str(tmp_path))
    spec = EncoderSpec(Path("model.gguf"), "1" * 64, 64, 16)
    records = [
        Record(f"r{i}", f"Note {i}. He was treated for asthma.", "health", "note", "en", "gold")
        for i in range(8)
    ]
    cache = shared_cache(spec)
    cache._encoder = encoder = _CountingEncoder()
    units = _units(records, spec, TrainSettings(trainer="encoder"), ["health"], "train", {})
    assert units.features.shape == (16, 4)
    assert max(encoder.held) <= 1
    # Read back from the cache, the vectors go the same way.
    reread = TokenVectorCache(spec)
    read = reread._read
    held = []

    def counting_read(text: str) -> TokenVectors | None:
        held.append(encoder.alive())
        found = read(text)
        if found is not None:
            encoder.made.append(weakref.ref(found.vectors))
        return found

    monkeypatch.setattr(reread, "_read", counting_read)
    monkeypatch.setitem(_shared, (spec, cache_root()), reread)
    again = _units(records, spec, TrainSettings(trainer="encoder"), ["health"], "train", {})
    assert (reread.hits, reread.misses) == (8, 0)
    assert np.array_equal(again.features, units.features)
    assert max(held) <= 1
