"""Records with emoji, accents and CJK, and Label Studio regions over them, for the
review tests."""

from __future__ import annotations

from pathlib import Path

from gen.core.records import Record, Span
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from gen.review.offsets import OffsetMap

EMOJI = "Ciao 😀😀 Zoë! Anna Rossi 🏥 was treated for diabetes in Milano."
CJK = "李小龍 supports the Green Party 🌱 and votes every year."


def span(text: str, part: str, label: str, source: str, score: float | None = None) -> Span:
    start = text.index(part)
    return Span(start, start + len(part), label, source, None, score)


def records() -> list[Record]:
    """Documents whose spans follow emoji (2 UTF-16 units each), accents and CJK."""
    return [
        Record("doc-emoji", EMOJI, "health", "note", "en", "llm", [
            span(EMOJI, "Anna Rossi", "PERSON", "faker"),
            span(EMOJI, "treated for diabetes", "health", "llm_sentences", 0.4),
            span(EMOJI, "diabetes", "health", "llm_censor", 0.9),
        ]),
        Record("doc-cjk", CJK, "politic", "note", "en", "llm", [
            span(CJK, "李小龍", "PERSON", "faker"),
            span(CJK, "supports the Green Party 🌱", "politic", "llm_sentences"),
        ]),
    ]  # fmt: skip


def make_run(root: Path, items: list[Record] | None = None) -> Path:
    with RecordTable(RunPaths(root).labeled) as table:
        table.extend(items or records())
    return root


def region(text: str, part: str, label: str, *, utf16: bool = False, shift: int = 0) -> dict:
    start = text.index(part) + shift
    end = start + len(part)
    if utf16:
        offsets = OffsetMap.of(text)
        start, end = offsets.to_utf16(start), offsets.to_utf16(end)
    value = {"start": start, "end": end, "text": part, "labels": [label]}
    return {"from_name": "label", "to_name": "text", "type": "labels", "value": value}


ACCENTS = "La signora Lucía Müller-Dupré è stata condannata per frode a Zürich."


def accents_record() -> Record:
    return Record("doc-accents", ACCENTS, "judicial", "sentenza", "it", "llm", [
        span(ACCENTS, "Lucía Müller-Dupré", "PERSON", "faker"),
        span(ACCENTS, "è stata condannata per frode", "judicial", "llm_sentences", 0.7),
    ], flags=["alignment_low"])  # fmt: skip
