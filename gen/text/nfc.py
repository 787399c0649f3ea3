"""Texts compared in Unicode NFC, with offsets kept in the original string.

"José" typed on a Mac may arrive decomposed ("Jose" + U+0301) while the same
word from another tool is precomposed: the same text to a reader, different
strings to Python. Texts are therefore compared in NFC (`gen eval` pairs GOLD and
PRED texts this way), but stored texts are never rewritten, so every offset has to
find its way back. (Words need none of this: `gen.text.words` builds them from
grapheme clusters, which give the same words in NFC and NFD.)

Method: only the words around a character NFC may change or combine (quick
check "no" or "maybe", or a combining mark) are looked at; the text between them
is kept as is, and its offsets map one to one. Such a word is cut into grapheme
clusters (a base character with its marks, a Hangul syllable's jamo...), which
are normalized one by one (merged with their neighbour in the rare case where NFC
composes across them). The two strings then share runs: exact ones, the same
characters on both sides, and changed ones, one cluster NFC rewrote. An offset
inside a changed run is widened to the run's edges, so a range never loses a
character it covered.
"""

from __future__ import annotations

import bisect
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import regex

#: Characters NFC may change or combine with a neighbour: quick check "no" or "maybe",
#: and combining marks (which NFC reorders).
_CHANGING = r"\p{NFC_QC=N}\p{NFC_QC=M}\P{ccc=0}"
#: A word holding such a character, or such a character alone (a space NFC replaces).
_UNSTABLE = regex.compile(rf"(?<!\S)[^\s{_CHANGING}]*+[{_CHANGING}]\S*|[{_CHANGING}]", regex.V1)
_CLUSTER = regex.compile(r"\X")

Range = tuple[int, int]


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


@dataclass(frozen=True)
class NfcText:
    """`text`, the NFC form of `original`, as runs both strings share.

    Run `i` starts at `original_starts[i]` and `text_starts[i]`; it is `exact` when it
    holds the same characters on both sides. A last entry marks both ends. No runs
    when `text` is `original`."""

    original: str
    text: str
    original_starts: tuple[int, ...] = ()
    text_starts: tuple[int, ...] = ()
    exact: tuple[bool, ...] = ()

    def to_original(self, ranges: Iterable[Range]) -> list[Range]:
        """Ranges of `text` as ranges of `original`, widened to whole changed runs."""
        return _map(ranges, self.text_starts, self.original_starts, self.exact)

    def to_text(self, ranges: Iterable[Range]) -> list[Range]:
        """Ranges of `original` as ranges of `text`, widened to whole changed runs."""
        return _map(ranges, self.original_starts, self.text_starts, self.exact)


def _map(
    ranges: Iterable[Range], starts: Sequence[int], targets: Sequence[int], exact: Sequence[bool]
) -> list[Range]:
    if not starts:
        return list(ranges)
    mapped = []
    for start, end in ranges:
        run = bisect.bisect_right(starts, start) - 1
        offset = start - starts[run]
        new_start = targets[run] + offset if offset == 0 or exact[run] else targets[run]
        run = bisect.bisect_right(starts, end) - 1
        offset = end - starts[run]
        new_end = targets[run] + offset if offset == 0 or exact[run] else targets[run + 1]
        mapped.append((new_start, new_end))
    return mapped


@lru_cache(maxsize=64)
def nfc_text(original: str) -> NfcText:
    """The NFC view of `original`; free when it is already NFC, as nearly every text is."""
    if unicodedata.is_normalized("NFC", original):
        return NfcText(original, original)
    pairs: list[tuple[str, str]] = []  # (original piece, its NFC), in order
    cursor = 0
    for unstable in _UNSTABLE.finditer(original):
        stable = original[cursor : unstable.start()]
        pairs.append((stable, stable))
        pairs.extend(_segments(unstable.group()))
        cursor = unstable.end()
    pairs.append((original[cursor:], original[cursor:]))
    text = "".join(normalized for _, normalized in pairs)
    if text != nfc(original):  # not expected; then one changed run: coarse, never wrong
        text = nfc(original)
        return NfcText(original, text, (0, len(original)), (0, len(text)), (False, True))
    original_starts, text_starts, exact = [], [], []
    original_end = text_end = 0
    for piece, normalized in pairs:
        if not piece:
            continue
        same = piece == normalized
        if not (same and exact and exact[-1]):  # neighbouring exact runs are one run
            original_starts.append(original_end)
            text_starts.append(text_end)
            exact.append(same)
        original_end += len(piece)
        text_end += len(normalized)
    original_starts.append(original_end)
    text_starts.append(text_end)
    exact.append(True)
    return NfcText(original, text, tuple(original_starts), tuple(text_starts), tuple(exact))


def _segments(word: str) -> list[tuple[str, str]]:
    """(grapheme cluster, its NFC) pairs; clusters merge where NFC composes across them."""
    clusters = _CLUSTER.findall(word)
    normalized = [nfc(cluster) for cluster in clusters]
    if "".join(normalized) == nfc(word):  # nearly always: no merging needed
        return list(zip(clusters, normalized, strict=True))
    segments: list[str] = []
    for cluster in clusters:
        if segments and nfc(segments[-1] + cluster) != nfc(segments[-1]) + nfc(cluster):
            segments[-1] += cluster
        else:
            segments.append(cluster)
    return [(segment, nfc(segment)) for segment in segments]


def same_text(first: str, second: str) -> bool:
    """Equal once both are in NFC."""
    return first == second or nfc(first) == nfc(second)


def move_range(start: int, end: int, source: str, target: str) -> Range:
    """`source[start:end]` as a range of `target`, a text equal to `source` in NFC."""
    if source == target:
        return start, end
    [moved] = nfc_text(target).to_original(nfc_text(source).to_text([(start, end)]))
    return moved
