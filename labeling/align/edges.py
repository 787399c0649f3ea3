"""The edges of a span: punctuation and markup that belong to the text around it.

One rule for every labeling source that finds passages (the censor aligner, planned facts,
the units of `sentences`), as the gold guideline has it: a span neither starts nor ends on
separator punctuation, on a quote or bracket that does not close inside it, or on HTML
markup the writer put around it (`<em>...</em><br>`).
"""

from __future__ import annotations

from collections.abc import Sequence

from labeling.align.tokens import SourceTokens

#: Punctuation at a span's edge belongs to the neighbouring literal text.
_EDGE_PUNCTUATION = frozenset(".,;:!?-'\"…")
_CLOSER_OF = {"(": ")", "[": "]", "{": "}", '"': '"', "'": "'"}
_OPENER_OF = {closer: opener for opener, closer in _CLOSER_OF.items()}
#: Tokens a tag may hold between its angle brackets (a name and a few attributes).
_TAG_TOKENS = 24


def _is_name(norm: str) -> bool:
    return norm[:1].isalpha()


def _tag_from(norms: Sequence[str], lo: int, hi: int) -> int | None:
    """The end of an HTML tag that starts at token `lo` (`<em>`, `</em>`, `<br/>`,
    `<a href="...">`), or None."""
    first = lo + 1 + (lo + 1 < hi and norms[lo + 1] == "/")
    if norms[lo] != "<" or first >= hi or not _is_name(norms[first]):
        return None
    for at in range(first + 1, min(hi, first + _TAG_TOKENS)):
        if norms[at] == ">":
            return at + 1
        if norms[at] == "<":
            return None
    return None


def _tag_to(norms: Sequence[str], lo: int, hi: int) -> int | None:
    """The start of an HTML tag that ends at token `hi - 1`, or None."""
    if norms[hi - 1] != ">":
        return None
    for at in range(hi - 2, max(lo, hi - 1 - _TAG_TOKENS) - 1, -1):
        if norms[at] == "<":
            return at if _tag_from(norms, at, hi) == hi else None
        if norms[at] == ">":
            return None
    return None


def trim_punctuation(norms: Sequence[str], lo: int, hi: int) -> tuple[int, int]:
    """Tokens [lo, hi) without the punctuation and markup at their edges that belong to the
    text around them (brackets and quotes stay when they close inside); lo == hi when
    nothing is left."""
    while lo < hi:
        tag_end = _tag_from(norms, lo, hi)
        if tag_end is not None:
            lo = tag_end
            continue
        closer = _CLOSER_OF.get(norms[lo])
        if closer is not None and closer in norms[lo + 1 : hi]:
            break
        if closer is None and norms[lo] not in _EDGE_PUNCTUATION and norms[lo] not in _OPENER_OF:
            break
        lo += 1
    while hi > lo:
        tag_start = _tag_to(norms, lo, hi)
        if tag_start is not None:
            hi = tag_start
            continue
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
    return lo, hi


def trim_passage(text: str, start: int, end: int) -> tuple[int, int] | None:
    """`text[start:end]` without the punctuation and markup at its edges
    (`trim_punctuation`), as character offsets; None when nothing is left."""
    source = SourceTokens.of(text[start:end])
    lo, hi = trim_punctuation(source.norms, 0, len(source.norms))
    if lo == hi:
        return None
    return start + source.matches[lo].start(), start + source.matches[hi - 1].end()
