"""The inline-tag parser: tags out, exact spans in, every malformation repaired or flagged."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st
from label_fakes import document
from label_fakes import labeler as make_labeler

from gen.core.packs import load_language_pack
from gen.core.records import Span, check_spans
from labeling.strategies.inline import InlineLabels, inline_meta
from labeling.strategies.inline_tags import InlineParse, parse_inline
from labeling.strategies.outcome import FLAGGED, OK, SKIPPED

NAMES = {"health": "health", "crime": "judicial", "religion": "philosophy", "salute": "health"}


def parse(tagged: str, language: str = "en") -> InlineParse:
    parsed = parse_inline(tagged, NAMES, language)
    check_spans(parsed.text, parsed.spans)
    assert "<" not in parsed.text, "every tag is cut out"
    return parsed


def found(parsed: InlineParse) -> list[tuple[str, str]]:
    return [(parsed.text[s.start : s.end], s.label) for s in parsed.spans]


def test_well_formed_tags_become_exact_spans() -> None:
    parsed = parse("Dear Ann, <health>I have asthma</health> and <crime>a fine</crime>.")
    assert parsed.text == "Dear Ann, I have asthma and a fine."
    assert found(parsed) == [("I have asthma", "health"), ("a fine", "judicial")]
    assert {s.source for s in parsed.spans} == {"llm_inline"}
    assert parsed.repairs == parsed.problems == parsed.flags == []


def test_tags_at_the_start_and_the_end_of_the_text() -> None:
    parsed = parse("<religion>He is a Quaker.</religion> He sings. <health>He is deaf.</health>")
    assert parsed.text == "He is a Quaker. He sings. He is deaf."
    assert found(parsed) == [("He is a Quaker.", "philosophy"), ("He is deaf.", "health")]


def test_non_ascii_text_and_tag_names() -> None:
    text = "Lei è <salute>diabetica dal 2015</salute>; José Nuñez <health>ha l'asma</health> 😷."
    parsed = parse(text, "it")
    assert parsed.text == "Lei è diabetica dal 2015; José Nuñez ha l'asma 😷."
    assert found(parsed) == [("diabetica dal 2015", "health"), ("ha l'asma", "health")]
    accented = parse_inline("È <Salutè>malata</SALUTE>.", NAMES, "it")
    assert found(accented) == [("malata", "health")] and not accented.problems


def test_case_spacing_and_separators_in_tag_names_are_repaired() -> None:
    parsed = parse("She < Health >has asthma</ HEALTH > today.")
    assert found(parsed) == [("has asthma", "health")]
    assert parsed.repairs and not parsed.problems


def test_whitespace_inside_the_tags_is_left_out_of_the_span() -> None:
    parsed = parse("She <health>  has asthma \n</health>today.")
    assert found(parsed) == [("has asthma", "health")]


def test_unclosed_tag_is_closed_at_the_end_of_its_sentence() -> None:
    parsed = parse("Report. She <health>has asthma since 2010. She sings.")
    assert found(parsed) == [("has asthma since 2010", "health")]
    assert parsed.repairs == ["closed <health> at the end of its sentence"] and not parsed.flags


def test_tag_left_open_by_a_cut_off_document_ends_with_the_text() -> None:
    parsed = parse("She sings. <health>She has asthma and")
    assert found(parsed) == [("She has asthma and", "health")]


def test_closing_tag_without_opening_starts_at_its_sentence() -> None:
    parsed = parse("Report. She has asthma</health>. She sings.")
    assert found(parsed) == [("She has asthma", "health")]
    assert parsed.repairs == ["opened </health> at the start of its sentence"]


def test_unclosed_tag_with_another_tag_in_its_sentence_is_flagged() -> None:
    parsed = parse("She <health>has asthma and <crime>a fine</crime>. She sings.")
    assert found(parsed) == [("a fine", "judicial")]
    assert parsed.flags == ["inline_unclosed_tag"]


def test_unopened_tag_with_another_tag_before_it_in_its_sentence_is_flagged() -> None:
    parsed = parse("She <crime>was fined</crime> and has asthma</health>. Fine.")
    assert found(parsed) == [("was fined", "judicial")]
    assert parsed.flags == ["inline_unopened_tag"]


def test_mismatched_closing_tag_is_flagged_and_gives_no_span() -> None:
    parsed = parse("She <health>was fined</crime>. He <religion>prays</religion>.")
    assert parsed.text == "She was fined. He prays."
    assert found(parsed) == [("prays", "philosophy")]
    assert parsed.flags == ["inline_mismatched_tag"]
    assert parsed.problems == ["mismatched_tag: <health> closed by </crime>"]


def test_unknown_tags_are_cut_out_and_flagged() -> None:
    parsed = parse("See <b>bold</b> and <diagnosis>flu</diagnosis>; <health data>x</health data>")
    assert parsed.text == "See bold and flu; x"
    assert parsed.spans == []
    assert parsed.flags == ["inline_unknown_tag"]
    assert len(parsed.problems) == 6


def test_nested_tags_of_one_kind_are_one_passage() -> None:
    parsed = parse("<health>She has <health>asthma</health> and a cold</health>.")
    assert found(parsed) == [("She has asthma and a cold", "health")]
    assert parsed.repairs and not parsed.problems


def test_a_passage_inside_another_splits_the_outer_one() -> None:
    parsed = parse("<health>Depressed since <crime>his arrest</crime> in May</health>.")
    assert found(parsed) == [
        ("Depressed since", "health"),
        ("his arrest", "judicial"),
        ("in May", "health"),
    ]
    assert not parsed.problems


def test_crossed_tags_close_the_inner_one_at_its_sentence_end() -> None:
    parsed = parse("<health>He is ill <crime>and jailed</health>. He reads.")
    assert found(parsed) == [("He is ill", "health"), ("and jailed", "judicial")]
    assert not parsed.problems


def test_empty_and_self_closing_tags_are_dropped() -> None:
    parsed = parse("She <health></health>sings<health/>. Then <crime>")
    assert parsed.text == "She sings. Then "
    assert parsed.spans == [] and not parsed.problems and len(parsed.repairs) == 2


def test_text_without_tags_is_unchanged_and_angle_brackets_in_prose_survive() -> None:
    text = "Values 3 < 5 and 7 > 2 hold.\nA -> B"
    parsed = parse_inline(text, NAMES)
    assert parsed.text == text and parsed.spans == [] and not parsed.problems


@given(
    st.lists(
        st.tuples(
            st.text(alphabet=st.characters(blacklist_characters="<>"), max_size=12),
            st.sampled_from(["", "<health>", "</health>", "<crime>", "</crime>", "<x>", "<b/>"]),
        ),
        max_size=12,
    )
)
def test_any_tag_soup_gives_valid_spans_of_the_clean_text(pieces: list[tuple[str, str]]) -> None:
    tagged = "".join(text + tag for text, tag in pieces)
    parsed = parse_inline(tagged, NAMES)
    assert parsed.text == "".join(text for text, _ in pieces)
    check_spans(parsed.text, parsed.spans)


# -- the language pack's tags and the inline strategy -------------------------------------


@pytest.mark.parametrize(
    ("language", "tag"),
    [("en", "health"), ("it", "salute"), ("de", "gesundheit"), ("es", "salud"), ("fr", "santé")],
)
def test_pack_tags_and_instruction(language: str, tag: str) -> None:
    inline = InlineLabels.of(load_language_pack(language))
    assert f"<{tag}>...</{tag}>" in inline.instruction
    parsed = inline.parse(f"A <{tag}>B</{tag}> <health>C</health> <judicial>D</judicial>")
    assert [s.label for s in parsed.spans] == ["health", "health", "judicial"]


def test_inline_strategy_reads_back_what_the_writer_tagged() -> None:
    inline = make_labeler("inline", None)
    tagged = "Anna <health>has asthma</health>. <crime>Fined in 2019</crime>."
    parsed = parse(tagged)
    written = dataclasses.replace(
        document("d1", parsed.text, "health"),
        spans=[*parsed.spans, Span(0, 4, "PERSON", "faker")],
        meta={"inline": inline_meta(tagged, parsed)},
    )
    outcome = inline.label(written)
    assert outcome.status == OK and outcome.spans == parsed.spans

    broken = parse("Anna <health>has asthma</crime>.")
    flagged = inline.label(
        dataclasses.replace(
            document("d2", broken.text, "health"), meta={"inline": inline_meta("raw", broken)}
        )
    )
    assert flagged.status == FLAGGED and flagged.flag == "inline_tags_unresolved"
    assert "mismatched_tag" in flagged.detail and flagged.answers == ["raw"]

    plain = inline.label(document("d3", "No tags here.", "health"))
    assert plain.status == SKIPPED and plain.reason == "not_written_inline"
