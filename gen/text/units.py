"""Labeling units: sentences or clauses, as exact character ranges of the original text.

A gold span is usually a clause ("was convicted of drink-driving in 2019"), not the
sentence around it, so a labeler that classifies whole sentences cannot be precise however
good its model is. This module cuts a text into the units a labeler classifies.

Method, line by line:
1. A list marker at the start of a line (`-`, `•`, `1.`, `a)`, `[x]`...) is left out: the
   item is a unit of its own because the line is.
2. A line is cut into columns at its gaps (a run of spaces and tabs holding a tab or
   three or more spaces) only where the layout shows columns: a gap of six spaces or
   more (wider than prose spacing ever is: a title with its reference number at the
   right); a field after a gap on a line that starts with one (`Signed: ...   Date: ...`);
   a column starting at the same place on a neighbouring line (aligned tables and
   label-value lists; tabs expanded to stops of 8), or ending there for a number
   (right-aligned amounts); a tab when a neighbouring line holds as many tabs
   (tab-separated rows). A gap right after `Name:` is the field's own (step 3); any
   other gap is the spacing of prose from PDFs, OCR or e-mail and cuts nothing.
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
6. Each unit is trimmed of surrounding whitespace and invisible characters (a zero-width
   space, a bidirectional mark, a control: gen.text.words.is_invisible) and of the
   separator punctuation at its edges (`. , ; : ! ? …` and dashes): gold spans leave
   closing punctuation out too.

Every character of the text that is not whitespace is inside a unit, except list markers,
field names with their colon, and the invisible characters and separator punctuation of
steps 5-6; no unit is empty
or overlaps another, and units come in text order.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache, partial
from itertools import pairwise
from typing import Literal, NamedTuple, get_args

from gen.core.errors import UsageError
from gen.core.pack_language import UnitRules
from gen.text.sentences import split_sentences
from gen.text.words import alphanumeric_words, is_invisible

#: What a labeling unit is; `UNITS` lists them for messages and option choices.
Unit = Literal["sentence", "clause"]
UNITS: tuple[str, ...] = get_args(Unit)

Range = tuple[int, int]

_LINE = re.compile(r"[^\n]+")
_LIST_MARKER = re.compile(
    r"[ \t]*(?:[-–—•*·▪◦‣]|\(?\d{1,3}[.)]|\(?[a-z]\)|\[[ xX✓]?\]|[☐☑☒✓])[ \t]+(?=\S)"
)
#: Spacing wide enough to be a column gap: a run of spaces and tabs with a tab, or 3+ spaces.
_GAP = re.compile(r"[ \t]*\t[ \t]*|[ ]{3,}")
_TAB_STOP = 8
#: Spacing that sentence splitting reads as one space.
_SPACING = re.compile(r"[ \t]{2,}|\t")
#: A gap of this many spaces is a column gap wherever it is.
_WIDE_GAP = " " * 6
#: The colon after a field name: spacing or the end of the column follows it.
_FIELD_COLON = re.compile(r":(?:[ \t]+|$)")
_SENTENCE_END = re.compile(r"[.!?…][ \t]")
_SENTENCE_MARK = re.compile(r"[.!?…。！？]")
#: Hard clause breaks: the punctuation goes to the left piece (and is trimmed from it).
_HARD_BREAK = re.compile(r"[;:](?=\s)|\s[–—-](?=\s)")
#: Separator punctuation trimmed from a unit's edges, with any whitespace: French puts a
#: no-break space before ":" and ";" ("Antécédents :"), which must not end a unit.
_EDGE = ".,;:!?…–—-"


def _is_edge(character: str) -> bool:
    return character in _EDGE or is_invisible(character)


def trimmed(text: str, start: int, end: int, also: str = "") -> Range | None:
    """The range without surrounding whitespace and separator punctuation (and the
    characters of `also`); None if empty."""
    while start < end and (_is_edge(text[start]) or text[start] in also):
        start += 1
    while end > start and (_is_edge(text[end - 1]) or text[end - 1] in also):
        end -= 1
    return (start, end) if start < end else None


class _Gap(NamedTuple):
    start: int
    end: int
    #: Screen columns where the cell after the gap starts, and ends when it is a number.
    left: int
    right: int | None
    tab: bool


class _Line(NamedTuple):
    """A line's text without its list marker and edge whitespace, and the gaps inside it."""

    start: int
    end: int
    gaps: list[_Gap]
    tabs: int
    lefts: frozenset[int]
    rights: frozenset[int]


def _is_number(cell: str) -> bool:
    return any(c.isdigit() for c in cell) and not any(c.isalpha() for c in cell)


