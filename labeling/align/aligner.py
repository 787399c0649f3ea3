"""Recover, in the original document, the passages a model replaced by tags (censor strategy).

The model rewrites the document with each sensitive passage replaced by a tag such as
`[HEALTH_DATA]`. Both texts are compared as sequences of normalised tokens (words, single
CJK characters, punctuation; case, quotes and dashes folded), so reflowed whitespace and
typographic changes cost nothing. A global alignment computed in C++ (rapidfuzz) yields
anchors: runs of tokens equal in both texts. Only the regions between anchors that contain
tags are solved by dynamic programming, vectorised with numpy: there a tag absorbs any run
of original tokens for free, while literal tokens must match (typos allowed) or pay for
being skipped. This keeps the cost close to linear in the document length.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from rapidfuzz.distance import Indel
from rapidfuzz.process import cdist

from gen.core.records import Span
from labeling.align.censored import Tag, parse_censored, strip_chatter

#: Answers matching the original, or accounting for it, less than this are flagged.
DEFAULT_THRESHOLD = 0.6
#: Answers matching the original less than this are no rewrite of it: "failed", no spans.
UNRELATED_BELOW = 0.3

#: Tokens this similar (Indel, 0..1) count as the same word with a typo.
_MIN_WORD_SIMILARITY = 0.6
#: Regions larger than this (literal tokens x original tokens) are left unsolved.
_MAX_REGION_CELLS = 2_000_000
#: Prefer splitting the text between two adjacent tags at punctuation.
_ADJACENT_TAG_PENALTY = 0.01
_TOLERANCE = 1e-9

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
#: A CJK character, a run of other word characters, or one punctuation/symbol character.
_TOKEN = re.compile(rf"[{_CJK}]|[^\W{_CJK}]+|[^\w\s]")
_FOLD = str.maketrans(
    {
        **dict.fromkeys("‘’‚‛`´‹›", "'"),
        **dict.fromkeys("“”„‟«»", '"'),
        **dict.fromkeys("‐‑‒–—―−", "-"),
    }
)

#: Punctuation at a span's edge belongs to the neighbouring literal text.
_EDGE_PUNCTUATION = frozenset(".,;:!?-'\"…")
_CLOSER_OF = {"(": ")", "[": "]", "{": "}", '"': '"', "'": "'"}
_OPENER_OF = {closer: opener for opener, closer in _CLOSER_OF.items()}


@dataclass(frozen=True, slots=True)
class Alignment:
    """The spans recovered from one censored answer, and how far to trust them.

    `score` is the share of the answer's literal text found in the original; `coverage`
    the share of the original either matched or censored. Either below the threshold
    flags the answer (`reason` says why) but keeps its spans; an answer that is no
    rewrite of the original at all is "failed" and yields no spans.
    """

    spans: list[Span]
    quality: str
    score: float
    coverage: float
    flagged: bool
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class _Placement:
    """The original tokens [lo, hi) one tag stands for."""

    tag: Tag
    lo: int
    hi: int
    exact: bool
    score: float


def normalise_tokens(text: str) -> list[str]:
    """The text's tokens with what models change without meaning to folded away: case,
    quote and dash styles. Whitespace is not a token, so reflowing it changes nothing."""
    folded = _fold(text)
    if len(folded) == len(text):  # folding kept every character in place: one C-level pass
        return _TOKEN.findall(folded)
    return [_fold(token) for token in _TOKEN.findall(text)]


def _fold(text: str) -> str:
    return text.translate(_FOLD).casefold()


def normalise_text(text: str) -> str:
    """Tokens joined by single spaces: the text as the aligner compares it."""
    return " ".join(normalise_tokens(text))


@dataclass(frozen=True, slots=True)
class _Source:
    """The original's tokens: normalised for comparison, matches for character offsets."""

    text: str
    matches: list[re.Match[str]]
    norms: list[str]

    @classmethod
    def of(cls, text: str) -> _Source:
        matches = list(_TOKEN.finditer(text))
        norms = normalise_tokens(text)
        if len(norms) != len(matches):  # folding moved a token boundary: fold token by token
            norms = [_fold(match.group()) for match in matches]
        return cls(text, matches, norms)


def _is_word(norm: str) -> bool:
    return norm[0].isalnum()


