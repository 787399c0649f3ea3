"""A trained detector: texts in, character spans out (`source = model`).

The protocol every trainer's model meets; `gen.train.load_detector` finds the
trainer that made a model folder and asks it for one. Long texts are cut into
overlapping windows by the detector (`gen.predict.windows`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from gen.core.records import Span

#: The span source of every predicted span.
SOURCE = "model"


class Detector(Protocol):
    #: The labels the detector can predict.
    labels: list[str]

    def predict(self, texts: Sequence[str]) -> list[list[Span]]:
        """Non-overlapping spans of each text, with `score` where the model gives one."""
        ...
