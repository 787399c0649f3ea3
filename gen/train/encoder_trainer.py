"""The encoder trainer: a GGUF model's frozen vectors and a logistic-regression head.

A from-scratch spaCy model knows no words, so a few hundred documents teach it no special
category; the model that writes the documents does know them. Its final-layer vectors,
pooled per sentence (or clause) unit, feed scikit-learn's multinomial logistic regression
over {none, each special category the train split holds} with balanced class weights
(gen.train.encoder_head);
the threshold of each label is the one that gives the best F1 on the run's dev split
(weighted by unit length, as token scores are). One forward pass per document, cached, so
a second training or a learning curve costs seconds.

A unit learns a label when that label's spans cover at least `--unit-cover` of its
visible characters, or more than half of one of its spans lies in it (a fact told in a
clause of a longer sentence). Identifiers (names, IBANs...) are not unit-sized: when the
train split has any, a spaCy model (gen.train.spacy_trainer, with `gen train`'s spaCy
options) is trained beside the head into `identifiers/` of the same folder, and the
detector takes identifier spans from it (`--identifiers none` leaves them out).

A document whose tokens cannot be mapped back to it (gen.text.token_offsets) is left out
of the head's units, and named with why in `detector.json` (`unread_documents`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from gen.backends.llama_cpp_encoder import DEFAULT_OVERLAP, DEFAULT_WINDOW
from gen.backends.models import embedded_model_path
from gen.core.errors import UsageError
from gen.core.files import write_json_atomic
from gen.core.packs import load_categories
from gen.core.records import Record
from gen.generate.placed_facts import NON_DISCLOSURES, planned_facts
from gen.predict.loader import DETECTOR_FILE
from gen.text.token_offsets import TextNotMapped
from gen.train import TrainSettings, require
from gen.train.data import TrainingData
from gen.train.encoder_detector import FORMAT, HEAD_FILE, IDENTIFIERS, EncoderDetector
from gen.train.encoder_features import EncoderSpec, shared_cache, unit_features, unit_labels
from gen.train.encoder_head import DEFAULT_THRESHOLD, LinearHead, best_thresholds
from gen.train.spacy_trainer import SpacyTrainer
from gen.train.units import special_labels, text_units


def encoder_path(settings: TrainSettings) -> Path:
    return Path(settings.encoder) if settings.encoder else embedded_model_path()


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
        transformers = ("length", "stride", "class_weights", "device", "threads")
        unused = dict.fromkeys(
            (*transformers, "train_embeddings", "snap_to_units"), "--trainer encoder"
        )
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
        classes = ["none", *labels]
        unread: dict[str, str] = {}
        units = _units(train, spec, settings, labels, "train", unread)
        targets = np.array([classes.index(label or "none") for label in units.labels])
        if len(set(targets)) < 2:
            raise UsageError("the train split's units all have one label; the head needs two")
        filled = 0
        if settings.fill_unplanned:
            targets, filled = fill_unplanned(units, targets, classes, settings.fill_unplanned)
        head = LinearHead.fit(units.features, targets, len(classes))
        thresholds = np.full(len(labels), DEFAULT_THRESHOLD)
        dev = _units(data.splits["dev"], spec, settings, labels, "dev", unread)
        if len(dev.labels):
            gold = np.array([classes.index(label or "none") for label in dev.labels])
            thresholds = best_thresholds(
                head.probabilities(dev.features), gold, dev.lengths, labels
            )
        np.savez(
            folder / HEAD_FILE, **head.arrays(), classes=np.array(classes), thresholds=thresholds
        )
        positives = Counter(classes[t] for t in targets if t)
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
            "train_units": len(targets),
            "train_positive_units": dict(sorted(positives.items())),
            "filled_unplanned_units": filled,
            "unread_documents": unread,
        }

    def load(self, folder: Path, info: dict[str, Any]) -> EncoderDetector:
        return EncoderDetector(folder, info)


def _identifier_labels(records: Sequence[Record]) -> list[str]:
    """The train split's labels that are neither special categories nor negatives."""
    others = {*special_labels(), *load_categories().negative_labels}
    return sorted({s.label for r in records for s in r.spans} - others)


@dataclass
class Units:
    """Every unit of some records: features, training label, length, whose it is."""

    features: np.ndarray
    labels: list[str | None]
    lengths: np.ndarray
    #: Index of the unit's record, and whether that record is a planned document.
    owners: np.ndarray
    planned: np.ndarray
    #: Whether the unit holds part of a non-disclosure the writer was asked for: a
    #: negative by construction, never filled.
    negative: np.ndarray


def _units(
    records: Sequence[Record],
    spec: EncoderSpec,
    settings: TrainSettings,
    labels: Sequence[str],
    name: str,
    unread: dict[str, str],
) -> Units:
    """The units of `records`; those whose tokens cannot be mapped go to `unread`."""
    units = [text_units(r.text, r.language, settings.unit) for r in records]
    pooled = shared_cache(spec).pooled(
        [r.text for r in records], name, lambda index, vectors: unit_features(vectors, units[index])
    )
    features, targets, lengths, owners, planned, negative = [], [], [], [], [], []
    for index, (record, ranges, found) in enumerate(zip(records, units, pooled, strict=True)):
        if isinstance(found, TextNotMapped):
            unread[record.id] = str(found)
            continue
        if not ranges:
            continue
        passages = [
            (p["start"], p["end"]) for p in planned_facts(record, NON_DISCLOSURES) if "start" in p
        ]
        negative.extend(
            any(low < end and start < high for low, high in passages) for start, end in ranges
        )
        features.append(found)
        targets.extend(unit_labels(record.text, ranges, record.spans, labels, settings.unit_cover))
        lengths.extend(end - start for start, end in ranges)
        owners.extend([index] * len(ranges))
        planned.extend([any(s.source == "planned" for s in record.spans)] * len(ranges))
    dimension = features[0].shape[1] if features else 0
    return Units(
        np.concatenate(features) if features else np.zeros((0, dimension)),
        targets,
        np.array(lengths, dtype=np.float64),
        np.array(owners, dtype=np.int64),
        np.array(planned, dtype=bool),
        np.array(negative, dtype=bool),
    )


def fill_unplanned(
    units: Units, targets: np.ndarray, classes: Sequence[str], min_score: float
) -> tuple[np.ndarray, int]:
    """Targets where the `none` units of planned documents that a cross-fitted head calls
    sensitive (probability at least `min_score`) learn that label instead.

    A writer asked for two facts often tells a third nobody planned ("...and he has been on
    probation since"); left as `none`, it teaches the detector to miss. The planned
    documents are split in two halves by record; a head fitted on everything but one half
    labels that half (a head never labels the documents it learned from: it would repeat
    their `none`). Hand-labeled records are complete and never changed, and a unit that
    holds a non-disclosure stays `none`: it is what the detector must learn to leave."""
    documents = np.unique(units.owners[units.planned])
    if len(documents) < 4:
        return targets, 0
    filled = targets.copy()
    for half in (documents[::2], documents[1::2]):
        inside = np.isin(units.owners, half)
        head = LinearHead.fit(units.features[~inside], targets[~inside], len(classes))
        candidates = inside & (targets == 0) & ~units.negative
        probabilities = head.probabilities(units.features[candidates])
        best = probabilities[:, 1:].argmax(axis=1)
        sure = probabilities[np.arange(len(best)), best + 1] >= min_score
        filled[np.flatnonzero(candidates)[sure]] = best[sure] + 1
    return filled, int((filled != targets).sum())
