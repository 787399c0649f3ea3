"""Recover, in the original document, the passages a model replaced by tags (censor strategy).

The model rewrites the document with each sensitive passage replaced by a tag such as
`[HEALTH_DATA]`. Both texts are compared as sequences of normalised tokens (words, single
CJK characters, punctuation; case, quotes and dashes folded), so reflowed whitespace and
typographic changes cost nothing. A global alignment computed in C++ (rapidfuzz) yields
anchors: runs of tokens equal in both texts. Only the regions between anchors that contain
tags are solved by dynamic programming, vectorised with numpy: there a tag absorbs any run
of original tokens for free, while literal tokens must match (typos allowed) or pay for
being skipped. This keeps the cost close to linear in the document length.
The tokens are those of `labeling.align.tokens`; one region is solved by
`labeling.align.regions`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rapidfuzz.distance import Indel

from gen.core.records import Span
from labeling.align.censored import Tag, parse_censored, strip_chatter
from labeling.align.edges import trim_punctuation
from labeling.align.regions import MIN_WORD_SIMILARITY, Placement, solve_region
from labeling.align.tokens import SourceTokens, is_word, normalise_text, normalise_tokens

#: Answers matching the original, or accounting for it, less than this are flagged.
DEFAULT_THRESHOLD = 0.6
#: Answers matching the original less than this are no rewrite of it: "failed", no spans.
UNRELATED_BELOW = 0.3


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


def _is_anchor(norms: Sequence[str]) -> bool:
    """Runs trusted to be the same passage: a single short word or bare punctuation
    matches by chance too often."""
    words = [norm for norm in norms if is_word(norm)]
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
    source = SourceTokens.of(original)
    answer = strip_chatter(censored, " ".join(source.norms), tags, normalise_text)
    items: list[str | Tag] = []
    for piece in parse_censored(answer, tags):
        if isinstance(piece, Tag):
            items.append(piece)
        else:
            items.extend(normalise_tokens(piece))
    matched = [0.0] * len(items)  # similarity of each literal answer token to the original
    covered = [False] * len(source.norms)

    placements: list[Placement] = []
    unplaced = 0
    regions = _regions(items, source.norms, matched, covered)
    for index, (c_lo, c_hi, o_lo, o_hi) in enumerate(regions):
        region_tags = [item for item in items[c_lo:c_hi] if isinstance(item, Tag)]
        if not region_tags:
            continue
        solved = solve_region(items, c_lo, c_hi, source.norms, o_lo, o_hi, matched, covered)
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
    placement: Placement, source: SourceTokens, covered: list[bool], *, after: bool
) -> Placement:
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
    return Placement(placement.tag, lo, hi, exact=False, score=placement.score / 2)


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
        if similarity >= MIN_WORD_SIMILARITY:
            matched[c_index] = similarity
            covered[o_index] = True


def _to_span(placement: Placement, source: SourceTokens) -> Span | None:
    """The placement's characters without edge punctuation and markup that belong to the
    literal text around it (`labeling.align.edges`)."""
    lo, hi = trim_punctuation(source.norms, placement.lo, placement.hi)
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
