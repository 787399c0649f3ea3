"""Scores of a detector with `gen eval`'s metrics, on a split or on a gold set."""

from __future__ import annotations

import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from gen.core.errors import UsageError
from gen.core.packs import negative_labels
from gen.core.record_files import read_record_file
from gen.core.records import Record
from gen.evaluate.run import Evaluation, evaluate
from gen.predict.detector import Detector
from gen.predict.run import predict_records
from gen.train.data import TrainingData


@dataclass
class ScoredSet:
    name: str
    evaluation: Evaluation
    documents: int
    seconds: float
    #: Labels the detector predicts that the gold set never uses: dropped before scoring.
    ignored_labels: list[str]
    #: Gold labels the detector never learned: every such span counts as missed.
    unknown_labels: list[str]
    #: Record id -> why the detector could not read it: left out of the score.
    unread: dict[str, str]

    @property
    def documents_per_second(self) -> float:
        return self.documents / self.seconds if self.seconds else 0.0


def load_gold(path: Path, model_labels: Sequence[str]) -> list[Record]:
    """A gold file whose label set shares at least one label with the model's."""
    records = read_record_file(Path(path), "gold file", gold=True)
    gold_labels = _labels(records)
    if not gold_labels & set(model_labels):
        raise UsageError(
            f"the labels of gold file {path} ({', '.join(sorted(gold_labels)) or 'none'}) do not "
            f"match the model's ({', '.join(model_labels)}); train on a dataset built with the "
            "same label scheme (gen build --scheme)"
        )
    return records


def unseen_gold(gold: Sequence[Record], data: TrainingData) -> tuple[list[Record], list[str]]:
    """(the gold records the model neither trained on nor picked its checkpoint with, the
    ids left out). `gen build --sources gold` puts RUN/gold into the dataset, and RUN/gold
    is `gen train`'s default gold set: scoring those records would score the model on its
    own training data."""
    seen = {record.id for name in ("train", "dev") for record in data.splits.get(name, [])}
    kept = [record for record in gold if record.id not in seen]
    return kept, sorted(record.id for record in gold if record.id in seen)


@dataclass(frozen=True)
class GoldSet:
    """A gold set as `gen train` scores it, and what sets its score apart from `test`'s."""

    #: The records scored: those in neither the train nor the dev split.
    records: list[Record]
    #: The labels of the whole gold file: a prediction of one of them is judged even in
    #: the records left, which may hold none of it.
    labels: frozenset[str]
    #: Ids left out: in the train or dev split.
    left_out: list[str]
    #: Ids also in the test split, each with what the dataset's copy changed ("text",
    #: "spans"): the two tables judge those documents against different spans.
    differs: dict[str, str]
    #: How many scored records are in the test split too.
    in_test: int


def gold_set(gold: Sequence[Record], data: TrainingData) -> GoldSet:
    """The gold records to score, beside the test split the same detector is scored on."""
    kept, left_out = unseen_gold(gold, data)
    test = {record.id: record for record in data.splits.get("test", [])}
    shared = [record for record in kept if record.id in test]
    differs = {record.id: what for record in shared if (what := _changed(record, test[record.id]))}
    return GoldSet(kept, frozenset(_labels(gold)), left_out, differs, len(shared))


def _changed(gold: Record, dataset: Record) -> str | None:
    """What `gen build` changed in a gold record's dataset copy (--clean, its text; the
    sources, the label scheme or overlaps, its spans), or None."""
    if gold.text != dataset.text:
        return "text"
    if _span_set(gold) != _span_set(dataset):
        return "spans"
    return None


def _span_set(record: Record) -> set[tuple[int, int, str]]:
    negative = set(negative_labels())
    return {(s.start, s.end, s.label) for s in record.spans if s.label not in negative}


def _labels(records: Sequence[Record]) -> set[str]:
    return {s.label for r in records for s in r.spans} - set(negative_labels())


def score_sets(detector: Detector, data: TrainingData, gold: GoldSet | None) -> list[ScoredSet]:
    """The detector scored on the test split and, when given, the gold set."""
    scored = [score_detector("test", detector, data.splits["test"])]
    if gold is not None and gold.records:
        scored.append(score_detector("gold", detector, gold.records, set_labels=gold.labels))
    return scored


def score_detector(
    name: str,
    detector: Detector,
    records: Sequence[Record],
    *,
    set_labels: Collection[str] | None = None,
) -> ScoredSet:
    """Predict `records` and score the predictions against their spans (those the detector
    cannot read are left out, in `unread`).

    With `set_labels`, the labels of the whole set the records come from (a gold set
    labeled with another label set), predictions of other labels are left out: the set
    cannot say whether they are right."""
    started = time.perf_counter()
    predicted = predict_records(detector, records, description=f"score {name}")
    seconds = time.perf_counter() - started
    gold_labels = _labels(records) if set_labels is None else set(set_labels)
    ignored = [] if set_labels is None else sorted(set(detector.labels) - gold_labels)
    pred_records = [
        replace(r, spans=[s for s in r.spans if s.label not in ignored]) for r in predicted.records
    ]
    read = [record for record in records if record.id not in predicted.unread]
    return ScoredSet(
        name=name,
        evaluation=evaluate(read, pred_records),
        documents=len(read),
        seconds=seconds,
        ignored_labels=ignored,
        unknown_labels=sorted(gold_labels - set(detector.labels)),
        unread=predicted.unread,
    )
