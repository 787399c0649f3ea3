"""The one word tokenizer: Unicode-aware, offsets into the original string, and the
span <-> word mapping every word-level view shares."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import regex
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gen.core.records import Record, Span
from gen.export.base import ExportJob
from gen.export.formats.conll import TaggingSettings, conll_lines
from gen.text.nfc import move_range, nfc_text, same_text
from gen.text.words import (
    _BEYOND_LATIN,
    _JOINING,
    _SPECIAL,
    alphanumeric_words,
    word_spans,
    word_starts,
    words_in,
)

CLUSTER = regex.compile(r"\X")


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def nfd(text: str) -> str:
    return unicodedata.normalize("NFD", text)


def words_of(text: str) -> list[str]:
    return [text[start:end] for start, end in word_spans(text)]


#: Letters with and without accents, marks alone, CJK, Hangul, kana, emoji, punctuation
#: and spaces of several kinds: the characters where tokenizers go wrong.
TRICKY = st.sampled_from(
    list("aeEzZ09_-'’. ,;!?\n\t\u00a0\u3000")
    + list("éèñçÅÉößøł")
    + ["\u0301", "\u0308", "\u0327", "\u200d", "\u3099", "\ufe0f", "\u0344", "\u0f73"]
    + ["\u1100", "\u1161", "\u11a8", "\u0958", "\u2000", "\u0b47", "\u0b3e", "\u0915"]
    + list("我爱北京天安门。、한국어텍스트がカタｶﾞ")
    + ["👍", "🏽", "🇮", "🇹", "👨", "€", "≠", "½", "²", "\x1c"]
)
texts = st.one_of(st.text(TRICKY, max_size=40), st.text(max_size=40))


@settings(max_examples=300, deadline=None)
@given(texts)
@example("0\u0301\u2000")  # NFC changes the space after a decomposed word
def test_offsets_are_exact_ordered_and_never_whitespace(text: str) -> None:
    words = word_spans(text)
    previous_end = 0
    for start, end in words:
        assert previous_end <= start < end <= len(text)
        assert not any(char.isspace() for char in text[start:end])
        previous_end = end


@settings(max_examples=300, deadline=None)
@given(texts)
def test_words_cover_every_visible_character(text: str) -> None:
    text = nfc(text)
    covered = [False] * len(text)
    for start, end in word_spans(text):
        covered[start:end] = [True] * (end - start)
    for cluster in CLUSTER.finditer(text):
        first = cluster.group()[0]
        # Left out: whitespace, and marks with no letter to sit on (after a space or
        # at the very start), which Unicode groups with the space.
        left_out = first.isspace() or unicodedata.category(first).startswith("M")
        for index in range(*cluster.span()):
            assert covered[index] != left_out, (cluster.group(), text)


@settings(max_examples=300, deadline=None)
@given(texts)
def test_nfc_and_nfd_give_the_same_words(text: str) -> None:
    composed, decomposed = nfc(text), nfd(text)
    assert len(word_spans(composed)) == len(word_spans(decomposed))
    assert [nfc(word) for word in words_of(decomposed)] == words_of(composed)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=30))
def test_texts_without_trigger_characters_have_single_character_clusters(text: str) -> None:
    """The plain paths (one `re` over characters) are only taken where they are exact."""
    if _JOINING.search(nfc(text)):
        return
    for cluster in CLUSTER.findall(nfc(text)):
        assert len(cluster) == 1 or cluster.isspace()


def test_text_below_u0300_takes_the_plain_path() -> None:
    latin = "".join(map(chr, range(0x300)))
    assert not _BEYOND_LATIN.search(latin) and _BEYOND_LATIN.search("\u0300")
    assert not _SPECIAL.search(latin)  # no CJK, nothing that joins a cluster


@settings(max_examples=200, deadline=None)
@given(texts, st.data())
def test_words_in_is_the_overlap_test(text: str, data: st.DataObject) -> None:
    words = word_spans(text)
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    expected = [i for i, (a, b) in enumerate(words) if a < end and start < b]
    assert list(words_in(words, start, end)) == expected


@settings(max_examples=200, deadline=None)
@given(texts, st.data())
def test_ranges_move_between_nfc_and_nfd_without_losing_characters(
    text: str, data: st.DataObject
) -> None:
    decomposed, composed = nfd(text), nfc(text)
    assert same_text(decomposed, composed)
    start = data.draw(st.integers(0, len(decomposed)))
    end = data.draw(st.integers(start, len(decomposed)))
    moved = move_range(start, end, decomposed, composed)
    assert 0 <= moved[0] <= moved[1] <= len(composed)
    back = move_range(*moved, composed, decomposed)
    assert back[0] <= start and end <= back[1]


def test_decomposed_accents_stay_inside_their_word() -> None:
    text = nfd("José Nuñez, età 34, è d'accordo.")
    assert words_of(text) == [nfd(w) for w in ["José", "Nuñez", ",", "età", "34", ",", "è",
                                                "d'accordo", "."]]  # fmt: skip
    assert len(word_spans(text)) == len(word_spans(nfc(text))) == 9


def test_conll_never_writes_a_mark_as_a_word() -> None:
    text = nfd("José Nuñez has asthma.")
    record = Record("r", text, "health", "email", "en", "gold",
                    [Span(0, text.index(" "), "PERSON")])  # fmt: skip
    lines = conll_lines(ExportJob({"train": [record]}, Path(), TaggingSettings("bio")), record)
    assert lines[:4] == [
        '-DOCSTART-\tO\tid="r"\tO',  # the record id travels with the document (gen import)
        "",
        f"{nfd('José')}\tB-PERSON",
        f"{nfd('Nuñez')}\tO",
    ]
    assert all(not unicodedata.category(line[0]).startswith("M") for line in lines if line)


def test_chinese_japanese_and_korean_are_one_word_per_character() -> None:
    assert words_of("我爱北京天安门。") == list("我爱北京天安门。")
    assert words_of("東京に住んでいます") == list("東京に住んでいます")
    assert words_of("서울에 살아요") == ["서", "울", "에", "살", "아", "요"]
    assert len(word_spans(nfd("서울에 살아요"))) == 6  # jamo of one syllable stay together
    assert words_of("Anna lives in 北京, 2024.") == ["Anna", "lives", "in", "北", "京", ",",
                                                    "2024", "."]  # fmt: skip


def test_emoji_sequences_and_flags_are_one_word() -> None:
    assert words_of("ok 👨‍👩‍👧 👍🏽 🇮🇹!") == ["ok", "👨‍👩‍👧", "👍🏽", "🇮🇹", "!"]


def test_joined_words_and_a_lone_mark() -> None:
    assert words_of("e-mail l'anno 3.5 l’ora") == ["e-mail", "l'anno", "3.5", "l’ora"]
    assert words_of("\u0301abc \u0301 x") == ["abc", "x"]


def test_alphanumeric_words_leave_punctuation_symbols_and_blanks_out() -> None:
    text = "Dr. Bo, e-mail: bo@x.example 👍🏽 ____ 北京 – " + nfd("José") + "!"
    assert [text[a:b] for a, b in alphanumeric_words(text)] == [
        "Dr", "Bo", "e-mail", "bo", "x.example", "北", "京", nfd("José")
    ]  # fmt: skip


def test_offsets_stay_in_the_original_string() -> None:
    text = "Ad " + nfd("Ångström") + " e"
    [(_, _), (start, end), (_, _)] = word_spans(text)
    assert text[start:end] == nfd("Ångström")
    view = nfc_text(text)  # what eval compares; offsets move between the two exactly
    assert view.text == nfc(text) != text
    [(first, last)] = view.to_text([(start, end)])
    assert view.text[first:last] == "Ångström"
    assert view.to_original([(first, last)]) == [(start, end)]


def test_word_starts_puts_labels_on_first_sub_tokens() -> None:
    text = "unhealthy habits 北京"
    words = word_spans(text)  # unhealthy, habits, 北, 京
    tokens = [(0, 0), (0, 2), (2, 9), (10, 13), (13, 16), (17, 19), (0, 0)]
    assert word_starts(words, tokens) == [None, 0, None, 1, None, 2, None]
    # a token over "北京" starts 北; 京 has no token of its own
    assert word_starts(words, [(17, 19)]) == [2]
    assert word_starts(words, [(0, 9), (0, 9)]) == [0, None]


def test_a_mark_that_joins_nothing_is_left_out_in_either_normalization() -> None:
    """U+109A is a mark by category but joins no cluster: left out like any mark with
    nothing to sit on, after a precomposed letter and after a decomposed one alike."""
    assert word_spans("\u00c0\u109a") == [(0, 1)]
    assert word_spans("A\u0300\u109a") == [(0, 2)]
