"""`gen import --as records`: gen's own records, as a kept run stores them, into RUN/labeled.

A kept run (`bench/runs/*.parquet`, a run folder, gen's JSONL records) holds documents
with their spans (each with its source, quality and score) and their `meta`, whose
`meta.disclosures` (the planned facts and non-disclosures) the encoder trainer reads:
`--as gold` would make every span gold and `--as documents` would drop the spans. So
`--as records` takes each record as it is stored into `RUN/labeled`, the table `gen build`
reads for labeled documents, where `gen build --sources` ranks its spans by source like
the run's own. Every row is validated on read (`gen.core.record_files`: types, unknown
keys, spans inside the text, spans of one source never overlapping), and a record must
name its category, document type and language, as gen's records do.

`--sources planned,faker` keeps only the spans of these sources; `--refind` finds the
inline-style planned facts again with today's finder (`labeling.refind`). The spans left
out either way are counted per source.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from gen.core.errors import UsageError
from gen.core.record_files import read_placed_records
from gen.core.records import SPAN_SOURCES, Record
from gen.core.store import RecordTable
from gen.importing.formats.jsonl import JsonlReader
from gen.importing.formats.parquet import ParquetReader
from gen.importing.inputs import Input, find_inputs
from labeling.refind import refound

RECORDS = "records"
#: The span source of hand-checked gold, which --as records refuses (gold goes --as gold).
GOLD = "gold"
#: What a record of gen's own names (a short gold line leaves these out).
NAMED_FIELDS = ("category", "doc_type", "language")
#: The tables of a run folder that hold its documents, the first that has records read.
RUN_TABLES = ("labeled", "documents")
EXPECTED = (
    "gen's own records: a Parquet or JSONL record file, a record table folder or a run folder"
)


@dataclass(frozen=True)
class RecordOptions:
    """Which spans of the records are kept, and whether planned facts are found again."""

    #: The span sources kept; None: all of them.
    sources: tuple[str, ...] | None = None
    refind: bool = False

    @classmethod
    def parse(cls, sources: str | None, refind: bool = False) -> RecordOptions:
        """From `--sources planned,faker` (None: every source); UsageError for a name that
        is no span source."""
        if sources is None:
            return cls(None, refind)
        names = tuple(dict.fromkeys(part.strip() for part in sources.split(",") if part.strip()))
        unknown = [name for name in names if name not in SPAN_SOURCES]
        if unknown or not names:
            problem = f"unknown span source {', '.join(unknown)}" if unknown else "no source"
            raise UsageError(
                f"--sources {sources!r}: {problem}; expected some of "
                f"{', '.join(SPAN_SOURCES)}, comma-separated"
            )
        return cls(names, refind)


def run_table(path: Path) -> Path:
    """The table of a run folder that holds its documents (`labeled`, else `documents`);
    any other path as it is."""
    tables = [path / name for name in RUN_TABLES]
    if not any(table.is_dir() for table in tables):
        return path
    return next((table for table in tables if RecordTable(table).exists()), tables[0])


def record_inputs(paths: Sequence[Path]) -> tuple[list[Input], list[Path]]:
    """(the record files and tables to read, files skipped inside folders): run folders
    become their table; a file given by name must be a Parquet or JSONL file."""
    tables = [run_table(Path(path)) for path in paths]
    readers = [ParquetReader(), JsonlReader()]
    suffixes = {suffix for reader in readers for suffix in reader.suffixes}
    for path in tables:
        if path.is_file() and path.suffix.lower() not in suffixes:
            raise UsageError(
                f"{path}: --as records takes {EXPECTED} (a list of such paths is given as "
                f"@{path}); import other files --as gold or --as documents"
            )
    return find_inputs(tables, among=readers)


def read_records(
    inputs: Sequence[Input],
    options: RecordOptions,
    notes: Counter[str],
    prompts_dir: Path | None = None,
) -> list[tuple[str, Record]]:
    """Every record of every input with where it was read (`records file F line 3`), as
    stored but for the spans `options` leave out or find again (counted in `notes`);
    UsageError naming the file, line and record for a bad row, a record that does not name
    its category, document type or language, and records that hold gold spans."""
    read: list[tuple[str, Record]] = []
    for item in inputs:
        placed = read_placed_records(item.path, "records file")
        if not placed:
            raise UsageError(f"records file {item.path}: no records found; expected {EXPECTED}")
        for place, record in placed:
            where = f"records file {item.path}{f' {place}' if place else ''}"
            missing = [name for name in NAMED_FIELDS if not getattr(record, name)]
            if missing:
                raise UsageError(
                    f"{where}: record {record.id} names no {', '.join(missing)}; --as records "
                    f"takes {EXPECTED} (import other records --as gold or --as documents)"
                )
            read.append((where, _kept(where, record, options, notes, prompts_dir)))
    _refuse_gold(read)
    return read


def _refuse_gold(read: Sequence[tuple[str, Record]]) -> None:
    """Refuse records that hold gold spans (a gold file's spans name no source, and become
    gold): in RUN/labeled they would outrank every source without being scored as gold,
    and `gen train --gold` would not know them; gold goes into RUN/gold."""
    holding = [(where, r) for where, r in read if any(s.source == GOLD for s in r.spans)]
    if holding:
        where, record = holding[0]
        more = f" (and {len(holding) - 1} more records)" if holding[1:] else ""
        raise UsageError(
            f"{where}: record {record.id} holds gold spans (a hand-labeled gold file?){more}; "
            "import gold --as gold, into RUN/gold, or leave its gold spans out with --sources"
        )


def _kept(
    where: str,
    record: Record,
    options: RecordOptions,
    notes: Counter[str],
    prompts_dir: Path | None,
) -> Record:
    if options.refind:
        try:
            found = refound(record, prompts_dir)
        except UsageError as exc:
            raise UsageError(f"{where}: {exc}") from None
        if found is not record:
            notes["records whose planned facts were found again (--refind)"] += 1
            before = sum(s.source == "planned" for s in record.spans)
            after = sum(s.source == "planned" for s in found.spans)
            notes["planned spans before --refind"] += before
            notes["planned spans after --refind"] += after
        record = found
    if options.sources is None:
        return record
    spans = [span for span in record.spans if span.source in options.sources]
    for span in record.spans:
        if span.source not in options.sources:
            notes[f"spans of source {span.source} left out (--sources)"] += 1
    return replace(record, spans=spans)
