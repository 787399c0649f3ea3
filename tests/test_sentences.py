import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from gen.core.records import Span
from gen.text.sentences import keep_spans_whole, split_sentences
from gen.text.words import word_spans


def sentences(text: str, language: str = "en") -> list[str]:
    return [text[start:end] for start, end in split_sentences(text, language)]


def test_italian_abbreviations_do_not_split() -> None:
    text = "Il Dott. Rossi ha visitato il sig. Bianchi. Diagnosi confermata."
    assert sentences(text, "it") == [
        "Il Dott. Rossi ha visitato il sig. Bianchi.",
        "Diagnosi confermata.",
    ]


def test_english_abbreviations_do_not_split() -> None:
    text = "Dr. Smith saw Mr. Brown, e.g. on Monday. He has asthma!  Next visit soon."
    assert sentences(text, "en") == [
        "Dr. Smith saw Mr. Brown, e.g. on Monday.",
        "He has asthma!",
        "Next visit soon.",
    ]


def test_newlines_split_and_blank_lines_vanish() -> None:
    text = "Patient: Anna Verdi\n\n  Diagnosis: type 2 diabetes\nTherapy: insulin"
    assert sentences(text) == [
        "Patient: Anna Verdi",
        "Diagnosis: type 2 diabetes",
        "Therapy: insulin",
    ]


def test_repeated_sentences_keep_their_own_offsets() -> None:
    text = "Take one pill. Take one pill. Take one pill."
    assert split_sentences(text) == [(0, 14), (15, 29), (30, 44)]


def test_unknown_language_falls_back_to_english_rules() -> None:
    assert sentences("Dr. Who. Yes.", "xx") == ["Dr. Who.", "Yes."]


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab .!?\n\t,Dr.èü"), max_size=80))
def test_ranges_are_ordered_trimmed_and_cover_every_word(text: str) -> None:
    ranges = split_sentences(text)
    covered = set()
    previous_end = 0
    for start, end in ranges:
        assert previous_end <= start < end <= len(text)
        assert not text[start].isspace() and not text[end - 1].isspace()
        covered.update(range(start, end))
        previous_end = end
    assert all(i in covered for i, ch in enumerate(text) if not ch.isspace())


# -- abbreviations from the language packs, spans kept whole ---------------------------

ADDRESS = "Ship it to 5899 Jared Drive Apt. 618, South Richard, IA 16926. Thanks!"


def test_pack_abbreviations_keep_an_address_in_one_sentence() -> None:
    assert sentences(ADDRESS, "en") == [
        "Ship it to 5899 Jared Drive Apt. 618, South Richard, IA 16926.",
        "Thanks!",
    ]
    without = [ADDRESS[a:b] for a, b in split_sentences(ADDRESS, "en", abbreviations=())]
    assert without[0].endswith("Apt."), "pysbd alone cuts after Apt. (why the pack lists it)"
    assert sentences("Abito in V.le Europa 4, int. 3. Ciao.", "it") == [
        "Abito in V.le Europa 4, int. 3.",
        "Ciao.",
    ]


def test_french_abbreviations_keep_titles_and_addresses_whole() -> None:
    text = (
        "Le Dr. Martin reçoit au 12, av. Foch, bât. B, esc. 2. "
        "Il a été condamné pour vol. Il a fait appel."
    )
    assert sentences(text, "fr") == [
        "Le Dr. Martin reçoit au 12, av. Foch, bât. B, esc. 2.",
        "Il a été condamné pour vol.",  # "vol" (theft) ends a sentence: not in the list
        "Il a fait appel.",
    ]
    without = [text[a:b] for a, b in split_sentences(text, "fr", abbreviations=())]
    assert without[0] == "Le Dr.", "pysbd alone cuts after Dr. (why the pack lists it)"


def test_abbreviations_match_whole_words_in_any_case() -> None:
    text = "He moved to Elm st. yesterday. The flat is tiny."
    assert sentences(text, "en") == ["He moved to Elm st. yesterday.", "The flat is tiny."]
    text = "He came 1st. Then he left."  # "st." inside a word is no abbreviation
    assert split_sentences(text, "en", abbreviations=["St."]) == [(0, 12), (13, 26)]


def test_a_cut_inside_an_abbreviation_is_undone() -> None:
    text = "Vivo in X.yz Garibaldi 3. Ciao."
    assert [text[a:b] for a, b in split_sentences(text, "it", abbreviations=["X.yz"])] == [
        "Vivo in X.yz Garibaldi 3.",
        "Ciao.",
    ]


def test_a_newline_still_ends_a_sentence_after_an_abbreviation() -> None:
    assert sentences("Apt.\n618 Main", "en") == ["Apt.", "618 Main"]


def test_keep_spans_whole_joins_only_where_a_span_crosses() -> None:
    text = "He left. Then came back.Really! Fine."
    ranges = split_sentences(text)
    assert [text[a:b] for a, b in ranges] == ["He left.", "Then came back.Really!", "Fine."]
    across = Span(text.index("left"), text.index("Then") + 4, "X")
    assert keep_spans_whole(ranges, [across]) == [(0, 31), (32, 37)]
    inside = Span(text.index("Then"), text.index("Then") + 4, "X")
    assert keep_spans_whole(ranges, [inside]) == ranges
    touching = Span(text.index("Fine"), text.index("Fine") + 4, "X")
    assert keep_spans_whole(ranges, [touching], word_spans(text)) == ranges


@settings(max_examples=150, deadline=None)
@given(
    st.text(alphabet=st.sampled_from("ab .!?\nApt,"), min_size=1, max_size=60),
    st.lists(st.tuples(st.integers(0, 59), st.integers(1, 20)), max_size=4),
)
def test_no_span_crosses_a_kept_boundary(text: str, raw: list[tuple[int, int]]) -> None:
    spans = [Span(s, min(s + n, len(text)), "X") for s, n in raw if s < len(text)]
    words = word_spans(text)
    ranges = keep_spans_whole(split_sentences(text), spans, words)
    for (_, end), (start, _) in itertools.pairwise(ranges):
        for span in spans:
            assert not (span.start < end and start < span.end)