def _line(text: str, line: re.Match[str]) -> _Line:
    marker = _LIST_MARKER.match(text, line.start(), line.end())
    start, end = marker.end() if marker else line.start(), line.end()
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    spans = [gap.span() for gap in _GAP.finditer(text, start, end)]
    gaps, cursor, column = [], line.start(), 0
    for index, (gap_start, gap_end) in enumerate(spans):
        # Tab stops depend only on the column modulo the stop: expand from there.
        offset = column % _TAB_STOP
        column += len((" " * offset + text[cursor:gap_end]).expandtabs(_TAB_STOP)) - offset
        cursor = gap_end
        cell_end = spans[index + 1][0] if index + 1 < len(spans) else end
        right = column + cell_end - gap_end if _is_number(text[gap_end:cell_end]) else None
        gaps.append(_Gap(gap_start, gap_end, column, right, "\t" in text[gap_start:gap_end]))
    return _Line(
        start,
        end,
        gaps,
        text.count("\t", line.start(), line.end()),
        frozenset(gap.left for gap in gaps),
        frozenset(gap.right for gap in gaps if gap.right is not None),
    )


def _cuts(
    text: str, line: _Line, index: int, neighbours: list[_Line], rules: UnitRules, form: bool
) -> bool:
    """Whether gap `index` of `line` separates columns (step 2 of the module docstring);
    `form`: whether the line starts with a field."""
    gap = line.gaps[index]
    before = line.gaps[index - 1].end if index else line.start
    after = line.gaps[index + 1].start if index + 1 < len(line.gaps) else line.end
    if _field_name_end(text, before, gap.start, rules) == gap.start:
        return False
    if _WIDE_GAP in text[gap.start : gap.end]:
        return True
    # Fields side by side: in spaced prose a word before a colon is no field of a form.
    if form and _field_name_end(text, gap.end, after, rules) is not None:
        return True
    return any(
        gap.left in other.lefts
        or gap.right in other.rights
        or (gap.tab and other.tabs == line.tabs)
        for other in neighbours
    )


def _columns(text: str, lines: list[_Line], index: int, rules: UnitRules) -> Iterator[Range]:
    line = lines[index]
    neighbours = lines[max(0, index - 1) : index] + lines[index + 1 : index + 2]
    first = line.gaps[0].start if line.gaps else line.end
    form = _field_name_end(text, line.start, first, rules) is not None
    cursor = line.start
    for number, gap in enumerate(line.gaps):
        if _cuts(text, line, number, neighbours, rules, form):
            yield cursor, gap.start
            cursor = gap.end
    yield cursor, line.end


def _field_name_end(text: str, start: int, end: int, rules: UnitRules) -> int | None:
    """Where the `Name:` that `text[start:end]` starts with ends (after the colon and its
    spacing); None if it starts with no field name."""
    colon = _FIELD_COLON.search(text, start, end)
    if colon is None:
        return None
    words = _words(text, start, colon.start())
    prose = _SENTENCE_END.search(text, start, colon.start())
    return colon.end() if 0 < words <= rules.field_name_max_words and not prose else None


def _field_value_start(text: str, start: int, end: int, rules: UnitRules) -> int:
    """Where the value of a `Name: value` column starts, or `start` if it is no field."""
    value = _field_name_end(text, start, end, rules)
    return value if value is not None and value < end else start


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


def _sentences(column: str, language: str) -> list[Range]:
    """`split_sentences` of `column` read with one space for each run of spacing (pysbd
    ends a sentence at `in.   he` but not at `in. he`), as offsets into `column`."""
    where: list[int] = []
    parts, cursor = [], 0
    for gap in _SPACING.finditer(column):
        parts += [column[cursor : gap.start()], " "]
        where += [*range(cursor, gap.start()), gap.start()]
        cursor = gap.end()
    if not parts:
        return split_sentences(column, language)
    parts.append(column[cursor:])
    where += range(cursor, len(column))
    read = "".join(parts)
    return [(where[start], where[end - 1] + 1) for start, end in split_sentences(read, language)]


def _column_units(text: str, start: int, end: int, rules: UnitRules, unit: str) -> list[Range]:
    start = _field_value_start(text, start, end, rules)
    language = rules.sentence_language or "en"
    column = text[start:end]
    # pysbd only ends sentences at these marks, and costs ~10 ms a call: form values
    # and list items without one inside are one sentence.
    if _SENTENCE_MARK.search(column.rstrip()[:-1]):
        sentences = _sentences(column, language)
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
    # Lines without text are no neighbours: a blank line inside a table leaves it whole.
    lines = [
        line for line in map(partial(_line, text), _LINE.finditer(text)) if line.start < line.end
    ]
    for index in range(len(lines)):
        for column in _columns(text, lines, index, rules):
            for piece in _column_units(text, *column, rules, unit):
                trimmed_piece = trimmed(text, *piece)
                if trimmed_piece:
                    units.append(trimmed_piece)
    return units
