"""Labeling units: sentences or clauses, as exact character ranges of the original text.

A gold span is usually a clause ("was convicted of drink-driving in 2019"), not the
sentence around it, so a labeler that classifies whole sentences cannot be precise however
good its model is. This module cuts a text into the units a labeler classifies.

Method, line by line:
1. A list marker at the start of a line (`-`, `•`, `1.`, `a)`, `[x]`...) is left out: the
   item is a unit of its own because the line is.
2. A line is cut into columns at tabs and runs of three or more spaces (a form's
   `Signed: ...        Date: ...`).
3. A column that starts `Name: value`, with a name of at most `field_name_max_words`
   words, is a form field: the name and its colon are left out, the value is the unit.
4. The rest is cut into sentences (gen.text.sentences: pysbd, which knows abbreviations).
5. For `unit="clause"`, each sentence is cut again at `;`, at `:` before a space, at
   dashes between spaces, and after a comma followed by a conjunction or a relative
   pronoun of the language pack (`units` block of prompts/<lang>/language.yaml). A clause
   of fewer than `min_clause_words` words joins the previous clause of its sentence (the
   next one when it comes first), so that "since 2012" never stands alone. Words (here and
   in field names) are gen.text.words' words with a letter or digit: "e-mail" is one,
   a Chinese character one, punctuation none.
6. Each unit is trimmed of surrounding whitespace and of the separator punctuation at its
   edges (`. , ; : ! ? …` and dashes): gold spans leave closing punctuation out too.

Every character of the text that is not whitespace is inside a unit, except list markers,
field names with their colon, and the separator punctuation of steps 5-6; no unit is empty
or overlaps another, and units come in text order.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from itertools import pairwise

from gen.core.errors import UsageError
from gen.core.pack_language import UnitRules
from gen.text.sentences import split_sentences
from gen.text.words import alphanumeric_words

UNITS = ("sentence", "clause")

Range = tuple[int, int]

_LINE = re.compile(r"[^\n]+")
_LIST_MARKER = re.compile(
    r"[ \t]*(?:[-–—•*·▪◦‣]|\(?\d{1,3}[.)]|\(?[a-z]\)|\[[ xX✓]?\]|[☐☑☒✓])[ \t]+(?=\S)"
)
_COLUMN_GAP = re.compile(r"\t+|[ ]{3,}")
_FIELD_COLON = re.compile(r":[ \t]+(?=\S)")
_SENTENCE_END = re.compile(r"[.!?…][ \t]")
_SENTENCE_MARK = re.compile(r"[.!?…。！？]")
#: Hard clause breaks: the punctuation goes to the left piece (and is trimmed from it).
_HARD_BREAK = re.compile(r"[;:](?=\s)|\s[–—-](?=\s)")
#: Separator punctuation trimmed from a unit's edges, with any whitespace: French puts a
#: no-break space before ":" and ";" ("Antécédents :"), which must not end a unit.
_EDGE = ".,;:!?…–—-"


def _is_edge(character: str) -> bool:
    return character in _EDGE or character.isspace()


def trimmed(text: str, start: int, end: int, also: str = "") -> Range | None:
    """The range without surrounding whitespace and separator punctuation (and the
    characters of `also`); None if empty."""
    while start < end and (_is_edge(text[start]) or text[start] in also):
        start += 1
    while end > start and (_is_edge(text[end - 1]) or text[end - 1] in also):
        end -= 1
    return (start, end) if start < end else None


def _columns(text: str, start: int, end: int) -> Iterator[Range]:
    cursor = start
    for gap in _COLUMN_GAP.finditer(text, start, end):
        yield cursor, gap.start()
        cursor = gap.end()
    yield cursor, end


def _field_value_start(text: str, start: int, end: int, rules: UnitRules) -> int:
    """Where the value of a `Name: value` column starts, or `start` if it is no field."""
    colon = _FIELD_COLON.search(text, start, end)
    if colon is None:
        return start
    words = _words(text, start, colon.start())
    prose = _SENTENCE_END.search(text, start, colon.start())
    return colon.end() if 0 < words <= rules.field_name_max_words and not prose else start


@cache
def _comma_cue(conjunctions: tuple[str, ...], relatives: tuple[str, ...]) -> re.Pattern[str]:
    """A comma followed by a conjunction, or by at most one word and a relative pronoun."""

    def words(cues: tuple[str, ...]) -> str:
        longest_first = sorted(cues, key=len, reverse=True)
        return "|".join(re.escape(cue).replace(r"\ ", r"\s+") for cue in longest_first)

    branches = []
    if conjunctions:
        branches.append(rf"(?:{words(conjunctions)})")
    if relatives:
        branches.append(rf"(?:\w+\s+)?(?:{words(relatives)})")
    if not branches:
        return re.compile(r"(?!)")
    return re.compile(rf",\s+(?=(?:{'|'.join(branches)})\b)", re.IGNORECASE)


def _clause_breaks(text: str, start: int, end: int, rules: UnitRules) -> list[int]:
    """Positions inside the sentence where a new clause starts, in order."""
    comma_cue = _comma_cue(rules.conjunctions, rules.relatives)
    breaks = {match.end() for match in _HARD_BREAK.finditer(text, start, end)}
    breaks |= {match.end() for match in comma_cue.finditer(text, start, end)}
    return sorted(position for position in breaks if start < position < end)


def _words(text: str, start: int, end: int) -> int:
    """Words of `text[start:end]` as gen.text.words counts them, punctuation left out."""
    return len(alphanumeric_words(text[start:end]))


def _clauses(text: str, start: int, end: int, rules: UnitRules) -> list[Range]:
    bounds = [start, *_clause_breaks(text, start, end, rules), end]
    merged: list[Range] = []
    for piece in pairwise(bounds):
        if merged and min(_words(text, *merged[-1]), _words(text, *piece)) < (
            rules.min_clause_words
        ):
            merged[-1] = (merged[-1][0], piece[1])
        else:
            merged.append(piece)
    return merged


def _column_units(text: str, start: int, end: int, rules: UnitRules, unit: str) -> list[Range]:
    start = _field_value_start(text, start, end, rules)
    language = rules.sentence_language or "en"
    column = text[start:end]
    # pysbd only ends sentences at these marks, and costs ~10 ms a call: form values
    # and list items without one inside are one sentence.
    if _SENTENCE_MARK.search(column.rstrip()[:-1]):
        sentences = split_sentences(column, language)
    else:
        sentences = [(0, len(column))]
    ranges = []
    for sentence_start, sentence_end in sentences:
        sentence = (start + sentence_start, start + sentence_end)
        pieces = _clauses(text, *sentence, rules) if unit == "clause" else [sentence]
        ranges.extend(pieces)
    return ranges


def split_units(text: str, rules: UnitRules, unit: str) -> list[Range]:
    """`(start, end)` of each unit of `text`, in order; `unit` is "sentence" or "clause"."""
    if unit not in UNITS:
        raise UsageError(f"unknown unit {unit!r}; expected one of {', '.join(UNITS)}")
    units: list[Range] = []
    for line in _LINE.finditer(text):
        marker = _LIST_MARKER.match(text, line.start(), line.end())
        line_start = marker.end() if marker else line.start()
        for column in _columns(text, line_start, line.end()):
            for piece in _column_units(text, *column, rules, unit):
                trimmed_piece = trimmed(text, *piece)
                if trimmed_piece:
                    units.append(trimmed_piece)
    return units
