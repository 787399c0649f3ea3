"""Token offsets from a tokenizer's pieces: exact for any text, also where the pieces do
not spell the text again (gen.text.token_offsets)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gen.text.byte_alignment import MAX_EDITS, WINDOW, matching_blocks
from gen.text.token_offsets import TextNotMapped, token_offsets

HEADING = "CIVIL PARTNERSHIP" + " " * 34 + "Entry No. 0412\nName: Zoë Ångström 😀"


def spans(pieces: list[str], text: str) -> list[str]:
    """The text each piece's token covers, after checking the ranges tile the text."""
    offsets = token_offsets([piece.encode() for piece in pieces], text)
    assert len(offsets) == len(pieces)
    bounds = [0, *(int(end) for _, end in offsets)]
    assert [int(start) for start, _ in offsets] == bounds[:-1]  # no gap, no overlap
    assert bounds[-1] == len(text) and bounds == sorted(bounds)
    return [text[start:end] for start, end in offsets]


def test_pieces_that_spell_the_text_give_their_own_ranges() -> None:
    pieces = ["CIVIL", " PART", "NERSHIP", " " * 34, "Entry", " No", ".", " 0412", "\n"]
    pieces += ["Name", ":", " Zo", "ë", " Å", "ngstr", "öm", " ", "😀"]
    assert spans(pieces, HEADING) == pieces


def test_a_run_of_spaces_read_as_nothing_joins_the_token_before() -> None:
    # llama-cpp-python's detokenize gives b"" for a piece longer than 32 bytes (Qwen2.5 has
    # one token for 33 spaces): 33 of the 34 spaces are spelled by no piece.
    pieces = ["CIVIL", " PART", "NERSHIP", " ", "", "Entry", " No", ".", " 0412", "\n", "Name"]
    pieces += [":", " Zoë", " Ångström", " 😀"]
    found = spans(pieces, HEADING)
    assert found[:6] == ["CIVIL", " PART", "NERSHIP", " " * 34, "", "Entry"]
    assert found[6:] == pieces[6:]


def test_bytes_of_a_character_split_over_tokens_cover_it_whole() -> None:
    emoji = "😀".encode()
    pieces = [b"Hi ", emoji[:2], emoji[2:], b"!"]
    offsets = token_offsets(pieces, "Hi 😀!")
    assert offsets.tolist() == [[0, 3], [3, 4], [3, 4], [4, 5]]


@pytest.mark.parametrize(
    ("pieces", "text", "expected"),
    [
        # a space added before the first word (SentencePiece's prefix space)
        ([" Hello", " world"], "Hello world", ["Hello", " world"]),
        # a no-break space turned into a space
        (["No", ".", " 0412"], "No.\u00a00412", ["No", ".", "\u00a00412"]),
        # CRLF read as LF, a tab as a space, a control character dropped
        (["a", "\n", "b", " c", "d"], "a\r\nb\tc\x07d", ["a", "\r\n", "b", "\tc\x07", "d"]),
        # a text the tokenizer lowercases
        (["civil", " partnership"], "CIVIL PARTNERSHIP", ["CIVIL", " PARTNERSHIP"]),
        # NFC against NFD: é as one character, the text has e + combining accent
        (["caf", "é", " ok"], "cafe\u0301 ok", ["caf", "e\u0301", " ok"]),
        # a whole piece the text lacks gets an empty range
        (["<s>", "Hi"], "Hi", ["", "Hi"]),
        # text at both ends that no piece spells goes to the first and last tokens
        (["Hi", " there"], "\x00\x00Hi there\x1b", ["\x00\x00Hi", " there\x1b"]),
    ],
)
def test_pieces_that_differ_from_the_text_still_map_to_it(
    pieces: list[str], text: str, expected: list[str]
) -> None:
    assert spans(pieces, text) == expected


def test_no_pieces_and_an_empty_text() -> None:
    assert token_offsets([], "").shape == (0, 2)
    assert spans(["x"], "") == [""]


