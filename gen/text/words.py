"""Words with character offsets, and the conversion between spans and word tags.

Every word-level view of a record (eval, stats, agreement, CoNLL, sentence
chunks, hf-tokens labels) goes through these functions, so that they all agree
on what a word is and on which words a span covers.

What a word is: a run of letters, digits and underscores with the marks that
belong to them (joined by inner hyphens, apostrophes or periods: "e-mail",
"l'anno", "3.5"); a Chinese, Japanese or Korean character on its own (those
scripts do not put spaces between words, so a whole clause would otherwise be one
word); or any other visible character (punctuation, a symbol, an emoji) on its
own. The units are grapheme clusters (a character with its marks, an emoji with
its modifiers, a Hangul syllable's jamo), so a combining mark is never a word by
itself and a decomposed (NFD) "José" is one word like the precomposed one: the
words do not depend on the normalization (a property test checks NFC against
NFD), and no text is normalized, so offsets are always offsets into the original.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from itertools import accumulate
from operator import itemgetter

import regex

from gen.core.records import Span

#: Scripts written without spaces between words: one word per character.
_UNSPACED_SCRIPTS = r"\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}"
#: Characters that join a grapheme cluster with a neighbour: marks, joiners, spacing
#: vowel signs, Hangul jamo, flag halves. Without them every character stands alone.
_JOINERS = (
    r"\p{GCB=Extend}\p{GCB=ZWJ}\p{GCB=SpacingMark}\p{GCB=Prepend}"
    r"\p{GCB=L}\p{GCB=V}\p{GCB=T}\p{GCB=Regional_Indicator}"
)
_UNSPACED = regex.compile(f"[{_UNSPACED_SCRIPTS}]")
_JOINING = regex.compile(f"[{_JOINERS}]")
#: Marks are special too: a mark that joins nothing (U+109A) has nothing to sit on.
_SPECIAL = regex.compile(f"[{_UNSPACED_SCRIPTS}{_JOINERS}\\p{{M}}]")
#: Below U+0300 (ASCII, Latin-1, Latin Extended, IPA) no character is CJK or joins a
#: cluster: a fast `re` check that spares most texts the `_SPECIAL` search.
_BEYOND_LATIN = re.compile("[^\x00-\u02ff]")
_CLUSTER = regex.compile(r"\X")
#: Characters that show nothing and join no grapheme cluster: controls (BEL) and format
#: characters (U+200B, U+FEFF, the bidirectional controls U+200E, U+202A-U+202E,
#: U+2066-U+2069). ZWJ, ZWNJ and emoji tag characters join the character before them.
_CONTROL = regex.compile(r"\p{GCB=Control}")
_MARK = regex.compile(r"\p{M}")
#: Stand-in for a character that is a word on its own: `WORD_PATTERN` takes it as a symbol.
_ALONE = "\x00"

#: Letters and digits joined by inner hyphens, apostrophes or periods, or one other
#: visible character; matched over characters, or over clusters (`_cluster_words`).
WORD_PATTERN = re.compile(r"\w+(?:[-'’.]\w+)*|[^\w\s]")

OUTSIDE = "O"
TAG_SCHEMES = ("io", "bio")

_start = itemgetter(0)
_end = itemgetter(1)


class _StandIns(dict):
    """`str.translate` table: a character of the unspaced scripts -> `_ALONE`, a mark ->
    a space (without joiners in the text, no mark sits on a letter: it is left out, as a
    cluster that starts with a mark is), any other to itself; filled as characters are
    met, so no table of all of Unicode is built."""

    def __missing__(self, code: int) -> str:
        char = chr(code)
        self[code] = _ALONE if _UNSPACED.match(char) else " " if _MARK.match(char) else char
        return self[code]


_STAND_INS = _StandIns()


def word_spans(text: str) -> list[tuple[int, int]]:
    """Character ranges of the words of `text`, in order, as offsets into `text`."""
    special = _SPECIAL.search(text) if _BEYOND_LATIN.search(text) else None
    if special is None:  # the common case: every character stands alone
        return _matches(text)
    if _JOINING.search(text, special.start()):
        return _cluster_words(text)
    return _matches(text.translate(_STAND_INS))


def alphanumeric_words(text: str) -> list[tuple[int, int]]:
    """The words of `text` with a letter or digit in them: what a reader counts as
    words (punctuation, symbols, emoji and blanks such as `____` left out)."""
    return [
        (start, end)
        for start, end in word_spans(text)
        if text[start].isalnum() or any(char.isalnum() for char in text[start:end])
    ]


def _matches(text: str) -> list[tuple[int, int]]:
    return [match.span() for match in WORD_PATTERN.finditer(text)]


def _cluster_words(text: str) -> list[tuple[int, int]]:
    """`WORD_PATTERN` over grapheme clusters: each cluster is matched as its first
    character, a CJK character as a symbol (a word alone), and a mark with nothing
    to sit on (at the start of the text, or after a line break) as a space."""
    clusters = _CLUSTER.findall(text)
    firsts = "".join([cluster[0] for cluster in clusters])
    edges = [0, *accumulate(map(len, clusters))]
    stand_ins = _MARK.sub(" ", firsts).translate(_STAND_INS)
    return [(edges[start], edges[end]) for start, end in _matches(stand_ins)]


def words_in(words: Sequence[tuple[int, int]], start: int, end: int) -> range:
    """Indices of the words sharing a character with `text[start:end]`, a word cut
    by an edge included (binary search: `words` sorted and disjoint, as `word_spans`)."""
    first = bisect.bisect_right(words, start, key=_end)
    last = bisect.bisect_left(words, end, key=_start)
    return range(first, max(first, last))


def is_invisible(char: str) -> bool:
    """Whether `char` is whitespace or shows nothing and joins no cluster (`_CONTROL`)."""
    return char.isspace() or _CONTROL.match(char) is not None


def _trim(text: str, start: int, end: int, blank: Callable[[str], bool]) -> tuple[int, int] | None:
    while start < end and blank(text[start]):
        start += 1
    while end > start and blank(text[end - 1]):
        end -= 1
    return (start, end) if start < end else None


def trim_whitespace(text: str, start: int, end: int) -> tuple[int, int] | None:
    """`text[start:end]` without the whitespace at its edges; None if nothing else is left."""
    return _trim(text, start, end, str.isspace)


def trim_invisible(text: str, start: int, end: int) -> tuple[int, int] | None:
    """`text[start:end]` without whitespace and invisible characters (`is_invisible`) at
    its edges, as a span is: it starts and ends on something a reader sees (a zero-width
    space before a word, a byte order mark or a bell is no part of it). None if nothing
    else is left."""
    return _trim(text, start, end, is_invisible)


def snap_to_words(text: str, spans: Sequence[Span]) -> list[Span]:
    """`spans` moved onto the edges of the words they touch: a word cut by an edge joins the
    span (as in `word_owners`), so no span splits a grapheme cluster, and the whitespace
    and invisible characters around the words are left out (`trim_invisible`: such a
    character is a word of its own). A span that touches no visible word is dropped. Spans
    snapped onto one word may overlap: the caller decides which one keeps it."""
    words = word_spans(text)
    snapped = []
    for span in spans:
        touched = words_in(words, span.start, span.end)
        if touched:
            kept = trim_invisible(text, words[touched[0]][0], words[touched[-1]][1])
            if kept:
                snapped.append(replace(span, start=kept[0], end=kept[1]))
    return snapped


def word_owners(words: Sequence[tuple[int, int]], spans: Sequence[Span]) -> list[Span | None]:
    """The span each word overlaps (None outside every span).

    A word cut by a span edge belongs to the span, so a span always covers whole
    words; if two spans touch the same word, the earlier one keeps it.
    """
    owners: list[Span | None] = [None] * len(words)
    for span in sorted(spans, key=lambda s: (s.start, s.end)):
        for index in words_in(words, span.start, span.end):
            if owners[index] is None:
                owners[index] = span
    return owners


def word_starts(
    words: Sequence[tuple[int, int]], tokens: Sequence[tuple[int, int]]
) -> list[int | None]:
    """For each token of another tokenizer (character ranges in order, e.g. a Hugging Face
    encoding's offsets), the index of the word it is the first token of, else None.

    A trainer labels the first sub-token of each word with that word's tag and
    ignores the rest; asking this function instead of the tokenizer's own word ids
    keeps those labels on the words of every other export. A token covering several
    words starts the first of them; empty tokens (special tokens) start nothing.
    """
    starts: list[int | None] = []
    next_word = 0
    for start, end in tokens:
        covered = words_in(words, start, end)
        if covered and covered[-1] >= next_word:
            starts.append(max(covered[0], next_word))
            next_word = covered[-1] + 1
        else:
            starts.append(None)
    return starts


def word_tags(
    words: Sequence[tuple[int, int]], spans: Sequence[Span], scheme: str = "io"
) -> list[str]:
    """IO or BIO tags of `words`; in BIO a span's first word is B- even right after another span."""
    tags: list[str] = []
    previous: Span | None = None
    for owner in word_owners(words, spans):
        if owner is None:
            tags.append(OUTSIDE)
        elif scheme == "bio" and owner is not previous:
            tags.append(f"B-{owner.label}")
        else:
            tags.append(f"I-{owner.label}")
        previous = owner
    return tags


def tag_names(labels: Sequence[str], scheme: str = "io") -> list[str]:
    """All tags a scheme can produce for `labels`, "O" first (its id is 0)."""
    prefixes = ("B", "I") if scheme == "bio" else ("I",)
    return [OUTSIDE] + [f"{prefix}-{label}" for label in sorted(labels) for prefix in prefixes]


def spans_from_tags(
    words: Sequence[tuple[int, int]], tags: Sequence[str], *, source: str = "gold"
) -> list[Span]:
    """Spans back from word tags: a run of same-label I- tags is one span, B- starts a new one."""
    spans: list[Span] = []
    open_span: tuple[int, int, str] | None = None
    for (start, end), tag in zip(words, tags, strict=True):
        prefix, _, label = tag.partition("-")
        if tag == OUTSIDE:
            label = ""
        if open_span and label == open_span[2] and prefix != "B":
            open_span = (open_span[0], end, label)
            continue
        if open_span:
            spans.append(Span(open_span[0], open_span[1], open_span[2], source))
        open_span = (start, end, label) if label else None
    if open_span:
        spans.append(Span(open_span[0], open_span[1], open_span[2], source))
    return spans
