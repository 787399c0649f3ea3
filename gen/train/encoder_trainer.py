"""The encoder trainer: a GGUF model's frozen vectors and a logistic-regression head.

A from-scratch spaCy model knows no words, so a few hundred documents teach it no special
category; the model that writes the documents does know them. Its final-layer vectors,
pooled per sentence (or clause) unit, feed scikit-learn's multinomial logistic regression
over {none, each special category the train split holds} with balanced class weights;
the threshold of each label is the one that gives the best F1 on the run's dev split
(weighted by unit length, as token scores are). One forward pass per document, cached, so
a second training or a learning curve costs seconds.

A unit learns a label when that label's spans cover at least `--unit-cover` of its
visible characters, or more than half of one of its spans lies in it (a fact told in a
clause of a longer sentence). Identifiers (names, IBANs...) are not unit-sized: when the
train split has any, a spaCy model (gen.train.spacy_trainer, with `gen train`'s spaCy
options) is trained beside the head into `identifiers/` of the same folder, and the
detector takes identifier spans from it (`--identifiers none` leaves them out).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from gen.backends.llama_cpp_encoder import DEFAULT_OVERLAP, DEFAULT_WINDOW
from gen.backends.models import embedded_model_path
from gen.core.errors import UsageError
from gen.core.files import write_json_atomic
from gen.core.packs import load_categories
from gen.core.records import Record
from gen.train import DETECTOR_FILE, TrainSettings, require
from gen.train.data import TrainingData
from gen.train.encoder_detector import FORMAT, HEAD_FILE, IDENTIFIERS, EncoderDetector
from gen.train.encoder_features import (
    EncoderSpec,
    shared_cache,
    text_units,
    unit_features,
    unit_labels,
)
from gen.train.spacy_trainer import SpacyTrainer

#: Inverse regularization strength of the head (prototype and dev split: 0.5).
REGULARIZATION = 0.5
#: Thresholds tried per label on dev; a label with fewer dev units keeps the default.
THRESHOLDS = np.round(np.arange(0.2, 0.96, 0.05), 2)
DEFAULT_THRESHOLD = 0.5
MIN_DEV_UNITS = 3


def encoder_path(settings: TrainSettings) -> Path:
    return Path(settings.encoder) if settings.encoder else embedded_model_path()


def special_labels() -> list[str]:
    categories = load_categories()
    return [categories.categories[name].label for name in categories.sensitive]


class EncoderTrainer:
    name: ClassVar[str] = "encoder"
    #: The spaCy DocBins for the identifiers' model; the head reads the records' spans.
    export_format: ClassVar[str] = "spacy"

    def check(self, settings: TrainSettings) -> None:
        require("sklearn", "train")
        if settings.identifiers == "spacy":
            SpacyTrainer().check(settings)
        path = encoder_path(settings)
        if not path.is_file():
            raise UsageError(f"--encoder {path}: file not found; expected a .gguf model file")

    def unused(self, settings: TrainSettings) -> dict[str, str]:
        unused = dict.fromkeys(("length", "stride", "class_weights", "device"), "--trainer encoder")
        if settings.identifiers == "none":
            names = ("base_model", "epochs", "patience", "batch_size", "learning_rate")
            unused |= dict.fromkeys(
                (*names, "component", "max_span_words"), "--trainer encoder --identifiers none"
            )
        return unused

    def export_settings(self, settings: TrainSettings) -> dict[str, Any]:
        return SpacyTrainer().export_settings(settings)

    def fit(
        self, data: TrainingData, folder: Path, settings: TrainSettings, work: Path
    ) -> dict[str, Any]:
        spec = EncoderSpec.of(encoder_path(settings), DEFAULT_WINDOW, DEFAULT_OVERLAP)
        chosen = set(data.train_ids)
        train = [r for r in data.splits["train"] if r.id in chosen]
        labels = [
            label
            for label in special_labels()
            if any(s.label == label for r in train for s in r.spans)
        ]
        if not train or not labels:
            raise UsageError(
                "the train split has no span of a special category "
                f"({', '.join(special_labels())}): nothing for the encoder detector to learn"
            )
        languages = [
            language for language, _ in Counter(r.language or "en" for r in train).most_common()
        ]
        x_train, y_train, _ = _units(train, spec, settings, labels, "train")
        x_dev, y_dev, dev_weights = _units(data.splits["dev"], spec, settings, labels, "dev")
        linear_model = require("sklearn.linear_model", "train")
        preprocessing = require("sklearn.preprocessing", "train")
        scaler = preprocessing.StandardScaler().fit(x_train)
        classes = ["none", *labels]
        targets = np.array([classes.index(label or "none") for label in y_train])
        if len(set(targets)) < 2:
            raise UsageError("the train split's units all have one label; the head needs two")
        head = linear_model.LogisticRegression(
            C=REGULARIZATION, class_weight="balanced", max_iter=2000
        ).fit(scaler.transform(x_train), targets)
        coef, intercept = _full_rows(head, len(classes))
        scale = np.where(scaler.scale_ > 0, scaler.scale_, 1.0)
        arrays = {"mean": scaler.mean_, "scale": scale, "coef": coef, "intercept": intercept}
        thresholds = np.full(len(labels), DEFAULT_THRESHOLD)
        if len(x_dev):
            logits = ((x_dev - scaler.mean_) / scale) @ coef.T + intercept
            thresholds = _best_thresholds(_softmax(logits), y_dev, dev_weights, labels)
        np.savez(folder / HEAD_FILE, **arrays, classes=np.array(classes), thresholds=thresholds)
        positives = Counter(label for label in y_train if label)
        identifiers = _identifier_labels(train)
        if identifiers and settings.identifiers == "spacy":
            spacy_info = SpacyTrainer().fit(data, folder / IDENTIFIERS, settings, work)
            write_json_atomic(
                folder / IDENTIFIERS / DETECTOR_FILE, {"trainer": "spacy", **spacy_info}
            )
        else:
            identifiers = []
        return {
            "identifiers": identifiers,
            "format": FORMAT,
            "encoder": str(spec.path.resolve()),
            "encoder_sha256": spec.sha256,
            "window": spec.window,
            "overlap": spec.overlap,
            "unit": settings.unit,
            "unit_cover": settings.unit_cover,
            "languages": languages,
            "labels": labels,
            "thresholds": {label: float(t) for label, t in zip(labels, thresholds, strict=True)},
            "train_units": len(y_train),
            "train_positive_units": dict(sorted(positives.items())),
        }

    def load(self, folder: Path, info: dict[str, Any]) -> EncoderDetector:
        return EncoderDetector(folder, info)


def _identifier_labels(records: Sequence[Record]) -> list[str]:
    """The train split's labels that are neither special categories nor negatives."""
    others = {*special_labels(), *load_categories().negative_labels}
    return sorted({s.label for r in records for s in r.spans} - others)


