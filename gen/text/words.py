"""Words with character offsets, and the conversion between spans and word tags.

Every word-level view of a record (CoNLL, sentence chunks, token statistics)
goes through these functions, so that they all agree on what a word is and on
which words a span covers.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence

from gen.core.records import Span

#: A word is a run of letters/digits (joined by inner hyphens, apostrophes or
#: periods, as in "e-mail", "l'anno", "3.5"), or a single other visible character.
WORD_PATTERN = re.compile(r"\w+(?:[-'’.]\w+)*|[^\w\s]")

OUTSIDE = "O"
TAG_SCHEMES = ("io", "bio")


def word_spans(text: str) -> list[tuple[int, int]]:
    """Character ranges of the words of `text`, in order."""
    return [match.span() for match in WORD_PATTERN.finditer(text)]


def word_owners(words: Sequence[tuple[int, int]], spans: Sequence[Span]) -> list[Span | None]:
    """The span each word overlaps (None outside every span).

    A word cut by a span edge belongs to the span, so a span always covers whole
    words; if two spans touch the same word, the earlier one keeps it.
    """
    owners: list[Span | None] = [None] * len(words)
    ends = [end for _, end in words]
    for span in sorted(spans, key=lambda s: (s.start, s.end)):
        index = bisect.bisect_right(ends, span.start)
        while index < len(words) and words[index][0] < span.end:
            if owners[index] is None:
                owners[index] = span
            index += 1
    return owners


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
