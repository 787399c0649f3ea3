"""`gen import`: read every file first, then write, so a bad file leaves the run untouched.

Folders are read recursively: each file goes to the reader that claims it, files no
reader takes (a README, a `.DS_Store`) are skipped and listed, and a record table folder
is read as one input. A file's records that carry no id are named after its path inside
the folder given (gen.core.record_files.file_record_id), as `gen predict` names them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from gen.core.errors import UsageError
from gen.core.record_files import file_record_id
from gen.core.records import Record
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from gen.importing import (
    Reader,
    RecordDefaults,
    claiming_reader,
    named_reader,
    reader_for,
    readers,
)

TARGETS = ("documents", "gold")


@dataclass
class ImportReport:
    table: Path
    added: int = 0
    already_present: int = 0
    spans: Counter[str] = field(default_factory=Counter)
    by_format: Counter[str] = field(default_factory=Counter)
    #: Files inside the folders given that no reader takes (README.md...), left out.
    skipped: list[Path] = field(default_factory=list)


@dataclass(frozen=True)
class Input:
    """One file (or record table folder) to read, the reader for it, and the folder given
    on the command line that holds it (None: given itself)."""

    path: Path
    reader: Reader
    folder: Path | None = None


def read_files(
    paths: Sequence[Path], target: str, defaults: RecordDefaults, format_name: str | None = None
) -> list[Record]:
    """Every record of every file, checked; ids unique across the files."""
    return read_inputs(find_inputs(paths, format_name)[0], target, defaults)


def find_inputs(
    paths: Sequence[Path], format_name: str | None = None
) -> tuple[list[Input], list[Path]]:
    """(what to read, files skipped). A file given by name must have a reader (or be read
    with `--format`); inside a folder, files no reader takes are skipped, and a record
    table folder (`part-*.parquet`, e.g. another run's `labeled/`) is one input."""
    chosen = [named_reader(format_name)] if format_name else readers()
    inputs: list[Input] = []
    skipped: list[Path] = []
    for path in map(Path, paths):
        if not path.exists():
            raise UsageError(f"input {path} not found")
        if not path.is_dir():
            inputs.append(Input(path, reader_for(path, format_name)))
            continue
        for found in _walk(path):
            reader = _table_reader(chosen) if found.is_dir() else claiming_reader(found, chosen)
            if reader is None:
                skipped.append(found)
            else:
                inputs.append(Input(found, reader, path))
    if not inputs:
        found_only = f" (only files no reader takes: {listed(skipped)})" if skipped else ""
        raise UsageError(f"no input files{found_only}")
    return inputs, skipped


def _walk(folder: Path) -> Iterator[Path]:
    """The files of `folder`, recursively and in order; a record table is one entry."""
    if RecordTable(folder).exists():
        yield folder
        return
    for path in sorted(folder.iterdir()):
        if path.is_dir():
            yield from _walk(path)
        elif path.is_file():
            yield path


def _table_reader(chosen: list[Reader]) -> Reader | None:
    return next((reader for reader in chosen if ".parquet" in reader.suffixes), None)


def listed(paths: Sequence[Path], limit: int = 10) -> str:
    """The first `limit` paths, comma-separated, and how many more."""
    shown = ", ".join(map(str, paths[:limit]))
    return shown + (f" and {len(paths) - limit} more" if len(paths) > limit else "")


def read_inputs(inputs: Sequence[Input], target: str, defaults: RecordDefaults) -> list[Record]:
    if target not in TARGETS:
        raise UsageError(f"--as {target!r}: expected one of {', '.join(TARGETS)}")
    records: list[Record] = []
    seen: dict[str, Path] = {}
    for item in inputs:
        path, reader = item.path, item.reader
        if target == "gold" and not reader.labeled:
            raise UsageError(
                f"{path}: {reader.name} files carry no labels; import them --as documents"
            )
        base = file_record_id(path, item.folder) if item.folder not in (None, path) else None
        found = reader.read(path, replace(defaults, id_base=base))
        if not found:
            raise UsageError(f"{path}: no records found (an empty {reader.name} file)")
        for record in found:
            if record.id in seen:
                raise UsageError(f"{path}: id {record.id!r} is also in {seen[record.id]}")
            seen[record.id] = path
            if target == "documents":
                record = replace(record, spans=[], source="import")
            records.append(record)
    return records


def import_files(
    run: Path,
    paths: Sequence[Path],
    target: str,
    defaults: RecordDefaults | None = None,
    format_name: str | None = None,
) -> ImportReport:
    """Add the records of `paths` to `RUN/documents` or `RUN/gold`; ids already there are
    kept as they are (re-importing a file adds nothing)."""
    inputs, skipped = find_inputs(paths, format_name)
    records = read_inputs(inputs, target, defaults or RecordDefaults())
    paths_of = RunPaths(Path(run))
    table_path = paths_of.documents if target == "documents" else paths_of.gold
    report = ImportReport(table=table_path, skipped=skipped)
    with RecordTable(table_path) as table:
        present = table.ids()
        new = [r for r in records if r.id not in present]
        table.extend(new)
    report.added = len(new)
    report.already_present = len(records) - len(new)
    report.spans.update(s.label for r in new for s in r.spans)
    report.by_format.update(str(r.meta.get("imported_from", "")) for r in new)
    return report
