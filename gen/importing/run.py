"""`gen import`: read every file first, then write, so a bad file leaves the run untouched."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from gen.core.errors import UsageError
from gen.core.records import Record
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from gen.importing import RecordDefaults, reader_for

TARGETS = ("documents", "gold")


@dataclass
class ImportReport:
    table: Path
    added: int = 0
    already_present: int = 0
    spans: Counter[str] = field(default_factory=Counter)
    by_format: Counter[str] = field(default_factory=Counter)


def read_files(
    paths: Sequence[Path], target: str, defaults: RecordDefaults, format_name: str | None = None
) -> list[Record]:
    """Every record of every file, checked; ids unique across the files."""
    if target not in TARGETS:
        raise UsageError(f"--as {target!r}: expected one of {', '.join(TARGETS)}")
    records: list[Record] = []
    seen: dict[str, Path] = {}
    for path in _expand(paths):
        reader = reader_for(path, format_name)
        if target == "gold" and not reader.labeled:
            raise UsageError(
                f"{path}: {reader.name} files carry no labels; import them --as documents"
            )
        found = reader.read(path, defaults)
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


def _expand(paths: Sequence[Path]) -> list[Path]:
    files = []
    for path in map(Path, paths):
        if not path.exists():
            raise UsageError(f"input {path} not found")
        files.extend(sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path])
    if not files:
        raise UsageError("no input files")
    return files


def import_files(
    run: Path,
    paths: Sequence[Path],
    target: str,
    defaults: RecordDefaults | None = None,
    format_name: str | None = None,
) -> ImportReport:
    """Add the records of `paths` to `RUN/documents` or `RUN/gold`; ids already there are
    kept as they are (re-importing a file adds nothing)."""
    records = read_files(paths, target, defaults or RecordDefaults(), format_name)
    paths_of = RunPaths(Path(run))
    table_path = paths_of.documents if target == "documents" else paths_of.gold
    report = ImportReport(table=table_path)
    with RecordTable(table_path) as table:
        present = table.ids()
        new = [r for r in records if r.id not in present]
        table.extend(new)
    report.added = len(new)
    report.already_present = len(records) - len(new)
    report.spans.update(s.label for r in new for s in r.spans)
    report.by_format.update(str(r.meta.get("imported_from", "")) for r in new)
    return report
