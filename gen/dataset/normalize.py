"""Text cleaning as in the thesis (lowercase, no special characters but periods),
with span offsets remapped so that every label still covers the same words, and so do
the places of planned facts and non-disclosures in `meta.disclosures`."""

from __future__ import annotations

import bisect
from dataclasses import replace
from typing import Any

from gen.core.records import Record, Span
from labeling.planned import META_KEY, MISSING

#: What a found fact of `meta.disclosures` says about its place in the text.
_PLACE_KEYS = ("start", "end", "score", "places")


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


def clean_record(record: Record) -> tuple[Record, list[Span], int]:
    """The cleaned record, the spans cleaning emptied and the places of planned facts and
    non-disclosures (`meta.disclosures`) it emptied (both reported by the caller)."""
    cleaned, origins = clean_text(record.text)
    kept: list[Span] = []
    lost: list[Span] = []
    for span in record.spans:
        moved = remap_span(span, origins, cleaned)
        if moved is None:
            lost.append(span)
        else:
            kept.append(moved)
    meta, places_lost = _remap_disclosures(record.meta, origins, cleaned)
    return replace(record, text=cleaned, spans=kept, meta=meta), lost, places_lost


def _remap_disclosures(
    meta: dict[str, Any], origins: list[int], cleaned: str
) -> tuple[dict[str, Any], int]:
    """`meta` with the offsets of every found fact of `meta.disclosures` (the planned facts,
    the non-disclosures) moved onto the cleaned text as its spans are: the encoder trainer
    marks units by them. A place cleaning emptied loses its offsets (`found: missing`)."""
    disclosures = meta.get(META_KEY)
    if not isinstance(disclosures, dict):
        return meta, 0
    lost = 0
    moved: dict[str, Any] = {}
    for key, facts in disclosures.items():
        if not isinstance(facts, list):
            moved[key] = facts
            continue
        moved[key] = []
        for fact in facts:
            if isinstance(fact, dict) and "start" in fact and "end" in fact:
                place = remap_span(Span(fact["start"], fact["end"], ""), origins, cleaned)
                if place is None:
                    lost += 1
                    fact = {k: v for k, v in fact.items() if k not in _PLACE_KEYS}
                    fact["found"] = MISSING
                else:
                    fact = {**fact, "start": place.start, "end": place.end}
            moved[key].append(fact)
    return {**meta, META_KEY: moved}, lost
