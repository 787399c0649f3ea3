"""Scheme checks a format's checker runs on the files it just wrote.

A tag sequence is one sentence (CoNLL) or one window (hf-tokens). In BIO an
entity starts with `B-`; an `I-X` at the start of a sequence, after `O` or
after another label is an entity with no beginning, which strict IOB2 readers
(seqeval's strict mode, most CRF trainers) drop or misread.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from gen.core.errors import InvalidSpanError
from gen.core.records import Span, check_spans
from gen.text.words import OUTSIDE

#: How many problems a checker lists before it only counts them.
LISTED_PROBLEMS = 5


def headless_inside_tags(tags: Sequence[str]) -> list[int]:
    """Positions of `I-X` tags not preceded by `B-X` or `I-X` (BIO only)."""
    found = []
    previous = OUTSIDE
    for index, tag in enumerate(tags):
        if tag.startswith("I-") and previous[2:] != tag[2:]:
            found.append(index)
        previous = tag
    return found


def unknown_tags(tags: Iterable[str], known: set[str]) -> set[str]:
    return {tag for tag in tags if tag not in known}


def span_problems(record_id: str, text: str, spans: Sequence[Span]) -> list[str]:
    """Why `spans` do not fit `text` (gen.core.records.check_spans), or nothing."""
    try:
        check_spans(text, spans, record_id=record_id)
    except InvalidSpanError as exc:
        return [str(exc)]
    return []


def summarize(problems: Sequence[str]) -> str:
    """The first problems and how many more there are, on one line."""
    shown = "; ".join(problems[:LISTED_PROBLEMS])
    more = len(problems) - LISTED_PROBLEMS
    return f"{shown} (and {more} more)" if more > 0 else shown
