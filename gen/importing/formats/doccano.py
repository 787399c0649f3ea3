"""Doccano JSONL exports of sequence labeling projects.

Shapes followed, as doccano documents its JSONL export (one object per line):

- Sequence labeling: `{"id": 1, "text": "...", "label": [[0, 4, "PER"], ...],
  "Comments": []}`.
- With relations: `{"id": 1, "text": "...", "entities": [{"id": 5, "label": "PER",
  "start_offset": 0, "end_offset": 4}], "relations": [...], "Comments": []}`.

Offsets are character (code point) indices, as doccano's Python backend stores them;
the export keeps no span text to re-anchor on, so they are taken as they are and
checked like every gold span. Relations and comments are not spans: left out and
counted. A file from doccano's "collaborative" mode off holds one user's labels: import the
file of the user whose labels are the gold ones.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, ClassVar

from gen.core.record_files import jsonl_rows
from gen.core.records import Record, Span
from gen.importing import ImportFileError, RecordDefaults
from gen.importing.annotated import (
    first_json_line,
    gold_span,
    is_offset,
    tool_record,
)

#: What an item holds besides its spans, counted where it is left out.
LEFT_OUT = {"relations": "doccano relations left out", "Comments": "doccano comments left out"}
EXPECTED = (
    'doccano\'s JSONL export: {"text": "...", "label": [[start, end, "LABEL"], ...]} or '
    '{"text": "...", "entities": [{"start_offset", "end_offset", "label"}]} per line'
)


class DoccanoReader:
    name: ClassVar[str] = "doccano"
    suffixes: ClassVar[tuple[str, ...]] = (".jsonl",)
    labeled: ClassVar[bool] = True
    span_fields: ClassVar[tuple[str, ...]] = ("label", "entities")

    def sniff(self, path: Path) -> bool:
        """A JSONL file whose first object has a text and doccano's `label` or `entities`
        (gen's own records have `spans`, and refuse any other key)."""
        if path.suffix.lower() != ".jsonl":
            return False
        first = first_json_line(path)
        return (
            isinstance(first, dict)
            and "text" in first
            and ("label" in first or "entities" in first)
            and "spans" not in first
        )

    def read(self, path: Path, defaults: RecordDefaults) -> list[Record]:
        records = []
        for line, row in jsonl_rows(path, str(path), EXPECTED, "doccano's JSONL export"):
            if not isinstance(row, dict) or not isinstance(row.get("text"), str):
                raise ImportFileError(path, f"expected an object with a text; {EXPECTED}", line)
            text = row["text"]
            notes: Counter[str] = Counter()
            spans = [
                *_labels(path, line, text, row, notes),
                *_entities(path, line, text, row, notes),
            ]
            for key, note in LEFT_OUT.items():
                if isinstance(row.get(key), list) and row[key]:
                    notes[note] += len(row[key])
            item = row.get("id")
            record_id = f"{defaults.record_id(path)}-{item if item is not None else line}"
            meta = {"line": line, "doccano_id": item}
            span_field = any(key in row for key in self.span_fields)
            records.append(tool_record(record_id, text, spans, path, defaults, meta=meta,
                                       notes=notes, span_field=span_field))  # fmt: skip
        return records


def _labels(
    path: Path, line: int, text: str, row: dict[str, Any], notes: Counter[str]
) -> list[Span]:
    labels = row.get("label") or []
    if not isinstance(labels, list):
        raise ImportFileError(path, f"label: expected a list, got {labels!r}", line)
    spans = []
    for index, item in enumerate(labels):
        if not (
            isinstance(item, list)
            and len(item) == 3
            and is_offset(item[0])
            and is_offset(item[1])
            and isinstance(item[2], str)
        ):
            hint = " (a text classification export?)" if isinstance(item, str) else ""
            raise ImportFileError(
                path, f'label.{index}: expected [start, end, "LABEL"], got {item!r}{hint}', line
            )
        spans.append(gold_span(text, item[0], item[1], item[2], notes))
    return spans


def _entities(
    path: Path, line: int, text: str, row: dict[str, Any], notes: Counter[str]
) -> list[Span]:
    entities = row.get("entities") or []
    if not isinstance(entities, list):
        raise ImportFileError(path, f"entities: expected a list, got {entities!r}", line)
    spans = []
    for index, item in enumerate(entities):
        if not isinstance(item, dict):
            raise ImportFileError(path, f"entities.{index}: expected an object", line)
        for key in ("start_offset", "end_offset"):
            if not is_offset(item.get(key)):
                raise ImportFileError(
                    path,
                    f"entities.{index}.{key}: expected an integer, got {item.get(key)!r}",
                    line,
                )
        if not isinstance(item.get("label"), str):
            raise ImportFileError(path, f"entities.{index}.label: expected a string", line)
        start, end = item["start_offset"], item["end_offset"]
        spans.append(gold_span(text, start, end, item["label"], notes))
    return spans
