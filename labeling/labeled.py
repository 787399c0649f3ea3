"""Pure steps of `gen label`: what a labeled record and a reject look like, and the order in
which documents are labeled."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from itertools import groupby

from gen.core.errors import UsageError
from gen.core.records import Record
from labeling import persona_pii
from labeling.persona_pii import persona_spans
from labeling.strategies import parse_strategies, strategy
from labeling.strategies.outcome import FAILED, FLAGGED, StrategyOutcome

STAGE = "label"


def labeled_record(
    document: Record,
    outcomes: Mapping[str, StrategyOutcome],
    strategy_key: str,
    provenance: Mapping[str, object],
    titles: Collection[str] = (),
) -> Record:
    """The document with persona PII (`titles`: the pack's doctor titles, left out of the
    doctor's name) and the spans of the strategies that ran (their older spans replaced,
    other sources kept), flags for distrusted strategies, and per-strategy status in
    `meta["labeling"]`."""
    replaced = {persona_pii.SOURCE, *(strategy(name).source for name in outcomes)}
    kept = [span for span in document.spans if span.source not in replaced]
    found = persona_spans(document.text, document.persona, titles)
    for outcome in outcomes.values():
        found.extend(outcome.spans)
    spans = sorted(kept + found, key=lambda span: (span.start, span.end, span.source))
    flags = [*document.flags, *(o.flag for o in outcomes.values() if o.flag)]
    labeling = {
        "strategy": strategy_key,
        **provenance,
        "strategies": {name: outcome.summary() for name, outcome in outcomes.items()},
    }
    return dataclasses.replace(
        document, spans=spans, flags=flags, meta={**document.meta, "labeling": labeling}
    )


def reject_record(document: Record, outcome: StrategyOutcome, model: str | None) -> Record:
    """A failed or flagged strategy answer, kept with its reason and raw answers."""
    return Record(
        id=f"{document.id}:{outcome.strategy}",
        text=document.text,
        category=document.category,
        doc_type=document.doc_type,
        language=document.language,
        source=document.source,
        persona=document.persona,
        model=model,
        seed=document.seed,
        group=document.group or document.id,
        meta={
            "stage": STAGE,
            "document_id": document.id,
            "strategy": outcome.strategy,
            "status": outcome.status,
            "reason": outcome.reason,
            "detail": outcome.detail,
            "answers": outcome.answers,
        },
        flags=[outcome.flag] if outcome.flag else [],
    )


def refused(
    document: Record, outcomes: Mapping[str, StrategyOutcome], model: str | None
) -> list[Record]:
    """The rejects of one labeled document: one per failed or flagged strategy."""
    return [
        reject_record(document, outcome, model)
        for outcome in outcomes.values()
        if outcome.status in (FAILED, FLAGGED)
    ]


def labeling_order(documents: Iterable[Record], done: set[str]) -> list[Record]:
    """What is left to label, by (language, category, id): one prompt prefix after another."""
    return sorted(
        (d for d in documents if d.id not in done), key=lambda d: (d.language, d.category, d.id)
    )


def batches(documents: Sequence[Record], size: int) -> Iterator[list[Record]]:
    """Runs of at most `size` documents sharing language and category (so one prompt prefix)."""
    for _, group in groupby(documents, key=lambda d: (d.language, d.category)):
        members = list(group)
        for start in range(0, len(members), size):
            yield members[start : start + size]


def previous_strategy(records: Iterable[Record]) -> str | None:
    for record in records:
        labeling = record.meta.get("labeling") or {}
        if labeling.get("strategy"):
            return str(labeling["strategy"])
    return None


def check_same_strategies(previous: str | None, strategy_key: str, labeled_dir: object) -> None:
    """A run folder is labeled with one set of strategies; resuming needs the same set."""
    if previous is None:
        return
    try:
        same = ",".join(parse_strategies(previous)) == strategy_key
    except UsageError:  # a strategy no longer registered
        same = False
    if not same:
        raise UsageError(
            f"{labeled_dir} was labeled with --strategy {previous}; re-run with "
            f"--strategy {previous} to resume, pass --overwrite to relabel everything, "
            "or use another --run folder"
        )
