"""Plain text: one `.txt` file is one document (no labels). Line ends become "\n" and a
UTF-8 byte order mark is dropped, as editors on Windows write both."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from gen.core.records import Record
from gen.importing import ImportFileError, RecordDefaults


class TextReader:
    name: ClassVar[str] = "text"
    suffixes: ClassVar[tuple[str, ...]] = (".txt",)
    labeled: ClassVar[bool] = False

    def sniff(self, path: Path) -> bool:
        return False

    def read(self, path: Path, defaults: RecordDefaults) -> list[Record]:
        try:
            text = path.read_text(encoding="utf-8-sig")
        except UnicodeDecodeError as exc:
            raise ImportFileError(path, f"not UTF-8 text (byte {exc.start})") from None
        if not text.strip():
            raise ImportFileError(path, "the file is empty")
        return [
            Record(
                id=defaults.record_id(path),
                text=text,
                category=defaults.category,
                doc_type=defaults.doc_type,
                language=defaults.language,
                source="import",
                meta={"imported_from": path.name},
            )
        ]
