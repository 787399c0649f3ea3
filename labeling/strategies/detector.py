"""Strategy `detector`: a detector trained with `gen train` labels the documents.

A detector that learned from exact spans (planned disclosures, hand labels, reviewed
documents) labels what has none: free documents, the passages of planned documents their
plan did not name, imported documents, other languages. No prompt and no generation: the
encoder detector reads one forward pass per document (gen.train.encoder_detector), so it
labels many times faster than the prompted strategies. Spans keep the detector's score;
the detector's own thresholds (chosen on its training run's dev split) decide what is
kept, and `--min-score`, when given, raises them (spans without a score, the identifiers of
a spaCy model, are kept). A document the detector cannot read (its tokens do not map back
to its text) fails with reason `unread`, named on one line; the others go on.
"""

from __future__ import annotations

from gen.core.errors import UsageError
from gen.core.progress import say
from gen.core.records import Record, Span
from gen.predict.detector import UnreadTexts
from gen.predict.loader import load_detector
from gen.predict.run import unread_lines
from labeling.strategies import LabelerSetup, Strategy
from labeling.strategies.outcome import FAILED, OK, StrategyOutcome

NAME = "detector"
SOURCE = "detector"
#: Reason of a document the detector could not read.
UNREAD = "unread"


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
        try:
            (found,) = self.detector.predict([document.text])
        except UnreadTexts as exc:
            (reason,) = exc.reasons.values()
            (line,) = unread_lines({document.id: reason})
            say(line)
            return StrategyOutcome(NAME, FAILED, reason=UNREAD, detail=reason)
        spans = [
            Span(s.start, s.end, s.label, SOURCE, quality=s.quality, score=s.score)
            for s in found
            if self.min_score is None or s.score is None or s.score >= self.min_score.of(s.label)
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
