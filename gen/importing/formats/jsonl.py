"""JSONL records: one JSON object per line with `id`, `text` and optional `spans`
(`{start, end, label}`), `category`, `doc_type`, `language` (the gold format,
docs/gold.md). Rows are validated by `gen.core.record_files` (nothing coerced); spans
that overlap are left to `gen.importing.gold`, which refuses or resolves their record
alone."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import ClassVar

from gen.core.record_files import read_record_file
from gen.core.records import Record
from gen.importing import RecordDefaults


class JsonlReader:
    name: ClassVar[str] = "jsonl"
    suffixes: ClassVar[tuple[str, ...]] = (".jsonl",)
    labeled: ClassVar[bool] = True

    def sniff(self, path: Path) -> bool:
        return False

    def read(self, path: Path, defaults: RecordDefaults) -> list[Record]:
        return [
            replace(
                record,
                category=record.category or defaults.category,
                doc_type=record.doc_type or defaults.doc_type,
                language=record.language or defaults.language,
                source="gold",
                meta={**record.meta, "imported_from": path.name},
            )
            for record in read_record_file(path, "file", allow_empty=True, overlapping=True)
        ]
