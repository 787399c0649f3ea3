"""Spans into tags and back: pieces, tags written and read, each source span paired with
its passage, lost tags found again, invented and repeated ones counted (no model)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import pytest
from translate_fakes import marked, translate_words

from gen.core.packs import load_language_pack
from gen.core.records import Span
from gen.translate.carry import DUPLICATE, FOUND, INVENTED, NOT_FOUND, TAG, Recovery, carry_spans
from gen.translate.pieces import Piece, split_pieces, tag_piece
from gen.translate.tags import UNCLOSED, UNKNOWN, UNOPENED, label_resolver, markup, read_tags
from labeling.planned import FactFinder

KEEP = {"PERSON", "EMAIL", "PHONE"}


def recovery(phrase: dict[str, str] | None = None) -> Recovery:
    pack = load_language_pack("it")
    return Recovery(
        keeps=lambda label: label in KEEP,
        finder=FactFinder(pack.facts.finder, "it"),
        phrase=lambda span: (phrase or {}).get(span.label),
    )


def whole_piece(text: str, spans: Sequence[Span]) -> Piece:
    return Piece(0, len(text), sorted(spans, key=lambda s: (s.start, -s.end)))


def test_spans_become_tags_with_nesting_and_the_crossing_one_apart() -> None:
    record = marked("[[Anna Verdi|PERSON|faker]] [[has asthma|health]] and prays.")
    # a sensitive passage around the name, of another source: nested tags
    outer = Span(0, len("Anna Verdi has asthma"), "health", "llm_sentences")
    crossing = Span(5, len("Anna Verdi has asthma and"), "politic", "model")
    piece = whole_piece(record.text, [*record.spans, outer, crossing])
    tagged = tag_piece(record.text, piece)
    assert tagged.text == (
        "<health><PERSON>Anna Verdi</PERSON> <health>has asthma</health></health> and prays."
    )
    assert tagged.crossing == [crossing]
    read = read_tags(tagged.text, ["health", "PERSON"])
    assert read.text == record.text
    found = {(read.text[p.start : p.end], p.label) for p in read.passages}
    assert found == {
        ("Anna Verdi", "PERSON"),
        ("has asthma", "health"),
        ("Anna Verdi has asthma", "health"),
    }


def test_tags_read_back_exactly_around_non_ascii_and_emoji() -> None:
    answer = "Ciao 👋🏽 <PERSON>Zoë Ñúñez</PERSON>, <health>ha l'asma 🫁</health>. Più tardi."
    read = read_tags(answer, ["PERSON", "health"])
    assert read.text == "Ciao 👋🏽 Zoë Ñúñez, ha l'asma 🫁. Più tardi."
    assert [read.text[p.start : p.end] for p in read.passages] == ["Zoë Ñúñez", "ha l'asma 🫁"]
    assert not read.problems


def test_made_up_markup_is_cut_out_and_counted_but_the_sources_own_stays() -> None:
    read = read_tags("in <LOCATORE>Leeds</LOCATORE> (2018)<br>", ["LOCATION"], markup("x<br>"))
    assert read.text == "in Leeds (2018)<br>"
    assert [p.split(":")[0] for p in read.problems] == [UNKNOWN, UNKNOWN]


def test_tag_names_are_read_loosely_but_the_sources_own_markup_stays_text() -> None:
    resolve = label_resolver(["politic", "PERSON"])
    assert resolve("Politics") == "politic"
    assert resolve(" person ") == "PERSON"
    assert resolve("br") is None
    assert label_resolver(["ORGANIZATION", "LOCATION"])("ORGANIZAZION") == "ORGANIZATION"
    read = read_tags("a <b>bold</b> <politics>vote</politics>", ["politic"], markup("<b>x</b>"))
    assert read.text == "a <b>bold</b> vote"
    assert [(p.label, read.text[p.start : p.end]) for p in read.passages] == [("politic", "vote")]


def test_broken_tags_give_no_passage_and_are_reported() -> None:
    read = read_tags("x <health>open then </PERSON> y", ["health", "PERSON"])
    assert read.passages == []
    assert sorted(p.split(":")[0] for p in read.problems) == [UNCLOSED, UNOPENED]


def carry(source: str, answer: str, phrase: dict[str, str] | None = None):
    record = marked(source)
    piece = whole_piece(record.text, record.spans)
    tagged = tag_piece(record.text, piece)
    read = read_tags(answer, sorted({s.label for s in record.spans}))
    return (
        record,
        read,
        carry_spans(record.text, tagged.tagged, tagged.crossing, read, recovery(phrase)),
    )


def texts(read, carried) -> list[tuple[str, str]]:
    return [(read.text[s.start : s.end], s.label) for s in carried.spans]


def test_every_tag_kept_carries_every_span_exactly() -> None:
    source = "[[Anna|PERSON]] [[has asthma|health]] and [[voted for the Greens|politic]]."
    _, read, carried = carry(
        source,
        "<PERSON>Anna</PERSON> <health>ha l'asma</health> e <politic>votò i Verdi</politic>.",
    )
    assert sorted(texts(read, carried)) == [
        ("Anna", "PERSON"),
        ("ha l'asma", "health"),
        ("votò i Verdi", "politic"),
    ]
    assert carried.fates == {TAG: 3}
    assert all(span.quality == TAG and span.source == "gold" for span in carried.spans)


def test_a_lost_tag_of_a_kept_name_is_found_by_its_words() -> None:
    _, read, carried = carry(
        "Ask [[Anna Verdi|PERSON]] whether [[she has asthma|health]].",
        "Chiedi ad Anna Verdi se <health>ha l'asma</health>.",
    )
    assert sorted(texts(read, carried)) == [("Anna Verdi", "PERSON"), ("ha l'asma", "health")]
    assert carried.fates == {TAG: 1, FOUND: 1}


def test_a_lost_tag_of_a_passage_is_found_by_its_translation_or_dropped() -> None:
    source = "Ask [[Anna|PERSON]] whether [[she takes insulin every morning|health]]."
    answer = "Chiedi ad <PERSON>Anna</PERSON> se prende insulina ogni mattina."
    _, read, carried = carry(source, answer, {"health": "prende insulina ogni mattina"})
    assert ("prende insulina ogni mattina", "health") in texts(read, carried)
    assert carried.fates == {TAG: 1, FOUND: 1}

    _, _, carried = carry(source, answer, {"health": "fa sport la sera"})
    assert carried.fates == {TAG: 1, NOT_FOUND: 1}
    assert [(s.label, why) for s, why in carried.dropped] == [("health", NOT_FOUND)]


def test_an_invented_tag_and_a_repeated_one_give_no_span_and_are_counted() -> None:
    source = "[[Anna|PERSON]] was seen today. [[She has asthma|health]]."
    answer = (
        "<PERSON>Anna</PERSON> <health>è stata vista oggi</health>. <health>Ha l'asma</health>."
        " <health>Ha l'asma</health>."
    )
    _, _read, carried = carry(source, answer)
    # the pairing follows the order of labels: the first health tag pairs with the one health
    # span, the two after it are extra
    assert carried.fates == {TAG: 2}
    assert sum(carried.extra.values()) == 2
    assert carried.extra[DUPLICATE] + carried.extra[INVENTED] == 2


def test_a_repeated_tag_of_a_pair_is_a_duplicate() -> None:
    source = "[[Anna|PERSON]] [[has asthma|health]]."
    answer = "<PERSON>Anna</PERSON> <health>ha l'asma</health>, <health>ha l'asma</health>."
    _, _read, carried = carry(source, answer)
    assert carried.fates == {TAG: 2}
    assert carried.extra == {DUPLICATE: 1}


def test_pieces_are_cut_between_sentences_never_inside_a_span_and_keep_the_gaps() -> None:
    sentences = [f"Sentence number {i} has five words." for i in range(12)]
    text = "Header line\n\n" + " ".join(sentences[:6]) + "\n" + " ".join(sentences[6:])
    across = text.index("number 3")
    span = Span(across, text.index("number 5") + 8, "health")
    pieces = split_pieces(text, [span], "en", max_words=12)
    assert len(pieces) > 3
    assert all(p.start < p.end for p in pieces)
    assert next(p for p in pieces if p.start <= span.start and span.end <= p.end).spans == [span]
    for left, right in itertools.pairwise(pieces):
        assert not text[left.end : right.start].strip()  # only whitespace between pieces
    assert all(text[p.end - 1] in ".e" for p in pieces)  # each ends a sentence or the header
    holder = next(p for p in pieces if p.spans)
    assert text[holder.start : holder.end].count("Sentence") >= 3  # sentences 3-5 stay together


@pytest.mark.parametrize("text", ["Tel. 0161 496 0755", "12/05/2024 — 14:00"])
def test_a_piece_without_letters_needs_no_model(text: str) -> None:
    digits = text.split(" ", 1)[1] if text.startswith("Tel") else text
    assert Piece(0, len(text)).needs_model(text) == any(c.isalpha() for c in text)
    assert not Piece(0, len(digits)).needs_model(digits)


def test_the_fake_translates_word_by_word() -> None:
    assert translate_words("The patient has asthma.") == "Il paziente ha asma."
