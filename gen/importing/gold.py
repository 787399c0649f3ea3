"""What `gen import --as gold` asks of a file and of each record's spans, and what it counts.

A gold record without spans says "nothing sensitive here", and `gen build` ranks gold
first: so a file whose items hold none of its format's span fields (a doccano export read
`--format prodigy`) is refused, and every record that becomes gold without spans is
counted with why. Identical spans (one range and label given twice: two discontinuous
entities that share a range) are merged and counted. Every span is then checked as gold
spans are everywhere (docs/gold.md); a bad one refuses the import. Overlapping spans
follow `--overlaps`, record by record: `refuse` (the default) leaves the record out of
gold, counted and kept with its reason in `RUN/rejects/import`, since either span may be
the wrong one and a guess would become gold; `longest` keeps the longest span of each
overlap, `first` the one that starts first (of equal starts, the longer), and the spans
left out are counted.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import replace
from pathlib import Path

from gen.core.errors import InvalidSpanError, UsageError
from gen.core.records import Record, Span, check_gold_spans, overlapping_pair
from gen.core.store import RecordTable
from gen.importing import Reader, claiming_reader
from gen.importing.annotated import NO_SPAN_FIELD, ORIGINS, Origins
from gen.importing.labels import LabelRules, UnknownLabels

OVERLAPS = ("refuse", "longest", "first")
#: The rejects table of `RUN/rejects/` that holds the records refused for their overlaps.
REJECTS = "import"
REASON = "overlapping spans"
REFUSED = "records with overlapping spans refused (--overlaps refuse)"
RESOLVE_HINT = "--overlaps longest or first resolves such records"
MERGED = "identical spans merged (same range and label)"
SPLIT = "spans imported from discontinuous entities split into one span per range"
WITHOUT_SPANS = "records imported as gold without spans"

#: How `--overlaps` ranks the spans of a record: each is kept unless it overlaps one kept.
RANK = {
    "longest": lambda s: (s.start - s.end, s.start, s.label),
    "first": lambda s: (s.start, s.start - s.end, s.label),
}


def refuse_wrong_format(path: Path, reader: Reader, records: Sequence[Record]) -> None:
    """Refuse a file none of whose items holds a span field of `reader`'s format, naming
    the fields and, where another reader claims the file, the format it looks like."""
    if not records or not all(r.meta.get(NO_SPAN_FIELD) for r in records):
        return
    fields = getattr(reader, "span_fields", ())
    named = f"span field{'s' if len(fields) > 1 else ''} ({' or '.join(fields)})"
    problem = f"{path}: no line holds {reader.name}'s {named}"
    other = claiming_reader(path)
    if other is not None and other.name != reader.name:
        raise UsageError(
            f"{problem}; its lines look like {other.name}'s: leave out --format or give "
            f"--format {other.name}"
        )
    raise UsageError(f"{problem}; import its texts --as documents, or give its --format")


def labeled(
    record: Record, rules: LabelRules, *, where: str, unknown: UnknownLabels, notes: Counter[str]
) -> Record:
    """`record` with the label rules applied; a record left without spans is counted with
    why: none in the file, none in an item without span field, or every span left out."""
    mapped = rules.apply(record, where=where, unknown=unknown, notes=notes)
    if not mapped.spans:
        if record.spans:
            why = "every span left out by the label rules"
        elif record.meta.get(NO_SPAN_FIELD):
            why = "the item has no span field"
        else:
            why = "none in the file"
        notes[f"{WITHOUT_SPANS}: {why}"] += 1
    return mapped


def check_gold(
    read: Sequence[tuple[Path, Record]], overlaps: str, notes: Counter[str]
) -> tuple[list[tuple[Path, Record]], list[Record]]:
    """(records kept, records refused for their overlaps), identical spans merged and
    overlaps resolved by `overlaps`; UsageError for the first bad span of any record (the
    file, line or record, the span, and how many records have one). A record refused
    leaves the others to be imported, even when none is left."""
    if overlaps not in OVERLAPS:
        raise UsageError(f"--overlaps {overlaps!r}: expected one of {', '.join(OVERLAPS)}")
    kept: list[tuple[Path, Record]] = []
    refused: list[Record] = []
    problems: list[str] = []
    for path, record in read:
        meta = dict(record.meta)
        origins: Origins = meta.pop(ORIGINS, {})
        meta.pop(NO_SPAN_FIELD, None)
        line = meta.get("line")
        where = f"{path}: {f'line {line}: ' if line else ''}"
        spans = _merged(record.spans, notes)
        try:
            for span in spans:
                check_gold_spans(record.text, [span], record_id=record.id)
        except InvalidSpanError as exc:
            problems.append(f"{where}{exc}")
            continue
        pair = overlapping_pair(spans)
        if pair and overlaps == "refuse":
            detail = f"{where}{_overlap(record.id, *pair, origins)}"
            meta |= {"reason": REASON, "detail": detail, "spans": [s.to_dict() for s in spans]}
            refused.append(replace(record, spans=[], meta=meta))
            continue
        if pair:
            resolved = _resolved(spans, overlaps)
            left_out = len(spans) - len(resolved)
            notes[f"overlapping spans left out (--overlaps {overlaps})"] += left_out
            spans = resolved
        split = sum(any(o.split for o in origins.get((s.start, s.end), ())) for s in spans)
        if split:
            notes[SPLIT] += split
        kept.append((path, replace(record, spans=spans, meta=meta)))
    if problems:
        more = f" (and {len(problems) - 1} more records with bad spans)" if problems[1:] else ""
        raise UsageError(problems[0] + more)
    if refused:
        notes[REFUSED] += len(refused)
    return kept, refused


def keep_refused(folder: Path, refused: list[Record], imported: set[str]) -> Path | None:
    """Keep the records refused now in `folder`, in place of those of their ids refused
    by an earlier import; those now imported leave it. The folder, if it holds any."""
    table = RecordTable(folder)
    before = table.read() if table.exists() else []
    ids = imported | {record.id for record in refused}
    after = [record for record in before if record.id not in ids] + refused
    if refused or len(after) < len(before):
        if after:
            table.replace(after)
        else:
            table.drop()
            with suppress(OSError):  # `RUN/rejects/` too, when nothing else is in it
                folder.parent.rmdir()
    return folder if after else None


def _merged(spans: Sequence[Span], notes: Counter[str]) -> list[Span]:
    unique: dict[tuple[int, int, str], Span] = {}
    for span in spans:
        unique.setdefault((span.start, span.end, span.label), span)
    if len(unique) < len(spans):
        notes[MERGED] += len(spans) - len(unique)
    return list(unique.values())


def _overlap(record_id: str, left: Span, right: Span, origins: Origins) -> str:
    """The overlap of two spans, with the lines and entities they come from where known."""
    found = [str(o) for s in (left, right) for o in origins.get((s.start, s.end), ())]
    lines = f" ({'; '.join(dict.fromkeys(found))})" if found else ""
    return (
        f"record {record_id}: gold spans {left.start}-{left.end} ({left.label}) and "
        f"{right.start}-{right.end} ({right.label}) overlap{lines}"
    )


def _resolved(spans: Sequence[Span], overlaps: str) -> list[Span]:
    kept: list[Span] = []
    for span in sorted(spans, key=RANK[overlaps]):
        if not any(span.overlap(k.start, k.end) for k in kept):
            kept.append(span)
    return sorted(kept, key=lambda s: (s.start, s.end, s.label))
