"""JSONL records: one JSON object per line with `id`, `text` and optional `spans`
(`{start, end, label}`), `category`, `doc_type`, `language` (the gold format)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

from gen.core.errors import GenError
from gen.core.records import Record, Span, check_spans
from gen.importing import ImportFileError, RecordDefaults


class JsonlReader:
    name: ClassVar[str] = "jsonl"
    suffixes: ClassVar[tuple[str, ...]] = (".jsonl",)
    labeled: ClassVar[bool] = True

    def sniff(self, path: Path) -> bool:
        return False

    def read(self, path: Path, defaults: RecordDefaults) -> list[Record]:
        records = []
        with open(path, encoding="utf-8") as handle:
            try:
                lines = list(handle)
            except UnicodeDecodeError:
                raise ImportFileError(path, "not UTF-8 text") from None
        for number, line in enumerate(lines, 1):
            if line.strip():
                records.append(self._record(path, number, line, defaults))
        return records

    def _record(self, path: Path, number: int, line: str, defaults: RecordDefaults) -> Record:
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ImportFileError(path, f"not valid JSON ({exc.msg})", number) from None
        if not isinstance(row, dict):
            raise ImportFileError(path, "expected a JSON object", number)
        for key in ("id", "text"):
            if not isinstance(row.get(key), str) or not row[key]:
                raise ImportFileError(path, f"expected a non-empty string `{key}`", number)
        spans = [self._span(path, number, item) for item in row.get("spans") or []]
        try:
            check_spans(row["text"], spans, record_id=row["id"])
        except GenError as exc:
            raise ImportFileError(path, str(exc), number) from None
        return Record(
            id=row["id"],
            text=row["text"],
            category=str(row.get("category") or defaults.category),
            doc_type=str(row.get("doc_type") or defaults.doc_type),
            language=str(row.get("language") or defaults.language),
            source="gold",
            spans=spans,
            meta={"imported_from": path.name, "line": number},
        )

    @staticmethod
    def _span(path: Path, number: int, item: Any) -> Span:
        if not isinstance(item, dict):
            raise ImportFileError(path, f"span {item!r}: expected an object", number)
        start, end, label = item.get("start"), item.get("end"), item.get("label")
        if not (isinstance(start, int) and isinstance(end, int) and isinstance(label, str)):
            raise ImportFileError(
                path, f"span {item!r}: expected integer start and end and a label", number
            )
        score = item.get("score")
        return Span(start, end, label, "gold", score=None if score is None else float(score))
