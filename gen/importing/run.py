"""`gen import`: read every file first, then write, so a bad file leaves the run untouched.

What is read is found by `gen.importing.inputs` (folders, `@LIST` files). A file's records
that carry no id are named after its path inside the folder given
(gen.core.record_files.file_record_id), as `gen predict` names them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from gen.core.errors import UsageError
from gen.core.packs import check_language, load_categories
from gen.core.record_files import file_record_id
from gen.core.records import Record
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from gen.importing import RecordDefaults
from gen.importing.annotated import left_out_reasons, taken
from gen.importing.gold import REJECTS, check_gold, keep_refused, labeled, refuse_wrong_format
from gen.importing.inputs import Input, find_inputs
from gen.importing.labels import LabelRules, UnknownLabels
from gen.importing.records import RECORDS, RecordOptions, read_records, record_inputs

TARGETS = ("documents", "gold", RECORDS)


@dataclass
class ImportReport:
    table: Path
    added: int = 0
    #: Stored records of the same id replaced by a changed one (`overwrite`).
    replaced: int = 0
    already_present: int = 0
    #: Replaced documents that `RUN/labeled` holds labeled in their old version.
    labeled_before: list[str] = field(default_factory=list)
    spans: Counter[str] = field(default_factory=Counter)
    by_format: Counter[str] = field(default_factory=Counter)
    #: Files inside the folders given that no reader takes (README.md...), left out.
    skipped: list[Path] = field(default_factory=list)
    #: What was left out or read otherwise than the files might suggest, counted (a
    #: cancelled annotation, a discontinuous entity split, a label left out...).
    notes: Counter[str] = field(default_factory=Counter)
    #: Spans per label gen does not know, imported with `allow_unknown_labels`.
    unknown_labels: Counter[str] = field(default_factory=Counter)
    #: Records refused for their overlapping spans (`--overlaps refuse`), with the reason
    #: in meta, kept in `rejects`.
    refused: list[Record] = field(default_factory=list)
    rejects: Path | None = None


def read_files(
    paths: Sequence[Path],
    target: str,
    defaults: RecordDefaults,
    format_name: str | None = None,
    rules: LabelRules | None = None,
    notes: Counter[str] | None = None,
    overlaps: str = "refuse",
    refused: list[Record] | None = None,
) -> list[Record]:
    """Every record of every file, checked; ids unique across the files."""
    inputs = find_inputs(paths, format_name)[0]
    read = read_inputs(inputs, target, defaults, rules, notes, overlaps, refused)
    return [record for _, record in read]


def read_inputs(
    inputs: Sequence[Input],
    target: str,
    defaults: RecordDefaults,
    rules: LabelRules | None = None,
    notes: Counter[str] | None = None,
    overlaps: str = "refuse",
    refused: list[Record] | None = None,
) -> list[tuple[str, Record]]:
    """The records of every input, each with where it was read (its file, and line where
    the format has lines): for gold, items that hold none left out, labels mapped (`rules`,
    default: gen's labels, no map), then every span checked and overlaps resolved
    (`overlaps`, gen.importing.gold); ids unique. What was left out is counted in `notes`,
    records refused for their overlaps are added to `refused`."""
    if target not in ("documents", "gold"):
        raise UsageError(f"--as {target!r}: expected documents or gold (records: import_files)")
    notes = Counter() if notes is None else notes
    refused = [] if refused is None else refused
    unknown = UnknownLabels()
    read: list[tuple[Path, Record]] = []
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
        if target == "gold":
            refuse_wrong_format(path, reader, found)
        kept = [r for r in (taken(record, target, notes) for record in found) if r is not None]
        if not kept:
            raise UsageError(f"{path}: no record holds gold: {left_out_reasons(found)}")
        if target == "gold":
            rules = rules or LabelRules.of()
            where = f"{path} record "
            kept = [
                labeled(r, rules, where=where + r.id, unknown=unknown, notes=notes) for r in kept
            ]
        read += [(path, record) for record in kept]
    if unknown.counts:
        raise unknown.error(rules.known if rules else ())
    if target == "gold":
        read, refused_here = check_gold(read, overlaps, notes)
        refused += refused_here
    placed = [(_place(path, record), record) for path, record in read]
    _unique(placed)
    return placed


def _place(path: Path, record: Record) -> str:
    line = record.meta.get("line")
    return f"{path}: line {line}" if line else str(path)


def _unique(read: Sequence[tuple[str, Record]]) -> None:
    """Refuse two records of one id, naming where each was read."""
    seen: dict[str, str] = {}
    for where, record in read:
        if record.id in seen:
            raise UsageError(f"{where}: id {record.id!r} is also in {seen[record.id]}")
        seen[record.id] = where


#: What makes an imported record another one than the record of its id already stored.
COMPARED_FIELDS = ("text", "category", "doc_type", "language", "spans")


def check_fields(
    read: Sequence[tuple[str, Record]],
    target: str,
    defaults: RecordDefaults,
    prompts_dir: Path | None,
) -> None:
    """Refuse a category or language the prompts do not know: `gen label` would fail on the
    document later, and a re-import would find its id taken. The defaults are checked for
    every target, each record's own fields for documents and records (gold is only
    scored), named with where the record was read (`read`: its file and line)."""
    categories = list(load_categories(prompts_dir).categories)
    checked = [("", defaults.category, defaults.language)]
    if target != "gold":
        checked += [(f"{place}: record {r.id}: ", r.category, r.language) for place, r in read]
    for where, category, language in checked:
        if category not in categories:
            raise UsageError(
                f"{where}unknown category {category!r}; expected one of: {', '.join(categories)}"
            )
        try:
            check_language(language, prompts_dir)
        except UsageError as exc:
            raise UsageError(f"{where}{exc}") from None


def _refuse_run_documents(paths: RunPaths, records: Sequence[Record]) -> None:
    """Refuse records under the ids of the run's own documents: in RUN/labeled they would
    stand for those documents, which `gen label` would then never label."""
    if not paths.documents.is_dir():
        return
    taken = sorted(RecordTable(paths.documents).ids() & {r.id for r in records})
    if taken:
        more = f" (and {len(taken) - 1} more)" if len(taken) > 1 else ""
        raise UsageError(
            f"id {taken[0]!r} is a document of {paths.documents}{more}: records imported "
            "--as records need ids of their own; import them into another run"
        )


def _changes(stored: Record, record: Record) -> list[str]:
    return [name for name in COMPARED_FIELDS if getattr(stored, name) != getattr(record, name)]


def import_files(
    run: Path,
    paths: Sequence[Path],
    target: str,
    defaults: RecordDefaults | None = None,
    format_name: str | None = None,
    *,
    prompts_dir: Path | None = None,
    overwrite: bool = False,
    label_map: Path | None = None,
    drop_unmapped: bool = False,
    allow_unknown_labels: bool = False,
    overlaps: str = "refuse",
    records_options: RecordOptions | None = None,
) -> ImportReport:
    """Add the records of `paths` to `RUN/documents`, `RUN/gold` or, as they are stored,
    `RUN/labeled` (`records`, gen.importing.records: `records_options` keep some span
    sources, find planned facts again). An id already there with
    the same record adds nothing (re-importing a file is a no-op); with another text or other
    fields it is refused, or replaced with `overwrite`. A gold label gen does not know is
    mapped (`label_map`), left out (`drop_unmapped`), kept (`allow_unknown_labels`, counted
    in the report) or refused: one rule for every format (gen.importing.labels). Gold
    records whose spans overlap are refused or resolved by `overlaps` (gen.importing.gold);
    refused ones are kept in `RUN/rejects/import` with their reason."""
    if target not in TARGETS:
        raise UsageError(f"--as {target!r}: expected one of {', '.join(TARGETS)}")
    defaults = defaults or RecordDefaults()
    check_fields([], target, defaults, prompts_dir)
    rules = LabelRules.of(prompts_dir, label_map, drop_unmapped, allow_unknown_labels)
    notes: Counter[str] = Counter()
    refused: list[Record] = []
    paths_of = RunPaths(Path(run))
    if target == RECORDS:
        if format_name is not None:
            raise UsageError("--format does not apply to --as records: gen's own record files")
        inputs, skipped = record_inputs(paths)
        read = read_records(inputs, records_options or RecordOptions(), notes, prompts_dir)
        _unique(read)
    elif records_options is not None:
        raise UsageError("--sources and --refind need --as records")
    else:
        inputs, skipped = find_inputs(paths, format_name)
        read = read_inputs(inputs, target, defaults, rules, notes, overlaps, refused)
    check_fields(read, target, defaults, prompts_dir)
    records = [record for _, record in read]
    if target == RECORDS:
        _refuse_run_documents(paths_of, records)
    tables = {"documents": paths_of.documents, "gold": paths_of.gold, RECORDS: paths_of.labeled}
    table_path = tables[target]
    report = ImportReport(table=table_path, skipped=skipped, notes=notes, refused=refused)
    stored = {r.id: r for r in RecordTable(table_path).read()} if table_path.is_dir() else {}
    changed = {r.id: r for r in records if r.id in stored and _changes(stored[r.id], r)}
    if changed and not overwrite:
        first = next(iter(changed.values()))
        more = f" (and {len(changed) - 1} more changed ids)" if len(changed) > 1 else ""
        raise UsageError(
            f"id {first.id!r} is already in {table_path} with another "
            f"{', '.join(_changes(stored[first.id], first))}{more}; pass --overwrite to "
            "replace the stored records, or give the new ones other ids"
        )
    new = [r for r in records if r.id not in stored]
    if changed:
        table = RecordTable(table_path)
        table.replace([changed.get(record_id, r) for record_id, r in stored.items()] + new)
    else:
        with RecordTable(table_path) as table:
            new = [r for r in new if r.id not in table.ids()]
            table.extend(new)
    if target == "gold":
        report.rejects = keep_refused(paths_of.rejects(REJECTS), refused, {r.id for r in records})
    report.added = len(new)
    report.replaced = len(changed)
    report.already_present = len(records) - len(new) - len(changed)
    imported = new + list(changed.values())
    report.spans.update(s.label for r in imported for s in r.spans)
    if target == "gold":
        report.unknown_labels = rules.unknown_in(imported)
    report.by_format.update(str(r.meta.get("imported_from", "")) for r in imported)
    if changed and target == "documents" and paths_of.labeled.is_dir():
        labeled = RecordTable(paths_of.labeled).ids()
        report.labeled_before = sorted(changed.keys() & labeled)
    return report
