"""The fuzzy search for a planned fact: a semi-global alignment of the fact's tokens against
a stretch of the text's tokens (`labeling.planned` says what a passage must then hold).

The whole fact is matched against a passage that may start and end anywhere in the
stretch: skipping a token of either costs its characters, and two words whose Indel
similarity reaches the censor aligner's `MIN_WORD_SIMILARITY` match at the cost of their
difference (another tense or gender, a typo: "iscritta" / "iscritto"; words under four
characters only when equal, or "he" would be "the"). Words of one `same_words` group of
the pack ("has" / "have") are the same word. Each row of the table is one numpy pass, as in
`labeling.align.regions`; the passages ending at the cheapest places are the candidates.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from rapidfuzz.distance import Indel
from rapidfuzz.process import cdist

from labeling.align.regions import MIN_WORD_SIMILARITY

#: How many of the cheapest passage ends are candidates: a longer passage may cost a little
#: more and hold more of the fact ("... when she was nine" for "... at the age of nine").
CANDIDATE_ENDS = 8
#: Words shorter than this match only their equal (or a `same_words` form).
SHORT_WORD = 4
_TOLERANCE = 1e-9


@dataclass(frozen=True, slots=True)
class Candidate:
    """A passage `[first, last)` of the stretch's tokens, and the (fact token, text token)
    pairs the alignment matched in it."""

    first: int
    last: int
    pairs: tuple[tuple[int, int], ...]


class Alignment:
    """The fact's tokens against one stretch of the text's tokens."""

    def __init__(self, fact: Sequence[str], norms: Sequence[str], same: Mapping[str, str]):
        self.fact_weights = np.array([len(token) for token in fact], dtype=float)
        self.weights = np.array([len(token) for token in norms], dtype=float)
        similarity = cdist(
            [same.get(token, token) for token in fact],
            [same.get(token, token) for token in norms],
            scorer=Indel.normalized_similarity,
            workers=1,
        )
        # Short words are alike by chance ("he" / "the"): they match only when equal.
        short = (self.fact_weights[:, None] < SHORT_WORD) | (self.weights[None, :] < SHORT_WORD)
        #: fact token x text token: how alike (0-1), 0 for words that never match.
        self.similarity = np.where(
            (short & (similarity < 1.0)) | (similarity < MIN_WORD_SIMILARITY), 0.0, similarity
        )
        self.substitution = np.where(
            self.similarity > 0,
            (self.fact_weights[:, None] + self.weights[None, :]) * (1.0 - self.similarity),
            np.inf,
        )
        self.table = _fill_table(self.fact_weights, self.weights, self.substitution)

    def candidates(self) -> list[Candidate]:
        """The passages ending at the `CANDIDATE_ENDS` cheapest places, cheapest first."""
        found = []
        for end in np.argsort(self.table[-1][1:], kind="stable")[:CANDIDATE_ENDS]:
            first, pairs = self._walk_back(int(end) + 1)
            found.append(Candidate(first, int(end) + 1, tuple(reversed(pairs))))
        return found

    def score(self, first: int, last: int) -> float:
        """The share of characters the whole fact and the passage `[first, last)` have in
        common: 1 - cost / characters of both."""
        cost = _fill_table(
            self.fact_weights,
            self.weights[first:last],
            self.substitution[:, first:last],
            free_start=False,
        )[-1][-1]
        both = float(self.fact_weights.sum() + self.weights[first:last].sum())
        return 1.0 - float(cost) / both

    def _walk_back(self, last: int) -> tuple[int, list[tuple[int, int]]]:
        """The first text token of the passage that ends before token `last`, and the pairs
        matched in it, last first."""
        table, row, column = self.table, len(self.fact_weights), last
        matched: list[tuple[int, int]] = []
        while row > 0:
            here = table[row][column]
            step = self.substitution[row - 1][column - 1] if column > 0 else np.inf
            if column > 0 and table[row - 1][column - 1] + step <= here + _TOLERANCE:
                row, column = row - 1, column - 1
                matched.append((row, column))
            elif table[row - 1][column] + self.fact_weights[row - 1] <= here + _TOLERANCE:
                row -= 1
            else:
                column -= 1
                assert table[row][column] + self.weights[column] <= here + _TOLERANCE
        return column, matched


def _fill_table(
    fact_weights: np.ndarray,
    weights: np.ndarray,
    substitution: np.ndarray,
    *,
    free_start: bool = True,
) -> np.ndarray:
    """Rows: the fact's tokens; columns: the text's. With `free_start` row 0 costs nothing
    (the passage may start anywhere); skipping a fact token costs its characters, matching
    costs `substitution`, and a text token inside the passage left unmatched costs its
    characters: a running minimum of `cost - characters so far`, one numpy pass per row."""
    before = np.concatenate(([0.0], np.cumsum(weights)))
    table = np.empty((len(fact_weights) + 1, len(weights) + 1))
    table[0] = 0.0 if free_start else before
    for row, weight in enumerate(fact_weights):
        previous = table[row]
        step = previous + weight
        step[1:] = np.minimum(step[1:], previous[:-1] + substitution[row])
        table[row + 1] = before + np.minimum.accumulate(step - before)
    return table


def alike(fact_word: str, word: str, same: Mapping[str, str]) -> bool:
    """Whether a word before a passage is a form of one of the fact's words the alignment
    left out: the same word, a similar one, or one with the same stem ("takes" / "taking",
    "fa" / "fatto": one starts with the other, or they share at least three letters and
    the shorter has at most two more)."""
    a, b = same.get(fact_word, fact_word), same.get(word, word)
    if a == b:
        return True
    if not (a[:1].isalpha() and b[:1].isalpha()):
        return False
    short, long = sorted((a, b), key=len)
    if long.startswith(short) and len(short) >= 2:
        return True
    common = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), len(short))
    if common >= 3 and len(short) - common <= 2:
        return True
    return len(short) >= SHORT_WORD and Indel.normalized_similarity(a, b) >= MIN_WORD_SIMILARITY
