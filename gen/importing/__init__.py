"""Outside texts into a run: documents to label, or gold records to score and train with.

Each input format is one module in `gen.importing.formats` with a `Reader`: its
`name`, the file `suffixes` it claims, `labeled` (whether it carries spans), an
optional `sniff(path)` that claims a file by its content (for formats that share a
suffix, such as the JSON exports of annotation tools), and `read(path, defaults)`
that yields records with exact character spans or raises `ImportFileError` naming
the file, the line and the problem. Adding a format is one new module plus a line
in `READERS`.

The labels of every format's gold follow one rule (`gen.importing.labels`). An
optional `companion(path)` names a file the reader reads along with `path` (BRAT's
`.txt` beside its `.ann`), which is then not read on its own. A tool reader returns every
item of its file; one that holds no gold (a task nobody annotated, a rejected answer)
says why in `meta["left_out"]`, and what was read otherwise than the file might
suggest is counted in `meta["import_notes"]` (`gen.importing.annotated`).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Protocol

from gen.core.errors import UsageError
from gen.core.record_files import file_record_id
from gen.core.records import Record

#: reader name -> "module:class", tried in this order.
READERS: dict[str, str] = {
    "text": "gen.importing.formats.text:TextReader",
    "jsonl": "gen.importing.formats.jsonl:JsonlReader",
    "parquet": "gen.importing.formats.parquet:ParquetReader",
    "conll": "gen.importing.formats.conll:ConllReader",
    "spacy": "gen.importing.formats.docbin:DocBinReader",
    "labelstudio": "gen.importing.formats.labelstudio:LabelStudioReader",
    "doccano": "gen.importing.formats.doccano:DoccanoReader",
    "prodigy": "gen.importing.formats.prodigy:ProdigyReader",
    "brat": "gen.importing.formats.brat:BratReader",
}


class ImportFileError(UsageError):
    """One bad input: `path: line N: problem`."""

    def __init__(self, path: Path, problem: str, line: int | None = None) -> None:
        where = f"{path}: line {line}" if line is not None else str(path)
        super().__init__(f"{where}: {problem}")


@dataclass(frozen=True)
class RecordDefaults:
    """Fields an input does not say itself, and what an annotation tool's export leaves
    open: which field holds the text, whose annotation is the gold one."""

    category: str = "other"
    doc_type: str = "imported"
    language: str = "en"
    #: The id of a file's records that carry none (gen.core.record_files.file_record_id);
    #: None: the file's name without suffix.
    id_base: str | None = None
    #: Label Studio: the task data field that holds the text (None: found in the data).
    text_field: str | None = None
    #: Whose annotation to take where several people annotated one item (an id or an
    #: e-mail); None: the latest.
    annotator: str | None = None

    def record_id(self, path: Path) -> str:
        return self.id_base or file_record_id(path)


class Reader(Protocol):
    name: ClassVar[str]
    suffixes: ClassVar[tuple[str, ...]]
    labeled: ClassVar[bool]

    def sniff(self, path: Path) -> bool: ...

    def read(self, path: Path, defaults: RecordDefaults) -> list[Record]: ...


def companion_of(reader: Reader, path: Path) -> Path | None:
    """The file `reader` reads along with `path`, if it reads one (see the module doc)."""
    companion = getattr(reader, "companion", None)
    return companion(path) if companion is not None else None


def readers() -> list[Reader]:
    found = []
    for target in READERS.values():
        module, cls = target.split(":")
        found.append(getattr(importlib.import_module(module), cls)())
    return found


def reader_for(path: Path, name: str | None = None) -> Reader:
    """The reader named `name`, else the first that sniffs the file, else the one of its suffix."""
    if name is not None:
        return named_reader(name)
    reader = claiming_reader(path)
    if reader is None:
        known = ", ".join(s for r in readers() for s in r.suffixes)
        raise UsageError(
            f"{path}: no reader for {path.suffix or 'files without a suffix'} (known: {known})"
        )
    return reader


def named_reader(name: str) -> Reader:
    available = readers()
    for reader in available:
        if reader.name == name:
            return reader
    raise UsageError(
        f"unknown input format {name!r}; expected one of {', '.join(r.name for r in available)}"
    )


def claiming_reader(path: Path, among: list[Reader] | None = None) -> Reader | None:
    """The first reader (of `among`, default all) that sniffs the file, else the first
    whose suffixes hold the file's; None when no reader takes it."""
    available = readers() if among is None else among
    for reader in available:
        if reader.sniff(path):
            return reader
    for reader in available:
        if path.suffix.lower() in reader.suffixes:
            return reader
    return None