def test_pieces_that_differ_everywhere_are_refused() -> None:
    with pytest.raises(TextNotMapped, match="differ too much from character 5 on"):
        token_offsets([b"Hello", b"x" * WINDOW], "Hello" + "y" * WINDOW)
    with pytest.raises(TextNotMapped, match="from character 0 on"):
        token_offsets([b"z" * WINDOW], "y" * (WINDOW + 1))
    # Short enough to search, but too many differences between two sure points.
    with pytest.raises(TextNotMapped, match="from character 0 on"):
        token_offsets([b"a" * MAX_EDITS], "b" * MAX_EDITS)


def test_close_differences_are_aligned_on_the_fewest_edits() -> None:
    # The nearest place where "Entry" resumes is the wrong one: the first piece's "Entry"
    # is the text's first, not its second.
    assert matching_blocks(b"EntryEntryEntry ", b"Entry Entry Entry ") == [
        (0, 0, 5), (5, 6, 5), (10, 12, 6), (16, 18, 0)
    ]  # fmt: skip
    assert matching_blocks(b"", b"abc") == [(0, 3, 0)]
    assert matching_blocks(b"same", b"same") == [(0, 0, 4), (4, 4, 0)]


def test_a_long_form_padded_with_spaces_maps_quickly() -> None:
    lines = [
        f"Entry No. {n:04d}" + " " * (20 + n % 30) + f"Name:\u00a0Zoë {n} 😀\r\n"
        for n in range(600)
    ]
    text = "".join(lines)
    pieces = [
        piece
        for line in lines
        for piece in line.replace("\u00a0", " ").replace("\r\n", "\n").split(" ")
        if piece
    ]
    pieces = [piece + " " for piece in pieces]
    # and a word the tokenizer changed now and then (a difference that is not blanks)
    read = [piece.lower() if index % 40 == 0 else piece for index, piece in enumerate(pieces)]
    found = spans(read, text)
    assert [piece.strip() for piece in found] == [piece.strip() for piece in pieces]


WHITESPACE = st.sampled_from([" ", "  ", " " * 40, "\t", "\r\n", "\n", "\u00a0", "\x07"])
WORDS = st.sampled_from(["Entry", "No.", "0412", "Zoë", "😀", "東京", "ok"])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(WORDS, WHITESPACE), min_size=1, max_size=30), st.data())
def test_any_whitespace_a_tokenizer_changes_leaves_the_words_exact(parts, data) -> None:
    """Pieces that lose, shorten or replace any of the whitespace: each word's piece still
    covers that word, and at most the whitespace after it that no piece spells."""
    text = "".join(word + space for word, space in parts)
    pieces = []
    for word, space in parts:
        read = data.draw(st.sampled_from([space, "", " ", space[:1]]))
        pieces += [word, read]
    found = spans(pieces, text)
    assert [piece.rstrip(" \t\r\n\u00a0\x07") for piece in found[::2]] == [w for w, _ in parts]


def _lcs_length(a: bytes, b: bytes) -> int:
    row = [0] * (len(b) + 1)
    for x in a:
        previous, row = row, [0]
        for index, y in enumerate(b):
            row.append(previous[index] + 1 if x == y else max(previous[index + 1], row[-1]))
    return row[-1]


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=40).map(lambda s: bytes(97 + c % 3 for c in s)),
       st.binary(max_size=40).map(lambda s: bytes(97 + c % 3 for c in s)))  # fmt: skip
def test_the_alignment_is_a_longest_common_subsequence(a: bytes, b: bytes) -> None:
    blocks = matching_blocks(a, b)
    assert blocks[-1] == (len(a), len(b), 0)
    end_a = end_b = 0
    for i, j, size in blocks[:-1]:
        assert size > 0 and i >= end_a and j >= end_b and a[i : i + size] == b[j : j + size]
        end_a, end_b = i + size, j + size
    assert sum(size for _, _, size in blocks) == _lcs_length(a, b)
