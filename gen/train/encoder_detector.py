"""The encoder detector: a linear head over a GGUF model's vectors, one label per unit.

Each text is cut into units (sentences or clauses, by the rules of its language, found
with the wrong-language check's identifier among the languages the detector was trained
on); a unit's features (gen.train.encoder_features) go through the stored standardizer and
multinomial logistic regression; the most probable sensitive label of a unit is kept when
its probability reaches that label's threshold (chosen on the training run's dev split),
and the unit becomes a span with that probability as its score.

The folder holds the head (`encoder_head.npz`, plain arrays: no pickle) and, in
`detector.json`, the encoder's path and sha256: a detector refuses an encoder file whose
content differs from the one it was trained on. Both are checked on load (`EncoderInfo`,
the shapes of the head's arrays, and the labels and thresholds that `detector.json`
repeats for the model card against the head's own): a damaged folder is one line, exit
status 2. Identifier spans come from the spaCy model in `identifiers/`, when the training
run had identifiers: they win, and a unit span is cut around them, as gold spans never
overlap. A text whose tokens cannot be mapped back to it (gen.text.token_offsets) gets no
spans and is named in `UnreadTexts`, after the others.
"""

from __future__ import annotations

import zipfile
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from gen.backends.models import file_sha256
from gen.core.errors import UsageError
from gen.core.records import Span
from gen.predict.detector import SOURCE, UnreadTexts
from gen.predict.loader import DETECTOR_FILE, load_detector, validated
from gen.text.token_offsets import TextNotMapped
from gen.text.units import Unit, trimmed
from gen.train.encoder_features import EncoderSpec, shared_cache, unit_features
from gen.train.encoder_head import LinearHead
from gen.train.units import text_language, text_units

HEAD_FILE = "encoder_head.npz"
#: The sub-folder of the identifiers' spaCy model (encoder_trainer).
IDENTIFIERS = "identifiers"
#: Bumped when the head's files or features change meaning; older folders are refused.
FORMAT = 2
#: Trimmed from the pieces of a cut span besides a unit's edges (gen.text.units): the
#: brackets around an identifier ("(anna@example.org)") are left behind by the cut.
_BRACKETS = "()"


class EncoderInfo(BaseModel):
    """The keys of an encoder detector's `detector.json` that loading reads."""

    model_config = ConfigDict(extra="allow", strict=True)

    encoder: str
    encoder_sha256: str = Field(pattern="^[0-9a-f]{64}$")
    window: int = Field(ge=2)
    overlap: int = Field(ge=0)
    unit: Unit
    languages: list[str] = Field(min_length=1)
    identifiers: list[str] = []
    #: Repeated from the head for the model card: checked against it.
    labels: list[str]
    thresholds: dict[str, float]

    @model_validator(mode="after")
    def _windows(self) -> EncoderInfo:
        if self.overlap >= self.window:
            raise ValueError(f"overlap {self.overlap} must be smaller than window {self.window}")
        return self


def encoder_spec(info: EncoderInfo, folder: Path) -> EncoderSpec:
    """The encoder a detector folder names, checked to be the same file it trained with."""
    path = Path(info.encoder)
    if not path.is_file():
        raise UsageError(
            f"{folder}: its encoder {path} is not found; put the same .gguf file there "
            f"(sha256 {info.encoder_sha256[:12]}...)"
        )
    sha = file_sha256(path)
    if sha != info.encoder_sha256:
        raise UsageError(
            f"{folder}: encoder {path} has sha256 {sha[:12]}..., the detector was trained "
            f"with {info.encoder_sha256[:12]}...; give it the same model file"
        )
    return EncoderSpec(path, sha, info.window, info.overlap)


def read_info(folder: Path, raw: dict[str, Any]) -> EncoderInfo:
    """`detector.json` of an encoder detector, of this format, checked."""
    if raw.get("format") != FORMAT:
        raise UsageError(
            f"{folder}: encoder detector format {raw.get('format')!r}, this gen reads "
            f"format {FORMAT}; train it again with gen train --trainer encoder"
        )
    return validated(Path(folder) / DETECTOR_FILE, raw, EncoderInfo)


