"""Records as Label Studio tasks: the text to review and the LLM's spans as predictions.

Each span source (faker, llm_sentences, llm_censor) becomes one prediction, so
a reviewer can switch between the strategies and accept, fix or delete their
spans instead of labeling from zero. A region keeps the labeler's `score`; the
prediction's score is their mean. The record id travels in the task data
(`gen_id`), which is how a pull finds the record again and how a second push
knows what is already there.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from statistics import fmean
from typing import Any

from gen.core.records import Record, Span
from gen.review.config import HEADER_KEY, TEXT_KEY, LabelTarget
from gen.review.offsets import OffsetMap, OffsetUnit

#: Task data key holding the record id.
ID_KEY = "gen_id"
#: Record fields copied into the task data, so an export file alone rebuilds the record.
RECORD_KEYS = ("category", "doc_type", "language")


def header(record: Record) -> str:
    """One line above the text: what the document is and why it may need a closer look."""
    parts = [record.id, record.category, record.doc_type]
    if record.flags:
        parts.append("flags: " + ", ".join(record.flags))
    return " · ".join(part for part in parts if part)


def _score(span: Span) -> float | None:
    return span.score if span.score is not None and math.isfinite(span.score) else None


def region(
    span: Span, offsets: OffsetMap, target: LabelTarget, unit: OffsetUnit, number: int
) -> dict[str, Any]:
    """One span as a Label Studio result region, offsets in `unit`."""
    result: dict[str, Any] = {
        "id": f"{span.source}-{number}",
        "from_name": target.from_name,
        "to_name": target.to_name,
        "type": "labels",
        "value": {
            "start": offsets.to_unit(span.start, unit),
            "end": offsets.to_unit(span.end, unit),
            "text": offsets.text[span.start : span.end],
            "labels": [span.label],
        },
    }
    score = _score(span)
    if score is not None:
        result["score"] = score
    return result


def predictions(
    record: Record, target: LabelTarget, unit: OffsetUnit, offsets: OffsetMap | None = None
) -> list[dict[str, Any]]:
    """One prediction per span source, named by `model_version`."""
    offsets = offsets or OffsetMap.of(record.text)
    by_source: dict[str, list[Span]] = {}
    for span in sorted(record.spans, key=lambda s: (s.start, s.end)):
        by_source.setdefault(span.source, []).append(span)
    found = []
    for source, spans in sorted(by_source.items()):
        prediction: dict[str, Any] = {
            "model_version": source,
            "result": [region(s, offsets, target, unit, i) for i, s in enumerate(spans)],
        }
        scores = [score for score in map(_score, spans) if score is not None]
        if scores:
            prediction["score"] = fmean(scores)
        found.append(prediction)
    return found


def task_data(record: Record) -> dict[str, Any]:
    data: dict[str, Any] = {TEXT_KEY: record.text, HEADER_KEY: header(record), ID_KEY: record.id}
    data.update({key: getattr(record, key) for key in RECORD_KEYS})
    data["flags"] = list(record.flags)
    return data


def task(record: Record, target: LabelTarget, unit: OffsetUnit) -> dict[str, Any]:
    """The import payload of one record: its data and its predictions."""
    return {"data": task_data(record), "predictions": predictions(record, target, unit)}


def labels_in_use(records: Iterable[Record]) -> set[str]:
    return {span.label for record in records for span in record.spans}
