"""Prodigy JSONL (`prodigy db-out DATASET`), as written by its span recipes (`ner.manual`,
`ner.correct`, `spans.manual`).

Shape followed, as Prodigy documents its annotation tasks: one object per line,
`{"text": "...", "tokens": [...], "spans": [{"start": 0, "end": 4, "token_start": 0,
"token_end": 0, "label": "PER"}], "_input_hash": 1, "_task_hash": 2,
"answer": "accept", "_timestamp": 1700000000, "_annotator_id": "ner-alice",
"_session_id": "ner-alice"}`.

Offsets are code points (Prodigy is written in Python); a span that stores its `text`
is re-anchored on it. Tokens are left out: spans are character offsets. Answers
`reject` and `ignore` are not gold: they are left out and counted. The lines of one
input (`_input_hash`) are one item: where several annotators accepted it, the latest
(`_timestamp`) is the gold one, or the latest of `--annotator` (a session or annotator
id, or the name after the dataset's in `ner-alice`); the lines merged so are counted. A
line without `answer` counts as accepted. Relations (`relations`, of `rel.manual`) are not
spans: left out and counted.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, ClassVar

from gen.core.errors import GenError
from gen.core.record_files import jsonl_rows
from gen.core.records import Record, Span
from gen.importing import ImportFileError, RecordDefaults
from gen.importing.annotated import (
    choose,
    first_json_line,
    gold_span,
    is_offset,
    tool_record,
)
from gen.review.gold import DISAGREEMENT_FLAG
from gen.review.offsets import OffsetMap, anchor

#: Keys only Prodigy writes.
HASH_KEYS = ("_input_hash", "_task_hash")
EXPECTED = 'Prodigy\'s JSONL: {"text": "...", "spans": [{"start", "end", "label"}], ...} per line'

Line = tuple[int, dict[str, Any]]


class ProdigyReader:
    name: ClassVar[str] = "prodigy"
    suffixes: ClassVar[tuple[str, ...]] = (".jsonl",)
    labeled: ClassVar[bool] = True
    span_fields: ClassVar[tuple[str, ...]] = ("spans",)

    def sniff(self, path: Path) -> bool:
        """A JSONL file whose first object has Prodigy's hashes, or a text and an answer."""
        if path.suffix.lower() != ".jsonl":
            return False
        first = first_json_line(path)
        return isinstance(first, dict) and (
            any(key in first for key in HASH_KEYS) or ("text" in first and "answer" in first)
        )

    def read(self, path: Path, defaults: RecordDefaults) -> list[Record]:
        groups: dict[Any, list[Line]] = {}
        for line, row in jsonl_rows(path, str(path), EXPECTED, "Prodigy's JSONL"):
            if not isinstance(row, dict) or not isinstance(row.get("text"), str):
                raise ImportFileError(path, f"expected an object with a text; {EXPECTED}", line)
            groups.setdefault(row.get("_input_hash", f"line {line}"), []).append((line, row))
        return [_record(path, lines, defaults) for lines in groups.values()]


def _who(row: dict[str, Any]) -> set[str]:
    """Ids of the annotator, and the name after the dataset's (`ner-alice` -> `alice`)."""
    ids = {str(row[key]) for key in ("_annotator_id", "_session_id") if row.get(key)}
    return ids | {name.rsplit("-", 1)[-1] for name in ids}


def _record(path: Path, lines: list[Line], defaults: RecordDefaults) -> Record:
    notes: Counter[str] = Counter()
    if len(lines) > 1:
        notes["Prodigy lines merged into the example of their _input_hash"] += len(lines) - 1
    trims: dict[int, Counter[str]] = {}
    accepted = [
        (line, row, _spans(path, line, row, trims.setdefault(line, Counter())))
        for line, row in lines
        if row.get("answer", "accept") == "accept"
    ]
    chosen = choose(
        accepted,
        annotator=defaults.annotator,
        who=lambda item: _who(item[1]),
        when=lambda item: item[1].get("_timestamp") or 0,
    )
    first_line, first = lines[0]
    input_hash = first.get("_input_hash")
    record_id = f"{defaults.record_id(path)}-{input_hash if input_hash is not None else first_line}"
    meta: dict[str, Any] = {"input_hash": input_hash}
    flags = []
    left_out = None
    if chosen is None and accepted:
        left_out = f"examples not accepted by {defaults.annotator} left out"
    elif chosen is None:
        left_out = f"examples answered {lines[-1][1].get('answer')} left out"
    else:
        others = Counter(
            str(row.get("answer")) for _, row in lines if row.get("answer", "accept") != "accept"
        )
        notes.update(
            {f"other annotators' {answer} answers left out": n for answer, n in others.items()}
        )
        line, row, _ = chosen
        notes.update(trims[line])
        if isinstance(row.get("relations"), list) and row["relations"]:
            notes["Prodigy relations left out"] += len(row["relations"])
        meta |= {"line": line, "annotator": row.get("_annotator_id"),
                 "annotated_at": row.get("_timestamp"), "answers": len(lines)}  # fmt: skip
        if len({frozenset((s.start, s.end, s.label) for s in item[2]) for item in accepted}) > 1:
            flags.append(DISAGREEMENT_FLAG)
            notes[f"examples whose annotators disagree (flagged {DISAGREEMENT_FLAG})"] += 1
    row = chosen[1] if chosen else lines[-1][1]
    return tool_record(record_id, row["text"], chosen[2] if chosen else [], path, defaults,
                       meta=meta, left_out=left_out, notes=notes, flags=flags,
                       span_field="spans" in row)  # fmt: skip


def _spans(path: Path, line: int, row: dict[str, Any], notes: Counter[str]) -> list[Span]:
    text = row["text"]
    spans = row.get("spans") or []
    if not isinstance(spans, list):
        raise ImportFileError(path, f"spans: expected a list, got {spans!r}", line)
    found = []
    offsets = OffsetMap.of(text)
    for index, span in enumerate(spans):
        if not isinstance(span, dict):
            raise ImportFileError(path, f"spans.{index}: expected an object", line)
        start, end, label = span.get("start"), span.get("end"), span.get("label")
        if not (is_offset(start) and is_offset(end) and isinstance(label, str)):
            raise ImportFileError(
                path, f"spans.{index}: expected integer start and end and a label, got {span}", line
            )
        if span.get("text"):
            try:
                start, end = anchor(offsets, start, end, span["text"], "codepoint")
            except GenError as exc:
                raise ImportFileError(path, f"spans.{index}: {exc}", line) from None
        found.append(gold_span(text, start, end, label, notes))
    return found
