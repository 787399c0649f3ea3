"""The one span-overlap test (`Span.overlap`, `overlapping_pair`) and its users."""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gen.core.errors import InvalidSpanError
from gen.core.records import Span, check_spans, overlapping_pair

ranges = st.tuples(st.integers(0, 30), st.integers(1, 10)).map(lambda r: (r[0], r[0] + r[1]))


@given(ranges, ranges)
def test_overlap_counts_shared_characters(first: tuple[int, int], second: tuple[int, int]) -> None:
    shared = set(range(*first)) & set(range(*second))
    assert Span(*first, "x").overlap(*second) == len(shared)


@given(st.lists(ranges, max_size=8))
def test_overlapping_pair_finds_an_overlap_whenever_there_is_one(
    bounds: list[tuple[int, int]],
) -> None:
    spans = [Span(start, end, "x") for start, end in bounds]
    pair = overlapping_pair(spans)
    any_overlap = any(a.overlap(b.start, b.end) for a, b in combinations(spans, 2))
    assert (pair is not None) == any_overlap
    if pair:
        left, right = pair
        assert left.overlap(right.start, right.end) > 0


def test_touching_spans_do_not_overlap() -> None:
    assert Span(0, 4, "x").overlap(4, 9) == 0
    assert overlapping_pair([Span(4, 9, "x"), Span(0, 4, "x")]) is None


def test_check_spans_names_the_overlapping_pair_of_one_source() -> None:
    text = "Anna Rossi has asthma"
    spans = [Span(0, 10, "PERSON", "faker"), Span(5, 21, "health", "faker")]
    with pytest.raises(InvalidSpanError, match=r"faker spans 0-10 \(PERSON\) and 5-21"):
        check_spans(text, spans, record_id="d")
    check_spans(text, [spans[0], Span(5, 21, "health", "llm_censor")])  # across sources: fine
