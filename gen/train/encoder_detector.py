"""The encoder detector: a linear head over a GGUF model's vectors, one label per unit.

Each text is cut into units (sentences or clauses, by the rules of its language, found
with the wrong-language check's identifier among the languages the detector was trained
on); a unit's features (gen.train.encoder_features) go through the stored standardizer and
multinomial logistic regression; the most probable sensitive label of a unit is kept when
its probability reaches that label's threshold (chosen on the training run's dev split),
and the unit becomes a span with that probability as its score.

The folder holds the head (`encoder_head.npz`, plain arrays: no pickle) and, in
`detector.json`, the encoder's path and sha256: a detector refuses an encoder file whose
content differs from the one it was trained on. Identifier spans come from the spaCy model
in `identifiers/`, when the training run had identifiers: they win, and a unit span is cut
around them, as gold spans never overlap.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from gen.backends.models import file_sha256
from gen.core.errors import UsageError
from gen.core.records import Span
from gen.predict.detector import SOURCE
from gen.text.language import detect_language
from gen.text.units import trimmed
from gen.train.encoder_features import (
    EncoderSpec,
    shared_cache,
    text_units,
    unit_features,
)
from gen.train.encoder_head import LinearHead

HEAD_FILE = "encoder_head.npz"
#: The sub-folder of the identifiers' spaCy model (encoder_trainer).
IDENTIFIERS = "identifiers"
#: Bumped when the head's files or features change meaning; older folders are refused.
FORMAT = 2
#: Trimmed from the pieces of a cut span besides a unit's edges (gen.text.units): the
#: brackets around an identifier ("(anna@example.org)") are left behind by the cut.
_BRACKETS = "()"
#: Below this many characters the language guess is not trusted.
_MIN_CHARS_FOR_LANGUAGE = 40


def encoder_spec(info: dict[str, Any], folder: Path) -> EncoderSpec:
    """The encoder a detector folder names, checked to be the same file it trained with."""
    if info.get("format") != FORMAT:
        raise UsageError(
            f"{folder}: encoder detector format {info.get('format')!r}, this gen reads "
            f"format {FORMAT}; train it again with gen train --trainer encoder"
        )
    path = Path(info["encoder"])
    if not path.is_file():
        raise UsageError(
            f"{folder}: its encoder {path} is not found; put the same .gguf file there "
            "(sha256 " + info["encoder_sha256"][:12] + "...)"
        )
    sha = file_sha256(path)
    if sha != info["encoder_sha256"]:
        raise UsageError(
            f"{folder}: encoder {path} has sha256 {sha[:12]}..., the detector was trained "
            f"with {info['encoder_sha256'][:12]}...; give it the same model file"
        )
    return EncoderSpec(path, sha, int(info["window"]), int(info["overlap"]))


class EncoderDetector:
    """Units of each text scored by the stored head; see the module docstring."""

    def __init__(self, folder: Path, info: dict[str, Any]) -> None:
        self.folder = Path(folder)
        self.cache = shared_cache(encoder_spec(info, self.folder))
        try:
            with np.load(self.folder / HEAD_FILE) as head:
                self.head = LinearHead.from_arrays(head)
                self.classes = [str(c) for c in head["classes"]]
                self.thresholds = head["thresholds"]
        except (OSError, KeyError, ValueError) as exc:
            raise UsageError(f"{self.folder / HEAD_FILE}: not an encoder head ({exc})") from None
        self.unit = str(info["unit"])
        self.languages = list(info["languages"])
        self.identifier_labels = set(info.get("identifiers", []))
        self.identifiers = None
        if self.identifier_labels:
            from gen.train import load_detector

            self.identifiers = load_detector(self.folder / IDENTIFIERS)
        #: Every class but the first ("none"), then the identifier labels.
        self.labels = [*self.classes[1:], *sorted(self.identifier_labels)]
        self.categories = self.classes[1:]

    def language(self, text: str) -> str:
        if len(self.languages) > 1 and len(text) >= _MIN_CHARS_FOR_LANGUAGE:
            guess, _ = detect_language(text)
            if guess in self.languages:
                return guess
        return self.languages[0]

    def unit_scores(self, texts: Sequence[str]) -> list[tuple[list[tuple[int, int]], np.ndarray]]:
        """Each text's units and their class probabilities."""
        vectors = self.cache.vectors(texts, "encoder detector")
        scored = []
        for text, token_vectors in zip(texts, vectors, strict=True):
            units = text_units(text, self.language(text), self.unit)
            if not units:
                scored.append((units, np.zeros((0, len(self.classes)))))
                continue
            scored.append((units, self.head.probabilities(unit_features(token_vectors, units))))
        return scored

    def predict(self, texts: Sequence[str]) -> list[list[Span]]:
        found = []
        identifiers = self.identifiers.predict(texts) if self.identifiers else None
        for index, (units, probabilities) in enumerate(self.unit_scores(texts)):
            spans = []
            for (start, end), row in zip(units, probabilities, strict=True):
                best = int(np.argmax(row[1:]))
                if row[1 + best] >= self.thresholds[best]:
                    label = self.categories[best]
                    spans.append(Span(start, end, label, SOURCE, score=float(row[1 + best])))
            if identifiers is not None:
                kept = [s for s in identifiers[index] if s.label in self.identifier_labels]
                spans = sorted(kept + cut_around(texts[index], spans, kept), key=lambda s: s.start)
            found.append(spans)
        return found


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
