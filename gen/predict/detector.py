"""A trained detector: texts in, character spans out (`source = model`).

The protocol every trainer's model meets; `gen.predict.loader.load_detector` finds the
trainer that made a model folder and asks it for one. Long texts are cut into
overlapping windows by the detector (`gen.predict.windows`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from gen.core.errors import GenError
from gen.core.records import Span

#: The span source of every predicted span.
SOURCE = "model"


class Detector(Protocol):
    #: The labels the detector can predict.
    labels: list[str]
    #: Whether its spans carry a score (a spaCy ner model's do not).
    scored: bool

    def predict(self, texts: Sequence[str]) -> list[list[Span]]:
        """Non-overlapping spans of each text, with `score` where the model gives one.
        Raises `UnreadTexts` after the others when it cannot read some texts."""
        ...


class UnreadTexts(GenError):
    """Texts a detector could not read in one call (their tokens do not map back to them):
    `reasons` maps the index of each to why, and `results` is what the call would return,
    with nothing found in those. A caller that can go on without them catches it
    (gen.predict.run.predict_records); for the others it stops the run with one line."""

    def __init__(self, reasons: dict[int, str], results: list[Any]) -> None:
        index, reason = next(iter(reasons.items()))
        super().__init__(
            f"the detector could not read {len(reasons)} of {len(results)} texts "
            f"(text {index + 1}: {reason})"
        )
        self.reasons = reasons
        self.results = results
