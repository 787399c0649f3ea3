"""Which documents teach a detector the most when reviewed (`gen review push --select`).

A reviewer's hour is best spent where the trained detector is wrong or unsure, not on
documents it already gets right. Three rules rank a pool of records:

- `uncertain`: the records the detector is least sure about. A detector with
  `unit_scores` (the encoder detector's units, the transformers detector's words) gives
  each unit class probabilities; a unit's
  doubt is how close its best sensitive label's probability p is to that label's
  threshold t, 1 - |p - t| / max(t, 1 - t) (1 at the threshold, 0 at the far end), and a
  record's is the largest over its units, so one unit right at its threshold ranks the
  record first. Other detectors give only their spans: a span's doubt is the closeness
  of its score to 0.5, and a record without a scored span is sure (0). A detector whose
  spans carry no score at all (spaCy ner) is refused before any record is scored.
- `disagreement`: the share of a record's words (gen.text.words, as in `gen label`'s
  agreement) whose label differs between the detector's spans and the record's own spans
  of the labels the detector knows: where the labels and the detector disagree, one of
  them is wrong.
- `random`: a seeded random sample, the baseline the other two must beat.

Records already pushed or reviewed are passed as `exclude` and never chosen, so each
round picks new documents; records the detector cannot read (`UnreadTexts`) are never
chosen either, and named. Ties (and the whole order of `random`)
follow a seeded hash of the id. `choose` is the pure part (scores -> ids); `select_ids`
scores a pool with a detector and chooses, for `push` and for scripts that have no server;
`selected_records` is what `push` sends: everything, the stratified sample
(gen.review.sample), or the selection, with what was left out.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from gen.core.errors import UsageError
from gen.core.progress import progress
from gen.core.records import Record, Span
from gen.predict.detector import Detector, UnreadTexts
from gen.predict.loader import load_detector
from gen.predict.run import BATCH, predict_records
from gen.review.sample import Stratify, sample_records, tie_break
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


def check_detector(rule: str, detector: Detector) -> None:
    """Refuse, before any record is scored, a detector that `rule` cannot read."""
    if rule == "uncertain" and not detector.scored:
        raise UsageError(
            "--select uncertain: the detector's spans carry no score (a spaCy ner model); "
            "use --select disagreement or random, or a detector that scores its spans"
        )


@dataclass
class Selection:
    #: The chosen record ids, the first chosen first.
    ids: list[str]
    #: Record id -> why the detector could not read it: never chosen.
    unread: dict[str, str]


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


def uncertainty_scores(
    detector: Detector, records: Sequence[Record]
) -> tuple[list[float], dict[str, str]]:
    """Each record's doubt, from unit probabilities where the detector gives them, else
    from its span scores; and the records it could not read (doubt 0)."""
    scorer: Any = detector  # the encoder and transformers detectors: unit_scores, thresholds
    if not hasattr(scorer, "unit_scores"):
        predicted = predict_records(detector, records, description="select")
        found = {r.id: span_uncertainty(r.spans) for r in predicted.records}
        scores = [found.get(record.id) or 0.0 for record in records]
        return scores, predicted.unread
    thresholds = np.asarray(scorer.thresholds, dtype=float)
    scores, unread = [], {}
    with progress("select", len(records)) as bar:
        for start in range(0, len(records), BATCH):
            batch = records[start : start + BATCH]
            try:
                results, reasons = scorer.unit_scores([record.text for record in batch]), {}
            except UnreadTexts as exc:
                results, reasons = exc.results, exc.reasons
            for index, (_units, probabilities) in enumerate(results):
                scores.append(unit_uncertainty(probabilities, thresholds))
                if index in reasons:
                    unread[batch[index].id] = reasons[index]
            bar.advance(len(batch))
    return scores, unread


def disagreement(text: str, first: Sequence[Span], second: Sequence[Span]) -> float:
    """The share of the words of `text` whose label differs between two span sets."""
    labels = zip(token_labels(text, first), token_labels(text, second), strict=True)
    differs = [a != b for a, b in labels]
    return sum(differs) / len(differs) if differs else 0.0


def disagreement_scores(
    detector: Detector, records: Sequence[Record]
) -> tuple[list[float], dict[str, str]]:
    """Each record's disagreement with the detector, on the labels the detector knows
    (a PII span is no fault of a detector of special categories); and the records it could
    not read (0)."""
    known = set(detector.labels)
    predicted = predict_records(detector, records, description="select")
    found = {record.id: record.spans for record in predicted.records}
    scores = [
        disagreement(record.text, [s for s in record.spans if s.label in known], found[record.id])
        if record.id in found
        else 0.0
        for record in records
    ]
    return scores, predicted.unread


def select_ids(
    records: Sequence[Record],
    rule: str,
    n: int,
    *,
    detector: Detector | None = None,
    seed: int = 0,
    exclude: Collection[str] = (),
) -> Selection:
    """The ids of up to `n` records of `records` by `rule`, none of `exclude` (only the
    other records are shown to the detector) nor of those the detector cannot read."""
    check_rule(rule, detector is not None)
    candidates = [record for record in records if record.id not in exclude]
    unread: dict[str, str] = {}
    if detector is None:
        scores = [0.0] * len(candidates)
    else:
        check_detector(rule, detector)
        rule_scores = uncertainty_scores if rule == "uncertain" else disagreement_scores
        scores, unread = rule_scores(detector, candidates)
    by_id = {record.id: score for record, score in zip(candidates, scores, strict=True)}
    return Selection(choose(by_id, n, seed=seed, exclude={*exclude, *unread}), unread)


@dataclass
class Chosen:
    """The records to push, and what choosing them left out."""

    records: list[Record]
    #: Records `--select` left out: already in the project or in RUN/gold.
    skipped: int = 0
    #: Record id -> why the detector could not read it (never chosen).
    unread: dict[str, str] = field(default_factory=dict)
    #: Said when `--sample` asks for more documents than there are to choose from.
    note: str | None = None


def selection_detector(folder: Path | None, rule: str | None) -> Detector | None:
    """The detector `--select RULE` scores with, loaded and checked before any work."""
    if folder is None or rule is None:
        return None
    detector = load_detector(folder)
    check_detector(rule, detector)
    return detector


def selected_records(
    records: list[Record],
    sample: int | None,
    *,
    select: str | None = None,
    stratify: Stratify | None = None,
    seed: int = 0,
    exclude: Collection[str] = (),
    detector: Detector | None = None,
) -> Chosen:
    """All `records`, the stratified sample of `sample` of them (gen.review.sample), or the
    `sample` that rule `select` picks with `detector` among those not in `exclude`."""
    if sample is None:
        return Chosen(records)
    if select is None:
        chosen = sample_records(records, sample, stratify or "category", seed)
        return Chosen(chosen, note=_short_note(sample, len(records), "in the table"))
    selection = select_ids(records, select, sample, detector=detector, seed=seed, exclude=exclude)
    by_id = {record.id: record for record in records}
    skipped = len(by_id.keys() & set(exclude))
    pool = len(by_id) - skipped - len(selection.unread)
    return Chosen(
        [by_id[record_id] for record_id in selection.ids],
        skipped,
        selection.unread,
        _short_note(sample, pool, "left to choose from"),
    )


def _short_note(sample: int, pool: int, where: str) -> str | None:
    if sample <= pool:
        return None
    return f"note: --sample {sample}, but only {pool} documents {where}: all {pool} taken"
