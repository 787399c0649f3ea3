"""BRAT standoff: a document is a `.txt` and, beside it, an `.ann` of the same name.

Shape followed, as brat documents its standoff format: one annotation per line of the
`.ann`, fields separated by tabs. Text-bound annotations are the spans:
`T1<TAB>PER 0 4<TAB>Anna`; a discontinuous one lists its ranges with `;`
(`T2<TAB>PER 0 4;10 15<TAB>Anna Rossi`, the texts of its ranges joined by a space) and
becomes one span per range, counted. Relations (R), events (E), attributes (A, M),
normalizations (N), equivalences (*) and notes (#) are not spans: counted and left out.

The record's text is the `.txt` as `gen import x.txt` reads it (a CRLF or a lone CR
becomes a newline), so a document imported before and its BRAT gold share their id and
text. The offsets are re-anchored on the text each line stores: brat counted code
points of the file as it is (older servers read a CRLF as two characters, newer ones as
one; UTF-16 units where a JavaScript tool wrote the file), and each is tried.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from pathlib import Path
from typing import ClassVar

from gen.core.records import Record, Span
from gen.importing import ImportFileError, RecordDefaults
from gen.importing.annotated import gold_span, tool_record
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
    foreign_labels: ClassVar[bool] = True

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
        raw = _decode(txt, "utf-8")
        document = _Document(raw)
        notes: Counter[str] = Counter()
        spans: list[Span] = []
        for number, line in enumerate(_decode(ann, "utf-8-sig").split("\n"), start=1):
            line = line.rstrip("\r")
            if not line.strip():
                continue
            kind = line[0]
            if kind == "T":
                found = _text_bound(ann, number, line, document)
                if len(found) > 1:
                    notes["discontinuous entities split into one span per range"] += 1
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
            )
        ]


def _decode(path: Path, encoding: str) -> str:
    try:
        return path.read_bytes().decode(encoding)
    except UnicodeDecodeError as exc:
        raise ImportFileError(path, f"not UTF-8 text (byte {exc.start})") from None


class _Document:
    """The `.txt` as brat may have counted it (as it is, or with newlines read as one
    character each) and as gen stores it (newlines as `\\n`, as `gen import x.txt`)."""

    def __init__(self, raw: str) -> None:
        self.text = raw.replace("\r\n", "\n").replace("\r", "\n")
        #: Positions of the CR of each CRLF in the raw text: gone from `text`.
        self.dropped = [m.start() for m in re.finditer("\r\n", raw)]
        self.views = [(OffsetMap.of(raw), True)]
        if self.dropped:
            self.views.append((OffsetMap.of(self.text), False))

    def to_text(self, index: int, raw: bool) -> int:
        return index - bisect.bisect_left(self.dropped, index) if raw else index

    def anchor(self, ranges: list[tuple[int, int]], quoted: str) -> list[tuple[int, int]] | None:
        for offsets, raw in self.views:
            found = anchor_ranges(offsets, ranges, quoted, "codepoint")
            if found is not None:
                return [(self.to_text(a, raw), self.to_text(b, raw)) for a, b in found]
        return None


def _text_bound(ann: Path, number: int, line: str, document: _Document) -> list[Span]:
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
        ranges = [(document.to_text(a, True), document.to_text(b, True)) for a, b in ranges]
    return [gold_span(document.text, start, end, label) for start, end in ranges]