def _units(
    records: Sequence[Record],
    spec: EncoderSpec,
    settings: TrainSettings,
    labels: Sequence[str],
    name: str,
) -> tuple[np.ndarray, list[str | None], np.ndarray]:
    """Features, training labels and character lengths of every unit of `records`."""
    vectors = shared_cache(spec).vectors([r.text for r in records], name)
    features, targets, lengths = [], [], []
    for record, token_vectors in zip(records, vectors, strict=True):
        units = text_units(record.text, record.language, settings.unit)
        if not units:
            continue
        features.append(unit_features(token_vectors, units))
        targets.extend(unit_labels(record.text, units, record.spans, labels, settings.unit_cover))
        lengths.extend(end - start for start, end in units)
    if not features:
        return np.zeros((0, 0)), [], np.zeros(0)
    return np.concatenate(features), targets, np.array(lengths, dtype=np.float64)


def _full_rows(head: Any, classes: int) -> tuple[np.ndarray, np.ndarray]:
    """Coefficients with one row per class of the head, in class order (a class missing from
    the train units never wins)."""
    coef = np.zeros((classes, head.coef_.shape[1]))
    intercept = np.full(classes, -1e9)
    if len(head.classes_) == 2:  # scikit-learn keeps one row for two classes
        coef[head.classes_[1]], intercept[head.classes_[1]] = head.coef_[0], head.intercept_[0]
        coef[head.classes_[0]], intercept[head.classes_[0]] = 0.0, 0.0
        return coef, intercept
    for row, cls in enumerate(head.classes_):
        coef[cls], intercept[cls] = head.coef_[row], head.intercept_[row]
    return coef, intercept


def _softmax(logits: np.ndarray) -> np.ndarray:
    logits = logits - logits.max(axis=1, keepdims=True)
    exp = np.exp(logits)
    return exp / exp.sum(axis=1, keepdims=True)


def _best_thresholds(
    probabilities: np.ndarray,
    gold: Sequence[str | None],
    weights: np.ndarray,
    labels: Sequence[str],
) -> np.ndarray:
    """Per label, the threshold of the best length-weighted F1 on dev."""
    best_label = probabilities[:, 1:].argmax(axis=1)
    best_score = probabilities[:, 1:].max(axis=1)
    thresholds = np.full(len(labels), DEFAULT_THRESHOLD)
    for index, label in enumerate(labels):
        truth = np.array([g == label for g in gold])
        if truth.sum() < MIN_DEV_UNITS:
            continue
        scores = []
        for threshold in THRESHOLDS:
            predicted = (best_label == index) & (best_score >= threshold)
            tp = weights[predicted & truth].sum()
            denominator = weights[predicted].sum() + weights[truth].sum()
            scores.append(2 * tp / denominator if denominator else 0.0)
        thresholds[index] = THRESHOLDS[int(np.argmax(scores))]
    return thresholds
