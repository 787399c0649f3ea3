"""Submitted Label Studio annotations -> gold records, checked span by span.

The input is the task list of Label Studio's JSON export (what `gen review pull`
downloads and what `gen review export FILE` reads). For each task:

- the record is found by the `gen_id` in its data; its text must be the text of
  the run's record (a text that changed since the push is refused, since the
  reviewer's spans belong to the old one);
- every region is re-anchored on the text Label Studio stored with it
  (`gen.review.offsets`) and the spans are validated as every written span is;
- skipped (cancelled) annotations and tasks nobody submitted are not gold;
- when several reviewers submitted, all their spans are kept in `meta`, the
  record is flagged `review_disagreement` where they differ, and `prefer` picks
  whose spans are the gold ones.

A task that fails any check is refused whole, with the task id and the reason,
and kept as a rejected record: nothing is dropped silently.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gen.core.errors import GenError, UsageError
from gen.core.records import Record, Span, check_spans
from gen.review.config import TEXT_KEY
from gen.review.offsets import OffsetMap, OffsetUnit, anchor
from gen.review.tasks import ID_KEY, RECORD_KEYS
from gen.text.words import trim_invisible

GOLD = "gold"
DISAGREEMENT_FLAG = "review_disagreement"


class TaskRefused(GenError):
    """One task that cannot become gold; the message says which and why."""


@dataclass(frozen=True)
class Annotation:
    """One reviewer's submitted annotation of one task."""

    id: int | None
    annotator: str
    time: str
    spans: tuple[Span, ...]

    def span_set(self) -> frozenset[tuple[int, int, str]]:
        return frozenset((s.start, s.end, s.label) for s in self.spans)

    def to_meta(self) -> dict[str, Any]:
        return {
            "annotation_id": self.id,
            "annotator": self.annotator,
            "annotated_at": self.time,
            "spans": [[s.start, s.end, s.label] for s in self.spans],
        }


@dataclass
class ReviewResult:
    """Gold records, refused tasks (as records with `meta.reason`) and counts."""

    gold: list[Record] = field(default_factory=list)
    rejected: list[Record] = field(default_factory=list)
    #: Tasks with no submitted (non-skipped) annotation.
    unannotated: int = 0
    disagreements: list[str] = field(default_factory=list)


def annotator_name(completed_by: Any, users: Mapping[int, str]) -> str:
    """Reviewer's e-mail where known, else `user N` (exports store only the user id)."""
    if isinstance(completed_by, dict):
        return str(completed_by.get("email") or f"user {completed_by.get('id')}")
    return users.get(completed_by, f"user {completed_by}")


def read_annotation(
    raw: Mapping[str, Any], offsets: OffsetMap, unit: OffsetUnit, users: Mapping[int, str]
) -> Annotation:
    """The spans of one annotation's span regions; other result types are not spans."""
    spans = []
    for item in raw.get("result") or []:
        value = item.get("value") if isinstance(item, dict) else None
        if item.get("type") != "labels" or not isinstance(value, dict):
            continue
        try:
            start, end = anchor(offsets, int(value["start"]), int(value["end"]),
                                value.get("text"), unit)  # fmt: skip
        except (KeyError, TypeError, ValueError):
            raise TaskRefused(f"region {item.get('id')} has no numeric start/end") from None
        # A selection often takes in the space after a word (or an invisible character
        # before it); gold spans start and end on one.
        start, end = trim_invisible(offsets.text, start, end) or (start, end)
        spans += [Span(start, end, str(label), GOLD) for label in value.get("labels") or []]
    spans.sort(key=lambda s: (s.start, s.end, s.label))
    return Annotation(
        id=raw.get("id"),
        annotator=annotator_name(raw.get("completed_by"), users),
        time=str(raw.get("updated_at") or raw.get("created_at") or ""),
        spans=tuple(spans),
    )


def choose(annotations: Sequence[Annotation], prefer: str) -> Annotation:
    """The preferred reviewer's latest annotation, else the latest (or earliest) one."""
    named = [a for a in annotations if a.annotator == prefer]
    if named:
        return max(named, key=lambda a: a.time)
    if prefer == "earliest":
        return min(annotations, key=lambda a: a.time)
    return max(annotations, key=lambda a: a.time)


def task_record_id(task: Mapping[str, Any]) -> str | None:
    data = task.get("data")
    value = data.get(ID_KEY) if isinstance(data, dict) else None
    return str(value) if value is not None else None


