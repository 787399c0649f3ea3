"""Character offsets as an annotation tool counts them, and back.

Python indexes a string by code point. JavaScript indexes it by UTF-16 code
unit, where every character outside the Basic Multilingual Plane (most emoji,
rare CJK ideographs) counts twice; tools written in JavaScript have stored
either, depending on their version. Label Studio 1.23 stores code points
(measured: a selection after two emoji is stored at the code point offset),
older releases stored UTF-16 units.

So a span read from a tool is never trusted by its numbers alone: it is
re-anchored on the `text` the tool stored with it. The offsets are read in the
expected unit first, then in the other one; the span is taken only where the
document's characters there are exactly the stored text, and refused otherwise.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from gen.core.errors import GenError

OffsetUnit = Literal["codepoint", "utf16"]
OFFSET_UNITS: tuple[OffsetUnit, ...] = ("codepoint", "utf16")


class AnchorError(GenError):
    """A span whose stored text is not at its offsets in either unit."""


@dataclass(frozen=True)
class OffsetMap:
    """Converts offsets of one text between code points and UTF-16 code units."""

    text: str
    #: Code point positions of the characters that take two UTF-16 units.
    astral: tuple[int, ...]

    @classmethod
    def of(cls, text: str) -> OffsetMap:
        return cls(text, tuple(i for i, char in enumerate(text) if ord(char) > 0xFFFF))

    @property
    def utf16_length(self) -> int:
        return len(self.text) + len(self.astral)

    def to_utf16(self, index: int) -> int:
        """UTF-16 offset of code point offset `index` (0..len(text))."""
        if not 0 <= index <= len(self.text):
            raise ValueError(f"offset {index} is outside the text of length {len(self.text)}")
        return index + bisect.bisect_left(self.astral, index)

    def from_utf16(self, unit: int) -> int | None:
        """Code point offset of UTF-16 offset `unit`; None inside a surrogate pair or
        outside the text."""
        if not 0 <= unit <= self.utf16_length:
            return None
        for before, position in enumerate(self.astral):
            unit_position = position + before
            if unit <= unit_position:
                return unit - before
            if unit == unit_position + 1:
                return None
        return unit - len(self.astral)

    def to_unit(self, index: int, unit: OffsetUnit) -> int:
        return index if unit == "codepoint" else self.to_utf16(index)

    def from_unit(self, offset: int, unit: OffsetUnit) -> int | None:
        if unit == "utf16":
            return self.from_utf16(offset)
        return offset if 0 <= offset <= len(self.text) else None


def anchor(
    offsets: OffsetMap, start: int, end: int, quoted: str | None, unit: OffsetUnit
) -> tuple[int, int]:
    """Code point range of a span a tool stored as (`start`, `end`, `quoted`) in `unit`.

    Tries `unit`, then the other unit; raises AnchorError when `quoted` is missing
    or is not the text at the offsets in either."""
    if not quoted:
        raise AnchorError(f"span {start}-{end} has no stored text to check its offsets against")
    found = anchor_ranges(offsets, [(start, end)], quoted, unit)
    if found:
        return found[0]
    there = offsets.text[start:end] if 0 <= start < end <= len(offsets.text) else ""
    where = f"the text there is {there!r}" if there else "the offsets are outside the text"
    raise AnchorError(
        f"span {start}-{end} {quoted!r} cannot be re-anchored: {where} "
        "(in code points and in UTF-16 units)"
    )


def anchor_ranges(
    offsets: OffsetMap,
    ranges: Sequence[tuple[int, int]],
    quoted: str,
    unit: OffsetUnit,
    *,
    separator: str = " ",
) -> list[tuple[int, int]] | None:
    """Code point ranges of a span a tool stored as `ranges` in `unit` with the texts of
    the ranges joined by `separator` as `quoted` (one range for most tools, several for
    BRAT's discontinuous entities). Tries `unit`, then the other; None when `quoted` is
    the text there in neither."""
    for candidate in (unit, *(other for other in OFFSET_UNITS if other != unit)):
        converted = [
            (offsets.from_unit(start, candidate), offsets.from_unit(end, candidate))
            for start, end in ranges
        ]
        exact = [
            (first, last) for first, last in converted if first is not None and last is not None
        ]
        if (
            len(exact) == len(ranges)
            and separator.join(offsets.text[first:last] for first, last in exact) == quoted
        ):
            return exact
    return None
