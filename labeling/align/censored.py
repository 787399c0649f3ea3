"""Reading a model's censored rewrite: which bracketed passages are tags, and which
lines are chatter around the document rather than part of it.

Models spell tags loosely (`[health data]`, `[Health-Data]`, `[ HEALTH_DATA ]`) and wrap
their answer in preambles, closing remarks and markdown fences; all of that is resolved
here so the aligner only sees literal text and tags.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from rapidfuzz import fuzz

#: A bracketed passage on one line; whether it is a tag depends on the tag keys.
_BRACKETED = re.compile(r"\[([^\[\]\n]{1,80})\]")
_FENCE = re.compile(r"^\s*(```|~~~)")

#: Lines longer than this are document text, never chatter (and too costly to compare).
_CHATTER_MAX_CHARS = 200
#: A short line without a tag that matches no part of the original this well is chatter.
_CHATTER_MAX_SIMILARITY = 70.0


@dataclass(frozen=True, slots=True)
class Tag:
    """A censored passage: the label it stands for and the text the model wrote."""

    label: str
    raw: str


Piece = str | Tag


def tag_key(text: str) -> str:
    """Spelling-insensitive key: case, spacing and separators vary between answers."""
    return "".join(ch for ch in unicodedata.normalize("NFKC", text).casefold() if ch.isalnum())


def parse_censored(answer: str, tags: Mapping[str, str]) -> list[Piece]:
    """Split `answer` into literal strings and Tags, one Tag per tag written.

    Bracketed text that is no known tag stays literal. Repeats of one tag (`[A] [A]`)
    stay separate Tags: each stands for its own passage (two censored sentences), and
    the aligner splits the text between them at punctuation.
    """
    labels = {key: label for name, label in tags.items() if (key := tag_key(name))}
    pieces: list[Piece] = []
    position = 0
    for match in _BRACKETED.finditer(answer):
        label = labels.get(tag_key(match.group(1)))
        if label is None:
            continue
        literal = answer[position : match.start()]
        if literal:
            pieces.append(literal)
        pieces.append(Tag(label, match.group(0)))
        position = match.end()
    if position < len(answer):
        pieces.append(answer[position:])
    return pieces


def strip_chatter(
    answer: str, reference: str, tags: Mapping[str, str], normalise: Callable[[str], str]
) -> str:
    """Drop leading and trailing lines that are not part of the document: markdown
    fences, blank lines, and short lines whose text outside tags resembles no part of the
    original ("Here is the censored document:", "I hope this helps", "Note: health
    details were replaced with [HEALTH_DATA]").

    `reference` is the original and `normalise` the normalisation that made it, so that
    quotes, case and spacing do not make a document line look like chatter.
    """
    lines = answer.splitlines(keepends=True)

    def is_chatter(line: str) -> bool:
        if not line.strip() or _FENCE.match(line):
            return True
        if len(line) > _CHATTER_MAX_CHARS:
            return False
        literals = [
            normalise(piece) for piece in parse_censored(line, tags) if isinstance(piece, str)
        ]
        size = sum(map(len, literals))
        if not size:  # nothing but tags: the whole line was censored
            return False
        similarity = sum(len(text) * fuzz.partial_ratio(text, reference) for text in literals)
        return similarity / size < _CHATTER_MAX_SIMILARITY

    start, end = 0, len(lines)
    while start < end and is_chatter(lines[start]):
        start += 1
    while end > start and is_chatter(lines[end - 1]):
        end -= 1
    return "".join(lines[start:end])
