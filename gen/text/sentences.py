"""Sentences as exact character ranges of the original text.

Lines split first (structured documents often end a sentence with a newline and
no period), then pysbd splits each line, which knows the abbreviations of many
languages ("Dott.", "sig.", "Dr.", "e.g.") and does not split after them. A
language pack may name more (`abbreviations:` in `prompts/<lang>/language.yaml`,
mostly address parts such as "Apt." or "C.so"): a cut pysbd makes inside or right
after one of them is undone. `keep_spans_whole` then joins sentences that a
labeled span runs across, so a word tagger never sees an entity cut in two.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path

import pysbd
from pysbd.languages import LANGUAGE_CODES

from gen.core.pack_language import Language
from gen.core.packs import default_prompts_dir
from gen.core.records import Span
from gen.core.yamlio import load_model
from gen.text.words import trim_whitespace, words_in

_LINE = re.compile(r"[^\n]+")

Range = tuple[int, int]


@cache
def _segmenter(language: str) -> pysbd.Segmenter:
    code = language if language in LANGUAGE_CODES else "en"
    return pysbd.Segmenter(language=code, clean=False, char_span=True)


@cache
def pack_abbreviations(language: str, prompts_dir: Path | None = None) -> tuple[str, ...]:
    """The `abbreviations` of a language pack; none if the folder has no pack for `language`."""
    path = Path(prompts_dir or default_prompts_dir()) / language / "language.yaml"
    return load_model(path, Language).abbreviations if path.is_file() else ()


@cache
def _abbreviation_pattern(abbreviations: tuple[str, ...]) -> re.Pattern[str] | None:
    """Whole-word occurrences of any of `abbreviations`, any case, longest first."""
    if not abbreviations:
        return None
    words = sorted(set(abbreviations), key=len, reverse=True)
    alternatives = "|".join(re.escape(w) + (r"(?!\w)" if w[-1].isalnum() else "") for w in words)
    return re.compile(rf"(?<![\w.])(?:{alternatives})", re.IGNORECASE)


def _line_sentences(text: str, start: int, end: int, language: str) -> list[Range]:
    line = text[start:end]
    ranges = []
    cursor = 0
    for piece in _segmenter(language).segment(line):
        # pysbd's offsets can drift on repeated sentences: trust the text, search from the cursor.
        found = line.find(piece.sent, cursor)
        piece_start = found if found >= 0 else cursor
        piece_end = min(len(line), piece_start + len(piece.sent))
        cursor = piece_end
        trimmed = trim_whitespace(text, start + piece_start, start + piece_end)
        if trimmed:
            ranges.append(trimmed)
    if cursor < len(line):
        tail = trim_whitespace(text, start + cursor, end)
        if tail:
            ranges.append(tail)
    return ranges


def _join(ranges: Sequence[Range], cut_forbidden: Callable[[int, int], bool]) -> list[Range]:
    """`ranges` with the boundaries removed where `cut_forbidden(end, next_start)`."""
    joined: list[Range] = []
    for start, end in ranges:
        if joined and cut_forbidden(joined[-1][1], start):
            joined[-1] = (joined[-1][0], end)
        else:
            joined.append((start, end))
    return joined


def _inside_or_after(words: Sequence[Range]) -> Callable[[int, int], bool]:
    """A cut inside one of `words` or right after it (pysbd's mistake after an abbreviation)."""
    return lambda end, _: any(a < end <= b for a, b in words)


def split_sentences(
    text: str, language: str = "en", *, abbreviations: Sequence[str] | None = None
) -> list[Range]:
    """`(start, end)` of each sentence, in order, whitespace-trimmed, never empty.

    `abbreviations` default to the language pack's (`pack_abbreviations`).
    """
    if abbreviations is None:
        abbreviations = pack_abbreviations(language)
    pattern = _abbreviation_pattern(tuple(abbreviations))
    ranges: list[Range] = []
    for match in _LINE.finditer(text):
        if not match.group().strip():
            continue
        line = _line_sentences(text, match.start(), match.end(), language)
        if pattern is not None and len(line) > 1:
            found = [m.span() for m in pattern.finditer(text, match.start(), match.end())]
            line = _join(line, _inside_or_after(found))
        ranges.extend(line)
    return ranges


def keep_spans_whole(
    ranges: Sequence[Range], spans: Sequence[Span], words: Sequence[Range] = ()
) -> list[Range]:
    """Sentences joined wherever a span runs from one into the next, so no span is cut.

    With `words` (ordered, as from gen.text.words.word_spans) a span counts as
    covering every word it touches, as word tags see it.
    """
    if not spans or len(ranges) < 2:
        return list(ranges)
    covered = [_widened(span.start, span.end, words) for span in spans]
    return _join(ranges, lambda end, start: any(a < end and start < b for a, b in covered))


def _widened(start: int, end: int, words: Sequence[Range]) -> Range:
    """`start, end` stretched to the edges of the words it touches."""
    touched = words_in(words, start, end)
    if touched:
        start = min(start, words[touched[0]][0])
        end = max(end, words[touched[-1]][1])
    return start, end
