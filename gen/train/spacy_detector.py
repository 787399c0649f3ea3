"""A trained spaCy pipeline as a detector (the spaCy trainer's models): each text cut into
word windows, the spans its `ner` or `spancat` component finds in them merged back."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gen.core.records import Span
from gen.predict.detector import SOURCE
from gen.predict.windows import merge_windows, word_windows

#: The `doc.spans` group that spancat predicts (and learns from).
SPANS_KEY = "sc"


class SpacyDetector:
    """A spaCy pipeline as a detector; spancat spans carry their score, ner spans none."""

    def __init__(self, nlp: Any, component: str, window: int, overlap: int) -> None:
        self.nlp = nlp
        self.component = component
        self.window = window
        self.overlap = overlap
        self.labels = sorted(nlp.get_pipe(component).labels)
        self.scored = component == "spancat"

    def predict(self, texts: Sequence[str]) -> list[list[Span]]:
        windows = [word_windows(text, self.window, self.overlap) for text in texts]
        pieces = (
            text[w.start : w.end] for text, ws in zip(texts, windows, strict=True) for w in ws
        )
        docs = iter(self.nlp.pipe(pieces, batch_size=64))
        results = []
        for text, text_windows in zip(texts, windows, strict=True):
            found = [self._spans(next(docs), window.start) for window in text_windows]
            results.append(merge_windows(len(text), text_windows, found))
        return results

    def _spans(self, doc: Any, offset: int) -> list[Span]:
        if self.component == "ner":
            return [
                Span(e.start_char + offset, e.end_char + offset, e.label_, SOURCE) for e in doc.ents
            ]
        group = doc.spans[SPANS_KEY]
        scores = group.attrs.get("scores", [None] * len(group))
        return [
            Span(
                s.start_char + offset,
                s.end_char + offset,
                s.label_,
                SOURCE,
                score=None if score is None else round(float(score), 4),
            )
            for s, score in zip(group, scores, strict=True)
        ]
