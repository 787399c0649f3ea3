from hypothesis import given, settings
from hypothesis import strategies as st

from gen.text.sentences import split_sentences


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