def _is_anchor(norms: Sequence[str]) -> bool:
    """Runs trusted to be the same passage: a single short word or bare punctuation
    matches by chance too often."""
    words = [norm for norm in norms if _is_word(norm)]
    return bool(words) and (len(norms) >= 2 or len(words[0]) >= 4)


def align_censored(original: str, censored: str, tags: Mapping[str, str]) -> list[Span]:
    """Spans of `original` that `censored` replaced by tags; `tags` maps tag text to label."""
    return align_document(original, censored, tags).spans


def align_document(
    original: str,
    censored: str,
    tags: Mapping[str, str],
    *,
    threshold: float = DEFAULT_THRESHOLD,
) -> Alignment:
    """Align a censored answer with its original; see the module docstring for the method."""
    source = _Source.of(original)
    answer = strip_chatter(censored, " ".join(source.norms), tags, normalise_text)
    items: list[str | Tag] = []
    for piece in parse_censored(answer, tags):
        if isinstance(piece, Tag):
            items.append(piece)
        else:
            items.extend(normalise_tokens(piece))
    matched = [0.0] * len(items)  # similarity of each literal answer token to the original
    covered = [False] * len(source.norms)

    placements: list[_Placement] = []
    unplaced = 0
    regions = _regions(items, source.norms, matched, covered)
    for index, (c_lo, c_hi, o_lo, o_hi) in enumerate(regions):
        region_tags = [item for item in items[c_lo:c_hi] if isinstance(item, Tag)]
        if not region_tags:
            continue
        solved = _solve_region(items, c_lo, c_hi, source.norms, o_lo, o_hi, matched, covered)
        if solved is None:
            unplaced += len(region_tags)
            continue
        placed = [p for p in solved if p.hi > p.lo]
        if len(regions) > 1 and placed and index in (0, len(regions) - 1):
            edge = -1 if index else 0
            placed[edge] = _confine_unanchored(placed[edge], source, covered, after=bool(index))
        unplaced += len(region_tags) - len(placed)
        placements.extend(placed)

    spans = [span for p in placements if (span := _to_span(p, source)) is not None]
    unplaced += len(placements) - len(spans)
    score = _score(items, matched, has_source=bool(source.norms))
    coverage = _weighted_share(source.norms, [1.0 if c else 0.0 for c in covered], empty=1.0)

    reasons = []
    if score < max(threshold, UNRELATED_BELOW):
        reasons.append(f"only {score:.0%} of the censored answer matches the original")
    if coverage < threshold:
        reasons.append(f"the censored answer accounts for only {coverage:.0%} of the original")
    reason = "; ".join(reasons) or None
    if score < UNRELATED_BELOW:
        return Alignment([], "failed", score, coverage, True, reason)
    exact = score == 1.0 and coverage == 1.0 and not unplaced and all(p.exact for p in placements)
    return Alignment(spans, "exact" if exact else "fuzzy", score, coverage, bool(reasons), reason)


def _confine_unanchored(
    placement: _Placement, source: _Source, covered: list[bool], *, after: bool
) -> _Placement:
    """Cut a tag with no anchor on one side at the line break nearest its anchored side.

    Otherwise it would run to the document's edge over whatever the answer dropped (a
    truncated answer, a closing never copied); censored passages stay within one line."""
    breaks = [
        index
        for index in range(placement.lo + 1, placement.hi)
        if "\n" in source.text[source.matches[index - 1].end() : source.matches[index].start()]
    ]
    if not breaks:
        return placement
    lo, hi = (placement.lo, breaks[0]) if after else (breaks[-1], placement.hi)
    for index in [*range(placement.lo, lo), *range(hi, placement.hi)]:
        covered[index] = False
    return _Placement(placement.tag, lo, hi, exact=False, score=placement.score / 2)


