"""hf-tokens labels sit on the words of gen.text.words, whatever the tokenizer's own words
are: sub-words, NFD accents, emoji bytes, Chinese characters, windows that cut a word."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest
from export_fixtures import byte_level_tokenizer

from gen.core.errors import UsageError
from gen.core.records import Record, Span
from gen.export.formats.hf_tokens import (
    IGNORED,
    cut_into_windows,
    load_tokenizer,
    tokenized_rows,
)
from gen.text.words import tag_names, word_spans, word_tags

tokenizers = pytest.importorskip("tokenizers")

LABELS = ["PERSON", "health"]
#: "Anna Rossi's e-mail says diabetes" in BERT word pieces (a fixed vocabulary).
PIECES = ["Anna", "Ros", "##si", "'", "s", "e", "-", "mail", "says", "dia", "##bet", "##es"]
TEXT = "Anna Rossi's e-mail says diabetes"
#: What a byte-level tokenizer is trained on: every text its tests encode.
BYTE_TEXTS = [
    "José Nuñez has asthma.",
    unicodedata.normalize("NFD", "José Nuñez has asthma."),
    "ok 👍🏽 🇮🇹 asthma",
    "我叫王小明，住在北京。",
]


def wordpiece() -> tokenizers.Tokenizer:
    """BERT-style tokenizer whose vocabulary cuts `TEXT` into `PIECES`."""
    from tokenizers import models, pre_tokenizers, processors

    vocab = {piece: index for index, piece in enumerate(["[UNK]", "[CLS]", "[SEP]", *PIECES])}
    tokenizer = tokenizers.Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.post_processor = processors.BertProcessing(("[SEP]", 2), ("[CLS]", 1))
    return tokenizer


@pytest.fixture(scope="module")
def byte_level(tmp_path_factory) -> tokenizers.Tokenizer:
    return load_tokenizer(byte_level_tokenizer(tmp_path_factory.mktemp("bpe"), BYTE_TEXTS))


def labeled(
    tokenizer: tokenizers.Tokenizer,
    text: str,
    spans: list[Span],
    scheme: str = "io",
    length: int = 64,
    stride: int = 0,
) -> list[list[tuple[str, str | None]]]:
    """Each window as (token's characters, its tag or None for -100), special tokens left out."""
    cut_into_windows(tokenizer, length, stride)
    tags = tag_names(LABELS, scheme)
    record = Record("r", text, "health", "letter", "en", "test", spans)
    rows = tokenized_rows(record, tokenizer, {tag: i for i, tag in enumerate(tags)}, scheme)
    first = tokenizer.encode(text)
    windows = [first, *first.overflowing]
    assert len(rows) == len(windows)
    return [
        [
            (text[start:end], None if label == IGNORED else tags[label])
            for (start, end), special, label in zip(
                window.offsets, window.special_tokens_mask, row["labels"], strict=True
            )
            if not special
        ]
        for window, row in zip(windows, rows, strict=True)
    ]


def read_back(windows: list[list[tuple[str, str | None]]]) -> list[str]:
    """The tags of the labeled tokens of the first window, in order."""
    return [tag for _, tag in windows[0] if tag is not None]


def test_a_word_of_several_pieces_is_labeled_on_its_first_piece_only() -> None:
    spans = [Span(0, 10, "PERSON", "gold"), Span(25, 33, "health", "gold")]
    [window] = labeled(wordpiece(), TEXT, spans)
    # The tokenizer's words are Anna Rossi ' s e - mail...; the project's are
    # Anna / Rossi's / e-mail / says / diabetes: one label each, on the first piece.
    assert window == [
        ("Anna", "I-PERSON"),
        ("Ros", "I-PERSON"),
        ("si", None),
        ("'", None),
        ("s", None),
        ("e", "O"),
        ("-", None),
        ("mail", None),
        ("says", "O"),
        ("dia", "I-health"),
        ("bet", None),
        ("es", None),
    ]
    assert read_back([window]) == word_tags(word_spans(TEXT), spans)


@pytest.mark.parametrize(
    ("span", "tags"),
    [
        (Span(0, 8, "PERSON", "gold"), ["I-PERSON", "I-PERSON", "O", "O", "O"]),  # "Anna Ros"
        (Span(30, 33, "health", "gold"), ["O", "O", "O", "O", "I-health"]),  # "tes"
        (Span(7, 10, "PERSON", "gold"), ["O", "I-PERSON", "O", "O", "O"]),  # "ssi"
    ],
)
def test_a_span_edge_inside_a_word_labels_the_whole_word(span: Span, tags: list[str]) -> None:
    """A span that ends or starts mid-word covers the word, as in CoNLL; the first piece
    carries it even when the span does not reach that piece ("dia" of dia|betes)."""
    assert read_back(labeled(wordpiece(), TEXT, [span])) == tags


def test_windows_that_cut_a_word_label_its_first_piece_in_each_window() -> None:
    spans = [Span(0, 10, "PERSON", "gold")]
    # two pieces per window (plus [CLS] and [SEP]), one shared with the next window
    windows = labeled(wordpiece(), TEXT, spans, "bio", length=4, stride=1)
    assert windows[:4] == [
        [("Anna", "B-PERSON"), ("Ros", "I-PERSON")],
        [("Ros", "B-PERSON"), ("si", None)],
        [("si", "B-PERSON"), ("'", None)],  # the window opens inside Rossi's
        [("'", "B-PERSON"), ("s", None)],
    ]
    assert windows[4] == [("s", "B-PERSON"), ("e", "O")]
    assert windows[5] == [("e", "O"), ("-", None)]
    # In a window, its first piece is the first piece of the word it is in: always labeled.
    assert all(window[0][1] is not None for window in windows)


def test_nfd_accents_are_no_words_of_their_own(byte_level) -> None:
    nfc = "José Nuñez has asthma."
    nfd = unicodedata.normalize("NFD", nfc)
    spans = [Span(0, 10, "PERSON", "gold"), Span(15, 21, "health", "gold")]
    nfd_spans = [Span(0, 12, "PERSON", "gold"), Span(17, 23, "health", "gold")]
    [window] = labeled(byte_level, nfd, nfd_spans)
    marks = [tag for piece, tag in window if unicodedata.combining(piece[0])]
    assert len(marks) >= 2 and set(marks) == {None}  # the tokenizer cuts the accents off
    expected = ["I-PERSON", "I-PERSON", "O", "I-health", "O"]
    assert read_back([window]) == expected == word_tags(word_spans(nfd), nfd_spans)
    assert read_back(labeled(byte_level, nfc, spans)) == expected


def test_an_emoji_of_several_byte_tokens_is_one_word(byte_level) -> None:
    text = "ok 👍🏽 🇮🇹 asthma"
    spans = [Span(text.index("asthma"), len(text), "health", "gold")]
    [window] = labeled(byte_level, text, spans)
    assert len([piece for piece, _ in window if piece in "👍🏽🇮🇹"]) > 3  # bytes of emoji
    assert read_back([window]) == ["O", "O", "O", "I-health"]


def test_chinese_characters_are_one_word_each(byte_level) -> None:
    """The tokenizer's word is the whole clause (its first token is "我": O); labeled on
    characters, the name inside the clause keeps its three tags. A token straddling two
    characters ("叫王") starts the second: the first has a token of its own before it."""
    text = "我叫王小明，住在北京。"
    spans = [Span(2, 5, "PERSON", "gold")]
    [window] = labeled(byte_level, text, spans)
    assert read_back([window]) == word_tags(word_spans(text), spans)
    assert read_back([window]).count("I-PERSON") == 3


def test_a_tokenizer_file_loads_and_refuses_a_stride_it_cannot_keep(tmp_path: Path) -> None:
    tokenizer = wordpiece()
    tokenizer.save(str(tmp_path / "tokenizer.json"))
    with pytest.raises(UsageError, match="--stride 2 must be smaller than --length 4"):
        cut_into_windows(load_tokenizer(tmp_path), 4, 2)
