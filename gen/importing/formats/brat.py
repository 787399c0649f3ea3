"""BRAT standoff: a document is a `.txt` and, beside it, an `.ann` of the same name.

Shape followed, as brat documents its standoff format: one annotation per line of the
`.ann`, fields separated by tabs. Text-bound annotations are the spans:
`T1<TAB>PER 0 4<TAB>Anna`; a discontinuous one lists its ranges with `;`
(`T2<TAB>PER 0 4;10 15<TAB>Anna Rossi`, the texts of its ranges joined by a space) and
becomes one span per range; each span's origin (its line, T id, and whether it is a range
of a discontinuous entity) goes with the record, for the overlap checks to name and the
split spans imported to be counted (gen.importing.gold). Relations (R), events (E),
attributes (A, M), normalizations (N), equivalences (*) and notes (#) are not spans:
counted and left out.

The record's text is the `.txt` read by the reader of `gen import x.txt` and `gen predict`
(gen.core.record_files.read_text_file: a CRLF or a lone CR becomes a newline, a byte order
mark is dropped), so a document imported before and its BRAT gold share their id and
text. The offsets are re-anchored on the text each line stores: brat counted code points
of the file as it is (a byte order mark is one; older servers read a CRLF as two
characters, newer ones as one; UTF-16 units where a JavaScript tool wrote the file), and
each reading is tried.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from pathlib import Path
from typing import ClassVar

from gen.core.encodings import read_utf8
from gen.core.record_files import BOM, read_text_file_as_written
from gen.core.records import Record, Span
from gen.importing import ImportFileError, RecordDefaults
from gen.importing.annotated import (
    Origin,
    Origins,
    gold_span,
    tool_record,
)
from gen.review.offsets import OffsetMap, anchor_ranges

#: First characters of brat's other annotation lines.
OTHER_KINDS = {"R": "relation", "E": "event", "A": "attribute", "M": "attribute",
               "N": "normalization", "*": "equivalence", "#": "note"}  # fmt: skip
RANGE = re.compile(r"^(\d+) (\d+)$")
TEXT_BOUND = "T1<TAB>LABEL START END[;START END...]<TAB>text"


class BratReader:
    name: ClassVar[str] = "brat"
    suffixes: ClassVar[tuple[str, ...]] = (".ann",)
    labeled: ClassVar[bool] = True

    def sniff(self, path: Path) -> bool:
        return False

    def companion(self, path: Path) -> Path | None:
        """The `.txt` of an `.ann`: read with it, never on its own."""
        return path.with_suffix(".txt") if path.suffix.lower() == ".ann" else None

    def read(self, path: Path, defaults: RecordDefaults) -> list[Record]:
        ann = path.with_suffix(".ann")
        txt = path.with_suffix(".txt")
        for needed in (ann, txt):
            if not needed.is_file():
                raise ImportFileError(
                    path, f"no {needed.name} beside it; a BRAT document is a .txt and its .ann"
                )
        document = _Document(*read_text_file_as_written(txt))
        notes: Counter[str] = Counter()
        spans: list[Span] = []
        origins: Origins = {}
        lines = read_utf8(ann, "a BRAT .ann").removeprefix(BOM).split("\n")
        for number, line in enumerate(lines, start=1):
            line = line.rstrip("\r")
            if not line.strip():
                continue
            kind = line[0]
            if kind == "T":
                found = _text_bound(ann, number, line, document, notes)
                entity = " ".join(line.split("\t")[:2])  # `T8 Food 433 439;446 451`
                origin = Origin(f"line {number}: {entity}", split=len(found) > 1)
                for span in found:
                    origins.setdefault((span.start, span.end), []).append(origin)
                spans += found
            elif kind in OTHER_KINDS:
                notes[f"BRAT {OTHER_KINDS[kind]} lines ({kind}) left out"] += 1
            else:
                raise ImportFileError(
                    ann, f"not a brat annotation line (T, R, E, A, M, N, *, #): {line!r}", number
                )
        return [
            tool_record(
                defaults.record_id(ann),
                document.text,
                spans,
                ann,
                defaults,
                meta={"text_file": txt.name},
                notes=notes,
                origins=origins,
            )
        ]


class _Document:
    """The `.txt` as gen stores it (`text`) and as brat may have counted it: as written,
    with or without its byte order mark, with each CRLF as two characters or one."""

    def __init__(self, text: str, written: str) -> None:
        self.text = text
        bom = written.startswith(BOM)
        body = written.removeprefix(BOM)
        crlf = [m.start() for m in re.finditer("\r\n", body)]
        #: Each reading, as an offset map and the positions of the characters (a byte
        #: order mark, the CR of a CRLF) that `text` lacks; the file as written first.
        self.views: list[tuple[OffsetMap, list[int]]] = []
        for keep_bom in (True, False) if bom else (False,):
            for keep_cr in (True, False) if crlf else (False,):
                shown = body if keep_cr else body.replace("\r\n", "\n")
                dropped = [i + int(keep_bom) for i in crlf] if keep_cr else []
                if keep_bom:
                    shown, dropped = BOM + shown, [0, *dropped]
                self.views.append((OffsetMap.of(shown), dropped))

    @staticmethod
    def to_text(index: int, dropped: list[int]) -> int:
        return index - bisect.bisect_left(dropped, index)

    def as_written(self, index: int) -> int:
        return self.to_text(index, self.views[0][1])

    def anchor(self, ranges: list[tuple[int, int]], quoted: str) -> list[tuple[int, int]] | None:
        for offsets, dropped in self.views:
            found = anchor_ranges(offsets, ranges, quoted, "codepoint")
            if found is not None:
                return [(self.to_text(a, dropped), self.to_text(b, dropped)) for a, b in found]
        return None


def _text_bound(
    ann: Path, number: int, line: str, document: _Document, notes: Counter[str]
) -> list[Span]:
    fields = line.split("\t")
    label, _, places = fields[1].partition(" ") if len(fields) > 1 else ("", "", "")
    matches = [RANGE.match(part.strip()) for part in places.split(";")]
    if not label or not all(matches):
        raise ImportFileError(ann, f"expected {TEXT_BOUND}, got {line!r}", number)
    ranges = [(int(m.group(1)), int(m.group(2))) for m in matches if m]
    if len(fields) > 2:
        found = document.anchor(ranges, fields[2])
        if found is None:
            there = " ".join(document.text[a:b] for a, b in ranges)
            raise ImportFileError(
                ann,
                f"{fields[0]} {fields[2]!r} is not at {places} of its .txt (the text there is "
                f"{there!r}), in code points or UTF-16 units, with a CRLF as one or two "
                "characters; is the .txt the one it was annotated on?",
                number,
            )
        ranges = found
    else:  # no stored text to check: the offsets as they are, on the text as brat read it
        ranges = [(document.as_written(a), document.as_written(b)) for a, b in ranges]
    return [gold_span(document.text, start, end, label, notes) for start, end in ranges]
