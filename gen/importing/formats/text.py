"""Plain text: one `.txt` file is one document (no labels), read as `gen predict` reads it
(`gen.core.record_files.read_text_file`: line ends become "\n", a byte order mark is
dropped, an empty file is refused)."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from gen.core.record_files import TEXT_SUFFIXES, read_text_file
from gen.core.records import Record
from gen.importing import RecordDefaults


class TextReader:
    name: ClassVar[str] = "text"
    suffixes: ClassVar[tuple[str, ...]] = TEXT_SUFFIXES
    labeled: ClassVar[bool] = False

    def sniff(self, path: Path) -> bool:
        return False

    def read(self, path: Path, defaults: RecordDefaults) -> list[Record]:
        return [
            Record(
                id=defaults.record_id(path),
                text=read_text_file(path),
                category=defaults.category,
                doc_type=defaults.doc_type,
                language=defaults.language,
                source="import",
                meta={"imported_from": path.name},
            )
        ]
