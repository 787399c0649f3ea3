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

from gen.core.errors import InvalidSpanError, UsageError
from gen.core.packs import check_language, load_categories
from gen.core.record_files import file_record_id, listed
from gen.core.records import Record, check_gold_spans
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from gen.importing import (
    Reader,
    RecordDefaults,
    claiming_reader,
    companion_of,
    named_reader,
    reader_for,
    readers,
)
from gen.importing.annotated import left_out_reasons, taken
from gen.importing.labels import LabelRules, UnknownLabels

TARGETS = ("documents", "gold")


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


@dataclass(frozen=True)
class Input:
    """One file (or record table folder) to read, the reader for it, and the folder given
    on the command line that holds it (None: given itself)."""

    path: Path
    reader: Reader
    folder: Path | None = None


def read_files(
    paths: Sequence[Path],
    target: str,
    defaults: RecordDefaults,
    format_name: str | None = None,
    rules: LabelRules | None = None,
    notes: Counter[str] | None = None,
) -> list[Record]:
    """Every record of every file, checked; ids unique across the files."""
    return read_inputs(find_inputs(paths, format_name)[0], target, defaults, rules, notes)


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
    # A file another reader reads along (BRAT's .txt beside its .ann) is not read alone.
    companions = {companion_of(item.reader, item.path) for item in inputs} - {None}
    inputs = [item for item in inputs if item.path not in companions]
    skipped = [path for path in skipped if path not in companions]
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


def read_inputs(
    inputs: Sequence[Input],
    target: str,
    defaults: RecordDefaults,
    rules: LabelRules | None = None,
    notes: Counter[str] | None = None,
) -> list[Record]:
    """The records of every input: for gold, items that hold none left out, labels mapped
    (`rules`, default: gen's labels, no map), then every span checked; ids unique. What
    was left out is counted in `notes`."""
    if target not in TARGETS:
        raise UsageError(f"--as {target!r}: expected one of {', '.join(TARGETS)}")
    notes = Counter() if notes is None else notes
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
        kept = [r for r in (taken(record, target, notes) for record in found) if r is not None]
        if not kept:
            raise UsageError(f"{path}: no record holds gold: {left_out_reasons(found)}")
        if target == "gold":
            rules = rules or LabelRules.of()
            where = f"{path} record "
            kept = [rules.apply(r, where=where + r.id, unknown=unknown, notes=notes) for r in kept]
        read += [(path, record) for record in kept]
    if unknown.counts:
        raise unknown.error(rules.known if rules else ())
    return _checked(read, target)


def _checked(read: Sequence[tuple[Path, Record]], target: str) -> list[Record]:
    """Records whose gold spans are valid and whose ids are unique; the first problem is
    raised naming its file, line or record and the span, with how many records have one."""
    problems = []
    if target == "gold":
        for path, record in read:
            try:
                check_gold_spans(record.text, record.spans, record_id=record.id)
            except InvalidSpanError as exc:
                line = record.meta.get("line")
                problems.append(f"{path}: {f'line {line}: ' if line else ''}{exc}")
    if problems:
        more = f" (and {len(problems) - 1} more records with bad spans)" if problems[1:] else ""
        raise UsageError(problems[0] + more)
    seen: dict[str, Path] = {}
    for path, record in read:
        if record.id in seen:
            raise UsageError(f"{path}: id {record.id!r} is also in {seen[record.id]}")
        seen[record.id] = path
    return [record for _, record in read]


#: What makes an imported record another one than the record of its id already stored.
COMPARED_FIELDS = ("text", "category", "doc_type", "language", "spans")


def check_fields(
    records: Sequence[Record], target: str, defaults: RecordDefaults, prompts_dir: Path | None
) -> None:
    """Refuse a category or language the prompts do not know: `gen label` would fail on the
    document later, and a re-import would find its id taken. The defaults are checked for
    both targets, each record's own fields for documents (gold is only scored)."""
    categories = list(load_categories(prompts_dir).categories)
    checked = [(None, defaults.category, defaults.language)]
    if target == "documents":
        checked += [(r, r.category, r.language) for r in records]
    for record, category, language in checked:
        where = f"{record.meta.get('imported_from')}: record {record.id}: " if record else ""
        if category not in categories:
            raise UsageError(
                f"{where}unknown category {category!r}; expected one of: {', '.join(categories)}"
            )
        try:
            check_language(language, prompts_dir)
        except UsageError as exc:
            raise UsageError(f"{where}{exc}") from None


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
) -> ImportReport:
    """Add the records of `paths` to `RUN/documents` or `RUN/gold`. An id already there with
    the same record adds nothing (re-importing a file is a no-op); with another text or other
    fields it is refused, or replaced with `overwrite`. A gold label gen does not know is
    mapped (`label_map`), left out (`drop_unmapped`), kept (`allow_unknown_labels`, counted
    in the report) or refused: one rule for every format (gen.importing.labels)."""
    defaults = defaults or RecordDefaults()
    check_fields([], target, defaults, prompts_dir)
    rules = LabelRules.of(prompts_dir, label_map, drop_unmapped, allow_unknown_labels)
    inputs, skipped = find_inputs(paths, format_name)
    notes: Counter[str] = Counter()
    records = read_inputs(inputs, target, defaults, rules, notes)
    check_fields(records, target, defaults, prompts_dir)
    paths_of = RunPaths(Path(run))
    table_path = paths_of.documents if target == "documents" else paths_of.gold
    report = ImportReport(table=table_path, skipped=skipped, notes=notes)
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