def gold_record(
    task: Mapping[str, Any],
    base: Record | None,
    *,
    prefer: str,
    unit: OffsetUnit,
    users: Mapping[int, str],
) -> Record | None:
    """The gold record of one task (None when nobody submitted); TaskRefused otherwise."""
    data = task["data"]
    record_id = task_record_id(task)
    text = data.get(TEXT_KEY)
    if not isinstance(text, str):
        raise TaskRefused(f"its data has no {TEXT_KEY!r} string")
    if base is not None and base.text != text:
        raise TaskRefused(f"the text of record {record_id} changed since the push")
    submitted = [a for a in task.get("annotations") or [] if not a.get("was_cancelled")]
    if not submitted:
        return None
    offsets = OffsetMap.of(text)
    annotations = []
    for raw in submitted:
        annotation = read_annotation(raw, offsets, unit, users)
        check_spans(text, annotation.spans, record_id=f"{record_id} ({annotation.annotator})")
        annotations.append(annotation)
    chosen = choose(annotations, prefer)
    meta: dict[str, Any] = {
        **chosen.to_meta(),
        "task_id": task.get("id"),
        "project_id": task.get("project"),
        "text_source": base.source if base else None,
    }
    flags = []
    if len(annotations) > 1:
        meta["annotations"] = [a.to_meta() for a in annotations]
        if len({a.span_set() for a in annotations}) > 1:
            flags.append(DISAGREEMENT_FLAG)
    return Record(
        id=str(record_id),
        text=text,
        category=base.category if base else str(data.get("category") or ""),
        doc_type=base.doc_type if base else str(data.get("doc_type") or ""),
        language=base.language if base else str(data.get("language") or ""),
        source=GOLD,
        spans=list(chosen.spans),
        persona=base.persona if base else None,
        group=base.group if base else None,
        meta=meta,
        flags=flags,
    )


def refused_record(task: Mapping[str, Any], reason: str) -> Record:
    """A refused task kept with its reason and its raw annotations."""
    data = task.get("data") if isinstance(task.get("data"), dict) else {}
    text = data.get(TEXT_KEY)
    return Record(
        id=task_record_id(task) or f"task-{task.get('id')}",
        text=text if isinstance(text, str) else "",
        **{key: str(data.get(key) or "") for key in RECORD_KEYS},
        source=GOLD,
        meta={
            "reason": reason,
            "task_id": task.get("id"),
            "raw": json.dumps(task.get("annotations") or [], ensure_ascii=False),
        },
    )


def check_export(tasks: Any, source: str, project_id: int | None = None) -> list[dict[str, Any]]:
    """The task list of a Label Studio JSON export made from a `gen review push`
    project, or one UsageError naming `source` and what is wrong."""
    if not isinstance(tasks, list) or not all(isinstance(t, dict) for t in tasks):
        raise UsageError(f"{source}: expected Label Studio's JSON export (a list of tasks)")
    if tasks and not any(task_record_id(task) for task in tasks):
        raise UsageError(
            f"{source}: no task has a {ID_KEY!r} in its data; expected an export of a project "
            "that `gen review push` filled"
        )
    if project_id is not None:
        others = sorted(
            {t.get("project") for t in tasks if t.get("project") not in (None, project_id)}
        )
        if others:
            raise UsageError(
                f"{source}: tasks of project {', '.join(map(str, others))}, but this run was "
                f"pushed to project {project_id}; expected an export of project {project_id}"
            )
    return tasks


def check_records(
    tasks: Sequence[Mapping[str, Any]], records: Mapping[str, Record], source: str
) -> None:
    """UsageError when no task is a record of the run: an export of another run's project."""
    ids = {task_record_id(task) for task in tasks} - {None}
    if ids and not ids & records.keys():
        raise UsageError(
            f"{source}: none of its {len(ids)} tasks is a record of this run (e.g. "
            f"{sorted(ids)[0]}); expected an export of the project this run was pushed to"
        )


def review_tasks(
    tasks: Sequence[Mapping[str, Any]],
    records: Mapping[str, Record] | None,
    *,
    prefer: str = "latest",
    unit: OffsetUnit = "codepoint",
    users: Mapping[int, str] | None = None,
) -> ReviewResult:
    """Gold records of every submitted task; refused tasks with their reason.

    `records` are the run's records by id (None: take the record fields from the
    task data, as when importing an export without its run)."""
    result = ReviewResult()
    seen: dict[str, Any] = {}
    for task in tasks:
        record_id = task_record_id(task)
        try:
            if record_id is None:
                raise TaskRefused(f"its data has no {ID_KEY!r}")
            base = records.get(record_id) if records is not None else None
            if records is not None and base is None:
                raise TaskRefused(f"record {record_id} is not in the run")
            if record_id in seen:
                raise TaskRefused(
                    f"record {record_id} already has gold from task {seen[record_id]}"
                )
            gold = gold_record(task, base, prefer=prefer, unit=unit, users=users or {})
        except GenError as exc:
            reason = f"task {task.get('id')} (record {record_id}): {exc}"
            result.rejected.append(refused_record(task, reason))
            continue
        if gold is None:
            result.unannotated += 1
            continue
        seen[gold.id] = task.get("id")
        result.gold.append(gold)
        if DISAGREEMENT_FLAG in gold.flags:
            result.disagreements.append(gold.id)
    return result