def _regions(
    items: list[str | Tag], norms: list[str], matched: list[float], covered: list[bool]
) -> list[tuple[int, int, int, int]]:
    """Answer/original index ranges between anchors, recording what the global alignment
    already matched (equal runs exactly, equal-length gaps word by word)."""
    regions = []
    c_from = o_from = 0  # end of the previous anchor
    c_gap = o_gap = 0  # end of the previous equal block, anchor or not
    for block in Indel.opcodes(items, norms).as_matching_blocks():
        c_at, o_at, size = block.a, block.b, block.size
        _match_gap(items, range(c_gap, c_at), norms, range(o_gap, o_at), matched, covered)
        c_gap, o_gap = c_at + size, o_at + size
        for offset in range(size):
            matched[c_at + offset] = 1.0
            covered[o_at + offset] = True
        if size and _is_anchor(items[c_at:c_gap]):
            regions.append((c_from, c_at, o_from, o_at))
            c_from, o_from = c_gap, o_gap
    regions.append((c_from, len(items), o_from, len(norms)))
    return regions


def _match_gap(
    items: list[str | Tag],
    c_range: range,
    norms: list[str],
    o_range: range,
    matched: list[float],
    covered: list[bool],
) -> None:
    """Credit typos: in a gap with as many tokens on both sides, pair them in order."""
    if len(c_range) != len(o_range):
        return
    for c_index, o_index in zip(c_range, o_range, strict=True):
        item = items[c_index]
        if isinstance(item, Tag):
            continue
        similarity = Indel.normalized_similarity(item, norms[o_index])
        if similarity >= _MIN_WORD_SIMILARITY:
            matched[c_index] = similarity
            covered[o_index] = True


def _solve_region(
    items: list[str | Tag],
    c_lo: int,
    c_hi: int,
    norms: list[str],
    o_lo: int,
    o_hi: int,
    matched: list[float],
    covered: list[bool],
) -> list[_Placement] | None:
    """Place the tags of one region; None when the region is too large to solve."""
    region = items[c_lo:c_hi]
    width = o_hi - o_lo
    if len(region) == 1:  # a tag right between two anchors: the usual, exact case
        covered[o_lo:o_hi] = [True] * width
        return [_Placement(region[0], o_lo, o_hi, exact=True, score=1.0)]
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
    placements: list[_Placement] = []
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
            placements.append(_Placement(item, o_lo + start, o_lo + b, unambiguous, score))
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
        substitution = np.where(
            similarity >= _MIN_WORD_SIMILARITY, 2.0 * (1.0 - similarity), np.inf
        )
        at_punctuation = np.array([not _is_word(norm) for norm in norms], dtype=bool)
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


def _to_span(placement: _Placement, source: _Source) -> Span | None:
    """The placement's characters without edge punctuation that belongs to the literal text
    around it (brackets and quotes stay when they close inside the span)."""
    norms, lo, hi = source.norms, placement.lo, placement.hi
    while lo < hi:
        closer = _CLOSER_OF.get(norms[lo])
        if closer is not None and closer in norms[lo + 1 : hi]:
            break
        if closer is None and norms[lo] not in _EDGE_PUNCTUATION and norms[lo] not in _OPENER_OF:
            break
        lo += 1
    while hi > lo:
        opener = _OPENER_OF.get(norms[hi - 1])
        if opener is not None and opener in norms[lo : hi - 1]:
            break
        if (
            opener is None
            and norms[hi - 1] not in _EDGE_PUNCTUATION
            and norms[hi - 1] not in _CLOSER_OF
        ):
            break
        hi -= 1
    if lo == hi:
        return None
    quality = "exact" if placement.exact and (lo, hi) == (placement.lo, placement.hi) else "fuzzy"
    return Span(
        start=source.matches[lo].start(),
        end=source.matches[hi - 1].end(),
        label=placement.tag.label,
        source="llm_censor",
        quality=quality,
        score=round(placement.score, 4),
    )


def _weighted_share(norms: Sequence[str], weights: Sequence[float], *, empty: float) -> float:
    """Share of characters credited, so punctuation weighs less than words."""
    total = sum(len(norm) for norm in norms)
    if not total:
        return empty
    return sum(len(norm) * weight for norm, weight in zip(norms, weights, strict=True)) / total


def _score(items: list[str | Tag], matched: list[float], *, has_source: bool) -> float:
    literal = [
        (item, weight)
        for item, weight in zip(items, matched, strict=True)
        if not isinstance(item, Tag)
    ]
    if not literal:  # nothing to compare: all tags is fine, an empty answer is not
        return 1.0 if has_source and items else 0.0
    return _weighted_share(
        [item for item, _ in literal], [weight for _, weight in literal], empty=0.0
    )