class EncoderDetector:
    """Units of each text scored by the stored head; see the module docstring."""

    scored = True

    def __init__(self, folder: Path, raw: dict[str, Any]) -> None:
        self.folder = Path(folder)
        info = read_info(self.folder, raw)
        self.head, self.classes, self.thresholds = _read_head(self.folder / HEAD_FILE, info)
        self.cache = shared_cache(encoder_spec(info, self.folder))
        self.unit = info.unit
        self.languages = info.languages
        self.identifier_labels = set(info.identifiers)
        self.identifiers = None
        if self.identifier_labels:
            self.identifiers = load_detector(self.folder / IDENTIFIERS)
        #: Every class but the first ("none"), then the identifier labels.
        self.labels = [*self.classes[1:], *sorted(self.identifier_labels)]
        self.categories = self.classes[1:]

    def unit_scores(self, texts: Sequence[str]) -> list[tuple[list[tuple[int, int]], np.ndarray]]:
        """Each text's units and their class probabilities; `UnreadTexts` at the end when
        some texts' tokens cannot be mapped to them (no units for those)."""
        units = [text_units(t, text_language(t, self.languages), self.unit) for t in texts]
        pooled = self.cache.pooled(
            texts, "encoder detector", lambda index, vectors: unit_features(vectors, units[index])
        )
        scored, unread = [], {}
        for index, (ranges, features) in enumerate(zip(units, pooled, strict=True)):
            if isinstance(features, TextNotMapped):
                unread[index] = str(features)
                scored.append(([], np.zeros((0, len(self.classes)))))
                continue
            scored.append((ranges, self.head.probabilities(features)))
        if unread:
            raise UnreadTexts(unread, scored)
        return scored

    def predict(self, texts: Sequence[str]) -> list[list[Span]]:
        found: list[list[Span]] = []
        try:
            scores, unread = self.unit_scores(texts), {}
        except UnreadTexts as exc:
            scores, unread = exc.results, exc.reasons
        identifiers = self.identifiers.predict(texts) if self.identifiers else None
        for index, (units, probabilities) in enumerate(scores):
            spans = []
            for (start, end), row in zip(units, probabilities, strict=True):
                best = int(np.argmax(row[1:]))
                if row[1 + best] >= self.thresholds[best]:
                    label = self.categories[best]
                    spans.append(Span(start, end, label, SOURCE, score=float(row[1 + best])))
            if identifiers is not None and index not in unread:
                kept = [s for s in identifiers[index] if s.label in self.identifier_labels]
                spans = sorted(kept + cut_around(texts[index], spans, kept), key=lambda s: s.start)
            found.append(spans)
        if unread:
            raise UnreadTexts(unread, found)
        return found


def _read_head(path: Path, info: EncoderInfo) -> tuple[LinearHead, list[str], np.ndarray]:
    """The head, its classes ("none" first) and per-label thresholds, checked against each
    other and against the labels and thresholds `detector.json` repeats."""
    try:
        with np.load(path) as arrays:
            head = LinearHead.from_arrays(arrays)
            classes, thresholds = arrays["classes"], arrays["thresholds"]
    except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise UsageError(f"{path}: not an encoder head ({exc})") from None
    if classes.shape != head.intercept.shape or classes.dtype.kind != "U" or classes[0] != "none":
        raise UsageError(
            f"{path}: classes {classes.tolist()} do not fit the head's {len(head.intercept)} "
            'rows, "none" first; train it again'
        )
    if thresholds.shape != (len(classes) - 1,) or not np.all((thresholds >= 0) & (thresholds <= 1)):
        raise UsageError(
            f"{path}: expected {len(classes) - 1} thresholds in [0, 1], one per label; "
            "train it again"
        )
    labels = [str(c) for c in classes[1:]]
    stored = {label: float(t) for label, t in zip(labels, thresholds, strict=True)}
    if info.labels != labels or not _same_thresholds(info.thresholds, stored):
        raise UsageError(
            f"{path.parent / DETECTOR_FILE}: labels and thresholds {info.thresholds} differ "
            f"from those of {path.name} {stored}; the head decides: train again to change them"
        )
    return head, ["none", *labels], thresholds


def _same_thresholds(first: dict[str, float], second: dict[str, float]) -> bool:
    return first.keys() == second.keys() and all(
        abs(first[label] - second[label]) < 1e-9 for label in first
    )


def cut_around(text: str, spans: Sequence[Span], holes: Sequence[Span]) -> list[Span]:
    """`spans` without the characters of `holes`: each left piece trimmed as units are (and
    of brackets), and kept when it holds a letter or digit."""
    pieces = []
    for span in spans:
        start = span.start
        inside = sorted(
            (h for h in holes if h.start < span.end and span.start < h.end), key=lambda h: h.start
        )
        for stop, resume in [*((h.start, h.end) for h in inside), (span.end, span.end)]:
            piece = trimmed(text, start, min(stop, span.end), also=_BRACKETS)
            if piece and any(c.isalnum() for c in text[piece[0] : piece[1]]):
                pieces.append(replace(span, start=piece[0], end=piece[1]))
            start = max(start, resume)
    return pieces
