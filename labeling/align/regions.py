"""Placing the tags of one region between anchors: an edit distance where a tag is free.

The aligner (`labeling.align.aligner`) cuts the answer and the original at anchors, runs
of tokens equal in both; this module solves one region between two anchors. Rows are the
answer's items (literal tokens and tags), columns the original's tokens: skipping a token
on either side costs 1, matching two similar words costs 2 * (1 - similarity), and a tag
absorbs any run of original tokens for free. Each row of the table is one numpy pass, and
the walk back from the last cell says which original tokens each tag stands for.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from rapidfuzz.distance import Indel
from rapidfuzz.process import cdist

from labeling.align.censored import Tag
from labeling.align.tokens import is_word

#: Tokens this similar (Indel, 0..1) count as the same word with a typo.
MIN_WORD_SIMILARITY = 0.6
#: Regions larger than this (literal tokens x original tokens) are left unsolved.
_MAX_REGION_CELLS = 2_000_000
#: Prefer splitting the text between two adjacent tags at punctuation.
_ADJACENT_TAG_PENALTY = 0.01
_TOLERANCE = 1e-9


@dataclass(frozen=True, slots=True)
class Placement:
    """The original tokens [lo, hi) one tag stands for."""

    tag: Tag
    lo: int
    hi: int
    exact: bool
    score: float


def solve_region(
    items: list[str | Tag],
    c_lo: int,
    c_hi: int,
    norms: list[str],
    o_lo: int,
    o_hi: int,
    matched: list[float],
    covered: list[bool],
) -> list[Placement] | None:
    """Place the tags of one region; None when the region is too large to solve."""
    region = items[c_lo:c_hi]
    width = o_hi - o_lo
    if len(region) == 1:  # a tag right between two anchors: the usual, exact case
        covered[o_lo:o_hi] = [True] * width
        return [Placement(region[0], o_lo, o_hi, exact=True, score=1.0)]
    if len(region) * (width + 1) > _MAX_REGION_CELLS:
        return None
    costs = _Costs.of(region, norms[o_lo:o_hi])
    table = _fill_table(region, costs)
    cost = float(table[-1][-1])
    local_score = 1.0 / (1.0 + cost)
    # A lone tag whose neighbours all match exactly can only stand for one run of tokens.
    unambiguous = cost <= _TOLERANCE and sum(isinstance(item, Tag) for item in region) == 1
    for c_index in range(c_lo, c_hi):
        matched[c_index] = 0.0
    covered[o_lo:o_hi] = [False] * width
    placements: list[Placement] = []
    a, b = len(region), width
    while a > 0:
        item, previous, current = region[a - 1], table[a - 1], table[a]
        if isinstance(item, Tag):
            entry = previous[:b] + costs.penalty(region, a - 1)[:b]
            fits = np.flatnonzero(entry <= current[b] + _TOLERANCE)
            start = int(fits[0]) if fits.size else b  # none: the tag stands for nothing
            covered[o_lo + start : o_lo + b] = [True] * (b - start)
            beside_tag = any(isinstance(region[i], Tag) for i in (a - 2, a) if 0 <= i < len(region))
            score = local_score / 2 if beside_tag else local_score
            placements.append(Placement(item, o_lo + start, o_lo + b, unambiguous, score))
            a, b = a - 1, start
        elif (
            b > 0 and previous[b - 1] + costs.substitution[a - 1][b - 1] <= current[b] + _TOLERANCE
        ):
            matched[c_lo + a - 1] = float(costs.similarity[a - 1][b - 1])
            covered[o_lo + b - 1] = True
            a, b = a - 1, b - 1
        elif previous[b] + 1 <= current[b] + _TOLERANCE:
            a -= 1
        else:
            b -= 1
    return placements[::-1]


@dataclass(frozen=True, slots=True)
class _Costs:
    """What matching a region's answer items against its original tokens costs."""

    #: Indel similarity of each answer item (row) to each original token (0 for tags).
    similarity: np.ndarray
    #: 2 * (1 - similarity) where similar enough to be the same word, else infinite.
    substitution: np.ndarray
    #: Per boundary between original tokens: a small cost unless next to punctuation.
    boundary_penalty: np.ndarray

    @classmethod
    def of(cls, region: list[str | Tag], norms: list[str]) -> _Costs:
        similarity = np.zeros((len(region), len(norms)))
        rows = [index for index, item in enumerate(region) if not isinstance(item, Tag)]
        if rows and norms:
            words = [region[index] for index in rows]
            similarity[rows] = cdist(words, norms, scorer=Indel.normalized_similarity, workers=1)
        substitution = np.where(similarity >= MIN_WORD_SIMILARITY, 2.0 * (1.0 - similarity), np.inf)
        at_punctuation = np.array([not is_word(norm) for norm in norms], dtype=bool)
        natural = np.ones(len(norms) + 1, dtype=bool)
        natural[1:-1] = at_punctuation[:-1] | at_punctuation[1:]
        return cls(similarity, substitution, np.where(natural, 0.0, _ADJACENT_TAG_PENALTY))

    def penalty(self, region: list[str | Tag], index: int) -> np.ndarray:
        """Cost of the tag at `index` starting at each boundary: only a tag that follows
        another tag pays, so that the text between them is split at punctuation."""
        if index > 0 and isinstance(region[index - 1], Tag):
            return self.boundary_penalty
        return np.zeros_like(self.boundary_penalty)


def _fill_table(region: list[str | Tag], costs: _Costs) -> np.ndarray:
    """Edit-distance table: rows are answer items, columns original tokens.

    Skipping a literal or an original token costs 1, matching costs 2*(1-similarity),
    a tag absorbs any non-empty run for free (an empty tag costs 1). Each row is one
    numpy pass: a run of skipped original tokens is a running minimum of `cost - column`.
    """
    width = costs.boundary_penalty.size - 1
    columns = np.arange(width + 1, dtype=float)
    table = np.empty((len(region) + 1, width + 1))
    table[0] = columns
    for a, item in enumerate(region):
        previous = table[a]
        if isinstance(item, Tag):
            entry = previous + costs.penalty(region, a)
            row = previous + 1.0
            row[1:] = np.minimum(row[1:], np.minimum.accumulate(entry)[:-1])
        else:
            step = previous + 1.0
            step[1:] = np.minimum(step[1:], previous[:-1] + costs.substitution[a])
            row = columns + np.minimum.accumulate(step - columns)
        table[a + 1] = row
    return table
