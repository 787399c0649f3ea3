"""What `gen score` stores per document, and how `gen build` and `gen inspect` read it back.

`RUN/quality` holds one record per scored document: the document's own fields and text
(so a score is never joined to another text under the same id), the scores in
`meta.quality` (`{"real": 0.83, "language": 0.97}`: the probability of a yes answer), the
questions whose answer failed in `meta.quality_failed` (`{"persona": "model_error"}`; the
reason and detail are also in `RUN/rejects/score`), and the model that answered in
`meta.scoring`. A side table rather than new fields of `RUN/documents`: the documents are
never rewritten, and a finished run can be scored again with another model.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from gen.core.records import Record
from gen.core.runs import RunPaths
from gen.core.store import RecordTable

STAGE = "score"
#: The records `gen score` scores: generated documents.
SCORED_SOURCE = "llm"
#: Where a record keeps its scores, and the questions whose answer failed, with the reason.
META_KEY = "quality"
FAILED_KEY = "quality_failed"
#: The backend and model that answered.
SCORING_KEY = "scoring"


def scored_record(
    document: Record,
    scores: Mapping[str, float],
    failed: Mapping[str, str],
    provenance: Mapping[str, Any],
) -> Record:
    """The record of `document` in RUN/quality (its spans and prompt are not needed there)."""
    meta: dict[str, Any] = {META_KEY: dict(scores), SCORING_KEY: dict(provenance)}
    if failed:
        meta[FAILED_KEY] = dict(failed)
    return dataclasses.replace(
        document, spans=[], prompt=None, model=provenance.get("model"), meta=meta, flags=[]
    )


def reject_record(document: Record, question: str, reason: str, detail: str) -> Record:
    """A question whose answer failed, kept with its reason in RUN/rejects/score."""
    return dataclasses.replace(
        document,
        id=f"{document.id}:{question}",
        spans=[],
        group=document.group or document.id,
        meta={
            "stage": STAGE,
            "document_id": document.id,
            "question": question,
            "reason": reason,
            "detail": detail,
        },
        flags=[],
    )


def previous_model(records: Iterable[Record]) -> str | None:
    """The model that scored the records already stored, if any."""
    for record in records:
        model = (record.meta.get(SCORING_KEY) or {}).get("model")
        if model:
            return str(model)
    return None


def read_scored(paths: RunPaths) -> dict[str, Record]:
    """The records of RUN/quality by document id; none when the run was never scored."""
    table = RecordTable(paths.quality)
    return {record.id: record for record in table.read()} if table.exists() else {}


def with_quality(records: Sequence[Record], scored: Mapping[str, Record]) -> list[Record]:
    """`records` with the scores of the scored record of the same id and text in their meta
    (`quality`, and `quality_failed` when an answer failed); the others as they are."""
    joined = []
    for record in records:
        entry = scored.get(record.id)
        if entry is None or entry.text != record.text:
            joined.append(record)
            continue
        meta = {**record.meta, META_KEY: dict(entry.meta.get(META_KEY) or {})}
        if entry.meta.get(FAILED_KEY):
            meta[FAILED_KEY] = dict(entry.meta[FAILED_KEY])
        joined.append(dataclasses.replace(record, meta=meta))
    return joined
