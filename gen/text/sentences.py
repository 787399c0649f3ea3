"""Sentences as exact character ranges of the original text.

Lines split first (structured documents often end a sentence with a newline and
no period), then pysbd splits each line, which knows the abbreviations of many
languages ("Dott.", "sig.", "Dr.", "e.g.") and does not split after them.
"""

from __future__ import annotations

import re
from functools import cache

import pysbd
from pysbd.languages import LANGUAGE_CODES

_LINE = re.compile(r"[^\n]+")


@cache
def _segmenter(language: str) -> pysbd.Segmenter:
    code = language if language in LANGUAGE_CODES else "en"
    return pysbd.Segmenter(language=code, clean=False, char_span=True)


def _trimmed(text: str, start: int, end: int) -> tuple[int, int] | None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if start < end else None


def _line_sentences(text: str, start: int, end: int, language: str) -> list[tuple[int, int]]:
    line = text[start:end]
    ranges = []
    cursor = 0
    for piece in _segmenter(language).segment(line):
        # pysbd's offsets can drift on repeated sentences: trust the text, search from the cursor.
        found = line.find(piece.sent, cursor)
        piece_start = found if found >= 0 else cursor
        piece_end = min(len(line), piece_start + len(piece.sent))
        cursor = piece_end
        trimmed = _trimmed(text, start + piece_start, start + piece_end)
        if trimmed:
            ranges.append(trimmed)
    if cursor < len(line):
        tail = _trimmed(text, start + cursor, end)
        if tail:
            ranges.append(tail)
    return ranges


def split_sentences(text: str, language: str = "en") -> list[tuple[int, int]]:
    """`(start, end)` of each sentence, in order, whitespace-trimmed, never empty."""
    ranges: list[tuple[int, int]] = []
    for match in _LINE.finditer(text):
        if match.group().strip():
            ranges.extend(_line_sentences(text, match.start(), match.end(), language))
    return ranges
