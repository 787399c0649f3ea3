"""Label Studio JSON exports of any project (Export > JSON, or the flat JSON-MIN).

Shapes followed, as Label Studio 1.x documents its export formats:

- JSON: a list of tasks, `{"id": 1, "project": 3, "data": {"text": "..."},
  "annotations": [{"id": 7, "completed_by": 1, "was_cancelled": false,
  "created_at": "...", "updated_at": "...", "result": [{"from_name": "label",
  "to_name": "text", "type": "labels", "value": {"start": 0, "end": 4,
  "text": "Anna", "labels": ["PER"]}}]}], "predictions": []}`.
- JSON-MIN: one object per annotation: the task's data keys at the top level, `id`
  (the task), each control's name (`label`) holding `[{"start", "end", "text",
  "labels"}]`, and `annotator`, `annotation_id`, `created_at`, `updated_at`,
  `lead_time`. Label Studio leaves cancelled annotations out of it.

Spans come from the `labels` results only (choices, relations... are counted and left
out). Each region is re-anchored on the text it stores, in code points or UTF-16 units
(`gen.review.offsets`, as `gen review pull` does); a region without its text is taken
as it is only where the two units agree (no character outside the BMP in the text).
Where several people annotated a task, the latest annotation (`updated_at`, else
`created_at`) is the gold one, or the latest of `--annotator`.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from gen.core.encodings import read_utf8
from gen.core.errors import GenError
from gen.core.record_files import BOM
from gen.core.records import Record
from gen.importing import ImportFileError, RecordDefaults
from gen.importing.annotated import (
    choose,
    is_offset,
    tool_record,
    trim_note,
)
from gen.review.gold import DISAGREEMENT_FLAG, Annotation, read_annotation
from gen.review.offsets import OffsetMap
from gen.review.tasks import ID_KEY, RECORD_KEYS

#: Keys of a JSON-MIN row that are not the task's data.
MIN_KEYS = frozenset(
    {"id", "annotator", "annotation_id", "created_at", "updated_at", "lead_time", "agreement"}
)
#: The text field of tasks that `gen review push` made.
GEN_TEXT_KEY = "text"
EXPECTED = "Label Studio's JSON export (a list of tasks with data and annotations) or JSON-MIN"


class LabelStudioReader:
    name: ClassVar[str] = "labelstudio"
    suffixes: ClassVar[tuple[str, ...]] = (".json",)
    labeled: ClassVar[bool] = True

    def sniff(self, path: Path) -> bool:
        return False

    def read(self, path: Path, defaults: RecordDefaults) -> list[Record]:
        items = _load(path)
        if not items:
            return []
        if any("data" in item or "annotations" in item for item in items):
            tasks = [_task(path, item) for item in items]
        else:
            tasks = _tasks_of_min(items)
        field = _text_field(path, tasks, defaults.text_field)
        return [_record(path, task, field, defaults) for task in tasks]


def _load(path: Path) -> list[dict[str, Any]]:
    try:
        items = json.loads(read_utf8(path, "Label Studio's JSON export").removeprefix(BOM))
    except json.JSONDecodeError as exc:
        problem = f"not JSON ({exc.msg}); expected {EXPECTED}"
        raise ImportFileError(path, problem, exc.lineno) from None
    if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
        raise ImportFileError(path, f"expected {EXPECTED}, not a list of objects")
    return items


def _task(path: Path, item: dict[str, Any]) -> dict[str, Any]:
    if not isinstance(item.get("data"), dict):
        raise ImportFileError(path, f"task {item.get('id')}: expected its data as an object")
    annotations = item.get("annotations") or []
    if not isinstance(annotations, list) or not all(isinstance(a, dict) for a in annotations):
        raise ImportFileError(path, f"task {item.get('id')}: expected a list of annotations")
    return item


def _tasks_of_min(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """JSON-MIN rows as tasks: the rows of one task id are its annotations."""
    tasks: dict[Any, dict[str, Any]] = {}
    for index, row in enumerate(rows):
        task_id = row.get("id", f"row {index + 1}")
        data = {k: v for k, v in row.items() if k not in MIN_KEYS and not _is_regions(v)}
        task = tasks.setdefault(task_id, {"id": task_id, "data": data, "annotations": []})
        if row.get("annotation_id") is None and row.get("annotator") is None:
            continue  # a task nobody annotated
        annotator = row.get("annotator")
        regions = [v for value in row.values() if _is_regions(value) for v in value]
        task["annotations"].append({
            "id": row.get("annotation_id"),
            "completed_by": annotator if is_offset(annotator) else {"email": annotator},
            "created_at": row.get("created_at"), "updated_at": row.get("updated_at"),
            "result": [{"type": "labels", "value": region} for region in regions],
        })  # fmt: skip
    return list(tasks.values())


def _is_regions(value: Any) -> bool:
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(v, dict) and "start" in v and "labels" in v for v in value)
    )


def _text_field(path: Path, tasks: list[dict[str, Any]], chosen: str | None) -> str:
    """`--text-field`, else the text of `gen review push` tasks, else the one string field
    of the task data; refused naming the candidates when there are several or none."""
    strings = sorted({k for t in tasks for k, v in t["data"].items() if isinstance(v, str)})
    if chosen is not None:
        for task in tasks:
            if not isinstance(task["data"].get(chosen), str):
                raise ImportFileError(
                    path,
                    f"task {task['id']}: its data has no {chosen!r} string (--text-field); "
                    f"string fields: {', '.join(strings) or 'none'}",
                )
        return chosen
    if any(ID_KEY in task["data"] for task in tasks):
        return GEN_TEXT_KEY
    if len(strings) == 1:
        return strings[0]
    if not strings:
        raise ImportFileError(path, "no task holds a string in its data; expected the text")
    raise ImportFileError(
        path,
        f"which data field holds the text? the tasks have several: {', '.join(strings)}; "
        "name it with --text-field",
    )


def _who(raw: Mapping[str, Any], annotation: Annotation) -> set[str]:
    """Every way `--annotator` may name the author: user id, `user N`, e-mail."""
    author = raw.get("completed_by")
    names = {annotation.annotator}
    if isinstance(author, dict):
        names |= {str(author.get("id")), str(author.get("email"))}
    elif author is not None:
        names.add(str(author))
    return names - {"None"}


def _with_texts(raw: dict[str, Any], offsets: OffsetMap) -> dict[str, Any]:
    """`raw` with each region that stores no text given the text at its offsets, where
    code points and UTF-16 units agree (no character outside the BMP); an empty region
    is refused as such (it has no text to re-anchor on)."""
    result = []
    for item in raw.get("result") or []:
        value = item.get("value") if isinstance(item, dict) else None
        if isinstance(value, dict) and item.get("type") == "labels" and not value.get("text"):
            start, end = value.get("start"), value.get("end")
            if start == end and is_offset(start):
                name = f"region {item['id']}" if item.get("id") else "a region"
                raise GenError(f"{name} is empty (start = end = {start})")
            fits = is_offset(start) and is_offset(end) and 0 <= start < end <= len(offsets.text)
            if fits and not offsets.astral:
                item = {**item, "value": {**value, "text": offsets.text[start:end]}}
        result.append(item)
    return {**raw, "result": result}


def _count_trimmed(raw: dict[str, Any], notes: Counter[str]) -> None:
    """Count in `notes` the spans of an annotation that lose whitespace or invisible
    characters at their edges: the regions whose text has some, one span per label."""
    for item in raw["result"]:
        value = item.get("value") if isinstance(item, dict) else None
        if isinstance(value, dict) and item.get("type") == "labels":
            text = value.get("text")
            if isinstance(text, str) and (note := trim_note(text, 0, len(text))):
                notes[note] += len(value.get("labels") or [])


def _record(path: Path, task: dict[str, Any], field: str, defaults: RecordDefaults) -> Record:
    data, task_id = task["data"], task.get("id")
    text = data.get(field)
    if not isinstance(text, str):
        raise ImportFileError(path, f"task {task_id}: its data has no {field!r} string")
    gen_id = data.get(ID_KEY)
    record_id = str(gen_id) if gen_id is not None else f"{defaults.record_id(path)}-{task_id}"
    notes: Counter[str] = Counter()
    offsets = OffsetMap.of(text)
    read = []
    for raw in task["annotations"]:
        if raw.get("was_cancelled"):
            notes["cancelled annotations left out"] += 1
            continue
        result = raw.get("result") or []
        others = Counter(str(r.get("type")) for r in result if r.get("type") != "labels")
        notes.update({f"{kind} results ignored": n for kind, n in others.items()})
        try:
            raw = _with_texts(raw, offsets)
            annotation = read_annotation(raw, offsets, "codepoint", {})
        except GenError as exc:
            raise ImportFileError(path, f"task {task_id} (record {record_id}): {exc}") from None
        read.append((raw, annotation))
    chosen = choose(
        read, annotator=defaults.annotator, who=lambda pair: _who(*pair), when=lambda p: p[1].time
    )
    left_out = None
    if chosen is None:
        left_out = (
            f"tasks not annotated by {defaults.annotator} left out"
            if read and defaults.annotator
            else "tasks without annotation left out"
        )
    # read_annotation trims each region's edges, as `gen review pull` does.
    spans = list(chosen[1].spans) if chosen is not None else []
    meta: dict[str, Any] = {"task_id": task_id, "project_id": task.get("project")}
    flags = []
    if chosen is not None:
        _count_trimmed(chosen[0], notes)
        meta.update(chosen[1].to_meta())
        meta.pop("spans")
        if len(read) > 1:
            meta["annotations"] = [annotation.to_meta() for _, annotation in read]
            if len({annotation.span_set() for _, annotation in read}) > 1:
                flags.append(DISAGREEMENT_FLAG)
                notes[f"tasks whose annotators disagree (flagged {DISAGREEMENT_FLAG})"] += 1
    fields = {key: str(data[key]) for key in RECORD_KEYS if gen_id is not None and data.get(key)}
    return tool_record(record_id, text, spans, path, defaults, meta=meta, left_out=left_out,
                       notes=notes, flags=flags, fields=fields)  # fmt: skip
