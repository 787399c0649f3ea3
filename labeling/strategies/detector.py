"""Strategy `detector`: a detector trained with `gen train` labels the documents.

A detector that learned from exact spans (planned disclosures, hand labels, reviewed
documents) labels what has none: free documents, the passages of planned documents their
plan did not name, imported documents, other languages. No prompt and no generation: the
encoder detector reads one forward pass per document (gen.train.encoder_detector), so it
labels many times faster than the prompted strategies. Spans keep the detector's score;
the detector's own thresholds (chosen on its training run's dev split) decide what is
kept, and `--min-score`, when given, raises them.
"""

from __future__ import annotations

from gen.core.errors import UsageError
from gen.core.records import Record, Span
from gen.train import load_detector
from labeling.strategies import LabelerSetup, Strategy
from labeling.strategies.outcome import OK, StrategyOutcome

NAME = "detector"
SOURCE = "detector"


class DetectorLabeler:
    """Every document of one language pack through one trained detector."""

    def __init__(self, setup: LabelerSetup) -> None:
        folder = setup.options.detector
        if folder is None:
            raise UsageError(
                "--strategy detector needs --detector DIR (the --out folder of gen train)"
            )
        self.detector = load_detector(folder)
        self.min_score = setup.options.detector_min_score

    def label(self, document: Record) -> StrategyOutcome:
        (found,) = self.detector.predict([document.text])
        spans = [
            Span(s.start, s.end, s.label, SOURCE, quality=s.quality, score=s.score)
            for s in found
            if self.min_score is None or (s.score or 0.0) >= self.min_score.of(s.label)
        ]
        return StrategyOutcome(NAME, OK, spans=spans, details={"found": len(found)})


STRATEGY = Strategy(
    name=NAME,
    source=SOURCE,
    summary="a detector trained with gen train (--detector DIR) marks what it learned",
    build=DetectorLabeler,
    needs_model=False,
    order=40,
    in_all=False,
)
