"""Which documents teach a detector the most when reviewed (`gen review push --select`).

A reviewer's hour is best spent where the trained detector is wrong or unsure, not on
documents it already gets right. Three rules rank a pool of records:

- `uncertain`: the records the detector is least sure about. A detector with
  `unit_scores` (the encoder detector) gives each unit class probabilities; a unit's
  doubt is how close its best sensitive label's probability p is to that label's
  threshold t, 1 - |p - t| / max(t, 1 - t) (1 at the threshold, 0 at the far end), and a
  record's is the largest over its units, so one unit right at its threshold ranks the
  record first. Other detectors give only their spans: a span's doubt is the closeness
  of its score to 0.5, and a record without a scored span is sure (0). A detector whose
  spans carry no score at all (spaCy ner) is refused.
- `disagreement`: the share of a record's words (gen.text.words, as in `gen label`'s
  agreement) whose label differs between the detector's spans and the record's own spans
  of the labels the detector knows: where the labels and the detector disagree, one of
  them is wrong.
- `random`: a seeded random sample, the baseline the other two must beat.

Records already pushed or reviewed are passed as `exclude` and never chosen, so each
round picks new documents. Ties (and the whole order of `random`) follow a seeded hash
of the id. `choose` is the pure part (scores -> ids); `select_ids` scores a pool with a
detector and chooses, for `push` and for scripts that have no server.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from typing import Any

import numpy as np

from gen.core.errors import UsageError
from gen.core.progress import progress
from gen.core.records import Record, Span
from gen.predict.detector import Detector
from gen.predict.run import BATCH, predict_records
from gen.review.sample import tie_break
from labeling.agreement import token_labels

RULES = ("uncertain", "disagreement", "random")
#: The rules that score records with a trained detector.
NEEDS_DETECTOR = ("uncertain", "disagreement")


def check_rule(rule: str, has_detector: bool) -> None:
    """Refuse an unknown rule, a rule without the detector it needs, and a detector no
    rule reads."""
    if rule not in RULES:
        raise UsageError(f"unknown --select {rule!r}; expected one of {', '.join(RULES)}")
    if rule in NEEDS_DETECTOR and not has_detector:
        raise UsageError(f"--select {rule} needs --detector DIR, a model folder of gen train")
    if rule not in NEEDS_DETECTOR and has_detector:
        raise UsageError(f"--select {rule} reads no detector; leave out --detector")


def choose(
    scores: Mapping[str, float], n: int, *, seed: int = 0, exclude: Collection[str] = ()
) -> list[str]:
    """Up to `n` ids, highest score first, ties in the seeded order; `exclude` never."""
    ranked = sorted(
        (record_id for record_id in scores if record_id not in exclude),
        key=lambda record_id: (-scores[record_id], tie_break(record_id, seed)),
    )
    return ranked[:n]


def closeness(probability: Any, threshold: Any) -> Any:
    """1 where the probability is at the threshold, 0 at the farthest end (0 or 1)."""
    return 1.0 - np.abs(probability - threshold) / np.maximum(threshold, 1.0 - threshold)


def unit_uncertainty(probabilities: np.ndarray, thresholds: np.ndarray) -> float:
    """A record's doubt from its (units, classes) probabilities, column 0 "none": the
    largest closeness of a unit's best sensitive label to that label's threshold."""
    if len(probabilities) == 0:
        return 0.0
    sensitive = np.asarray(probabilities, dtype=float)[:, 1:]
    best = sensitive.argmax(axis=1)
    chosen = sensitive[np.arange(len(best)), best]
    return float(closeness(chosen, thresholds[best]).max())


def span_uncertainty(spans: Sequence[Span]) -> float | None:
    """The largest closeness of a span score to 0.5; None when no span has a score."""
    scores = [s.score for s in spans if s.score is not None and math.isfinite(s.score)]
    return max(float(closeness(score, 0.5)) for score in scores) if scores else None


def uncertainty_scores(detector: Detector, records: Sequence[Record]) -> list[float]:
    """Each record's doubt: from unit probabilities where the detector gives them, else
    from its span scores."""
    scorer: Any = detector  # the encoder detector has unit_scores and thresholds
    if not hasattr(scorer, "unit_scores"):
        predicted = predict_records(detector, records, description="select")
        found = [span_uncertainty(record.spans) for record in predicted]
        if any(record.spans for record in predicted) and all(f is None for f in found):
            raise UsageError(
                "--select uncertain: the detector's spans carry no score (a spaCy ner model); "
                "use --select disagreement or random, or a detector that scores its spans"
            )
        return [0.0 if value is None else value for value in found]
    thresholds = np.asarray(scorer.thresholds, dtype=float)
    scores = []
    with progress("select", len(records)) as bar:
        for start in range(0, len(records), BATCH):
            batch = records[start : start + BATCH]
            for _units, probabilities in scorer.unit_scores([record.text for record in batch]):
                scores.append(unit_uncertainty(probabilities, thresholds))
            bar.advance(len(batch))
    return scores


def disagreement(text: str, first: Sequence[Span], second: Sequence[Span]) -> float:
    """The share of the words of `text` whose label differs between two span sets."""
    labels = zip(token_labels(text, first), token_labels(text, second), strict=True)
    differs = [a != b for a, b in labels]
    return sum(differs) / len(differs) if differs else 0.0


def disagreement_scores(detector: Detector, records: Sequence[Record]) -> list[float]:
    """Each record's disagreement with the detector, on the labels the detector knows
    (a PII span is no fault of a detector of special categories)."""
    known = set(detector.labels)
    predicted = predict_records(detector, records, description="select")
    return [
        disagreement(record.text, [s for s in record.spans if s.label in known], found.spans)
        for record, found in zip(records, predicted, strict=True)
    ]


def select_ids(
    records: Sequence[Record],
    rule: str,
    n: int,
    *,
    detector: Detector | None = None,
    seed: int = 0,
    exclude: Collection[str] = (),
) -> list[str]:
    """The ids of up to `n` records of `records` by `rule`, none of `exclude` (only the
    other records are shown to the detector)."""
    check_rule(rule, detector is not None)
    candidates = [record for record in records if record.id not in exclude]
    if detector is None:
        scores = [0.0] * len(candidates)
    elif rule == "uncertain":
        scores = uncertainty_scores(detector, candidates)
    else:
        scores = disagreement_scores(detector, candidates)
    by_id = {record.id: score for record, score in zip(candidates, scores, strict=True)}
    return choose(by_id, n, seed=seed, exclude=exclude)
