"""Text cleaning as in the thesis (lowercase, no special characters but periods),
with span offsets remapped so that every label still covers the same words."""

from __future__ import annotations

import bisect
from dataclasses import replace

from gen.core.records import Record, Span


def clean_text(text: str) -> tuple[str, list[int]]:
    """Cleaned text and, for each of its characters, the index it came from in `text`.

    Letters and digits are lowercased, periods kept, other symbols dropped; a run
    of whitespace (including where symbols were dropped) becomes one space, or one
    newline if it held a line break, so that line-based sentence splitting still works.
    """
    chars: list[str] = []
    origins: list[int] = []
    pending_space: tuple[str, int] | None = None
    for index, char in enumerate(text):
        if char.isspace():
            if pending_space is None or (char == "\n" and pending_space[0] != "\n"):
                pending_space = ("\n" if char == "\n" else " ", index)
            continue
        if not (char.isalnum() or char == "."):
            continue
        if pending_space is not None and chars:
            chars.append(pending_space[0])
            origins.append(pending_space[1])
        pending_space = None
        for lowered in char.lower():  # lower() may return two characters (e.g. "İ")
            chars.append(lowered)
            origins.append(index)
    return "".join(chars), origins


def remap_span(span: Span, origins: list[int], cleaned: str) -> Span | None:
    """`span` moved onto the cleaned text; None if cleaning removed everything it covered."""
    start = bisect.bisect_left(origins, span.start)
    end = bisect.bisect_left(origins, span.end)
    while start < end and cleaned[start].isspace():
        start += 1
    while end > start and cleaned[end - 1].isspace():
        end -= 1
    if start >= end:
        return None
    return replace(span, start=start, end=end)


def clean_record(record: Record) -> tuple[Record, list[Span]]:
    """The cleaned record and the spans cleaning emptied (reported by the caller)."""
    cleaned, origins = clean_text(record.text)
    kept: list[Span] = []
    lost: list[Span] = []
    for span in record.spans:
        moved = remap_span(span, origins, cleaned)
        if moved is None:
            lost.append(span)
        else:
            kept.append(moved)
    return replace(record, text=cleaned, spans=kept), lost
