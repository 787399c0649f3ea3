"""Offsets between code points and UTF-16 units, and re-anchoring on the stored text."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gen.review.offsets import AnchorError, OffsetMap, anchor, anchor_ranges

TEXT = "Ciao 😀😀 Zoë! 李小龍 🌱 votes."

#: Letters, accents, CJK and astral characters (emoji, rare ideographs).
mixed_text = st.text(
    alphabet=st.sampled_from([*"ab zë李小", "😀", "🌱", "\U00020000", "\n"]), max_size=40
)


def utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


@given(mixed_text)
def test_conversion_matches_javascript_lengths_and_round_trips(text: str) -> None:
    offsets = OffsetMap.of(text)
    assert offsets.utf16_length == utf16(text)
    for index in range(len(text) + 1):
        unit = offsets.to_utf16(index)
        assert unit == utf16(text[:index])
        assert offsets.from_utf16(unit) == index


def test_a_unit_inside_a_surrogate_pair_or_outside_has_no_code_point() -> None:
    offsets = OffsetMap.of("a😀b")
    assert [offsets.from_utf16(u) for u in range(5)] == [0, 1, None, 2, 3]
    assert offsets.from_utf16(-1) is None and offsets.from_utf16(5) is None
    with pytest.raises(ValueError):
        offsets.to_utf16(4)


@pytest.mark.parametrize("unit", ["codepoint", "utf16"])
def test_spans_are_anchored_whichever_unit_the_tool_used(unit: str) -> None:
    offsets = OffsetMap.of(TEXT)
    for quoted in ("Zoë", "李小龍", "votes", "🌱"):
        start = TEXT.index(quoted)
        end = start + len(quoted)
        stored = (
            (offsets.to_utf16(start), offsets.to_utf16(end)) if unit == "utf16" else (start, end)
        )
        # Expecting the other unit still finds it: the stored text decides.
        for expected in ("codepoint", "utf16"):
            assert anchor(offsets, *stored, quoted, expected) == (start, end)


def test_a_span_whose_text_is_elsewhere_is_refused_with_its_offsets_and_text() -> None:
    offsets = OffsetMap.of(TEXT)
    start = TEXT.index("votes")
    with pytest.raises(AnchorError, match=r"span 20-25 'votes' cannot be re-anchored.*'otes.'"):
        anchor(offsets, start + 1, start + 6, "votes", "codepoint")
    with pytest.raises(AnchorError, match="outside the text"):
        anchor(offsets, 100, 105, "votes", "codepoint")
    with pytest.raises(AnchorError, match="no stored text"):
        anchor(offsets, start, start + 5, None, "codepoint")


@pytest.mark.parametrize("unit", ["codepoint", "utf16"])
def test_a_span_of_several_ranges_is_anchored_on_its_joined_text(unit: str) -> None:
    offsets = OffsetMap.of(TEXT)
    ranges = [(TEXT.index("Zoë"), TEXT.index("Zoë") + 3), (TEXT.index("🌱"), TEXT.index("🌱") + 1)]
    stored = [tuple(offsets.to_unit(i, unit) for i in pair) for pair in ranges]
    assert anchor_ranges(offsets, stored, "Zoë 🌱", "codepoint") == ranges
    assert anchor_ranges(offsets, stored, "Zoë 🌱", "utf16") == ranges
    assert anchor_ranges(offsets, stored, "Zoë|🌱", unit) is None
    assert anchor_ranges(offsets, [(0, 4), (90, 95)], "Ciao x", unit) is None
