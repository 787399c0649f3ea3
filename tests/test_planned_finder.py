"""Finding planned facts in invented documents (labeling.planned): English, Italian, German,
Spanish and French."""

from __future__ import annotations

import pytest

from gen.core.packs import load_language_pack
from gen.core.records import Span, check_spans
from gen.text.words import word_spans
from labeling.planned import EXACT, FUZZY, FactFinder, Found, substitute

DIABETES = "was diagnosed with type 1 diabetes at the age of nine"
UNION = "è iscritta alla FIOM-CGIL dal 2012"


@pytest.fixture(scope="module")
def english() -> FactFinder:
    return FactFinder(load_language_pack("en").facts.finder)


@pytest.fixture(scope="module")
def italian() -> FactFinder:
    return FactFinder(load_language_pack("it").facts.finder)


@pytest.fixture(scope="module")
def spanish() -> FactFinder:
    return FactFinder(load_language_pack("es").facts.finder)


def passage(finder: FactFinder, text: str, fact: str) -> tuple[str, str, float] | None:
    [found] = finder.find(text, [fact])
    if found is None:
        return None
    assert_trimmed(text, found)
    return text[found.start : found.end], found.quality, found.score


def assert_trimmed(text: str, found: Found) -> None:
    """Valid, no blank or punctuation at the edges, whole words of gen.text.words."""
    check_spans(text, [Span(found.start, found.end, "health", "planned")])
    piece = text[found.start : found.end]
    assert piece == piece.strip() and piece[0].isalnum() and piece[-1].isalnum()
    starts = {start for start, _ in word_spans(text)}
    ends = {end for _, end in word_spans(text)}
    assert found.start in starts and found.end in ends


def test_verbatim(english: FactFinder) -> None:
    text = f"Dear Dr Lowe,\nMaria Rossi {DIABETES}. She is well."
    assert passage(english, text, DIABETES) == (DIABETES, EXACT, 1.0)


def test_recased_and_split_across_a_line_break(english: FactFinder) -> None:
    text = "PATIENT HISTORY: MARIA WAS DIAGNOSED WITH TYPE 1\n  DIABETES AT THE AGE OF NINE."
    found, quality, score = passage(english, text, DIABETES)
    assert found == "WAS DIAGNOSED WITH TYPE 1\n  DIABETES AT THE AGE OF NINE"
    assert (quality, score) == (EXACT, 1.0)


def test_changed_person(english: FactFinder, italian: FactFinder) -> None:
    fact = "has been a member of the Labour Party since 2012"
    text = "I have been a member of the Labour Party since 2012, and I vote every time."
    assert passage(english, text, fact) == (
        "have been a member of the Labour Party since 2012",
        FUZZY,
        1.0,
    )
    text = "Io sono iscritta alla Fiom-Cgil dal 2012, come mio padre."
    assert passage(italian, text, UNION) == ("sono iscritta alla Fiom-Cgil dal 2012", FUZZY, 1.0)


def test_changed_tense_and_gender_score_below_one(english: FactFinder, italian: FactFinder) -> None:
    found, quality, score = passage(
        english, "Maria has been diagnosed with type 1 diabetes at the age of nine.", DIABETES
    )
    assert found == "diagnosed with type 1 diabetes at the age of nine" and quality == FUZZY
    assert 0.7 <= score < 1
    found, quality, score = passage(italian, "Luca è iscritto alla FIOM-CGIL\ndal 2012.", UNION)
    assert found == "è iscritto alla FIOM-CGIL\ndal 2012" and 0.9 < score < 1


def test_a_paraphrase_keeps_its_core(english: FactFinder) -> None:
    text = "Maria was diagnosed with type 1 diabetes when she was nine years old."
    found, quality, score = passage(english, text, DIABETES)
    assert found == "was diagnosed with type 1 diabetes when she was nine" and quality == FUZZY
    assert score >= 0.7
    text = "Maria takes metformin twice daily for her type 2 diabetes."
    found, _, score = passage(english, text, "takes metformin for type 2 diabetes twice a day")
    assert found == "takes metformin twice daily for her type 2 diabetes" and score >= 0.7
    text = "She wears a sheitel every day, believing in her own faithfulness."
    found, _, score = passage(english, text, "wears a sheitel every day as a sign of faith")
    assert found == "wears a sheitel every day" and score >= 0.7  # most content words


def test_missing(english: FactFinder, italian: FactFinder) -> None:
    assert (
        passage(english, "Maria was diagnosed with asthma and uses an inhaler.", DIABETES) is None
    )
    assert passage(english, "Maria has diabetes.", DIABETES) is None
    sikh = "is a practising Sikh"  # all but its key word is no find
    assert passage(english, "He is a practising member of the chess club.", sikh) is None
    assert passage(english, "He is a practising Hindu.", sikh) is None
    assert passage(english, "", DIABETES) is None
    assert passage(italian, "Luca è iscritto al circolo del tennis dal 2019.", UNION) is None


def test_italian_words_are_snapped_to_whole_words(italian: FactFinder) -> None:
    fact = "ha ricevuto una diagnosi di diabete all'età di nove anni"
    text = "Nel referto: ho ricevuto una diagnosi di diabete all'età di nove anni."
    found, quality, score = passage(italian, text, fact)
    assert found == "ho ricevuto una diagnosi di diabete all'età di nove anni"
    assert (quality, score) == (FUZZY, 1.0)
    text = "Anna dell'età di nove anni, ha una diagnosi di diabete."
    assert passage(italian, text, "età di nove anni, ha una diagnosi di diabete") == (
        "dell'età di nove anni, ha una diagnosi di diabete",
        EXACT,
        1.0,
    )


def test_facts_of_one_document_never_share_a_passage(english: FactFinder) -> None:
    fact = "takes insulin every morning"
    text = f"She takes insulin every morning. Her son {fact} too."
    first, second, third = english.find(text, [fact, fact, fact])
    assert first and second and third is None
    assert (first.start, second.start) == (4, text.index(fact, 10))
    spans = [Span(f.start, f.end, "health", "planned") for f in (first, second)]
    check_spans(text, spans)


def test_german_person_and_strong_verb_forms() -> None:
    german = FactFinder(load_language_pack("de").facts.finder)
    fact = "ist seit 2012 Mitglied der SPD"
    text = "Ich bin seit 2012 Mitglied der SPD und war Kassiererin."
    assert passage(german, text, fact) == ("bin seit 2012 Mitglied der SPD", FUZZY, 1.0)
    # subject and verb inverted: the verb is left out, the rest still carries the fact
    found = passage(german, "Seit dem Umzug bin ich seit 2012 Mitglied der SPD.", fact)
    assert found is not None and found[0] == "seit 2012 Mitglied der SPD" and found[2] > 0.9
    text = "Ich nehme seit 2020 Sertralin gegen Depressionen."
    fact = "nimmt seit 2020 Sertralin gegen Depressionen"
    assert passage(german, text, fact) == (text.removeprefix("Ich ")[:-1], FUZZY, 1.0)
    buddhist = "ist praktizierende Buddhistin"
    assert passage(german, "Sie ist praktizierende Ärztin.", buddhist) is None


def test_substitute_puts_the_facts_in_place_of_the_placeholders() -> None:
    facts = ["is a practising Sikh", "votes Green", "keeps kosher"]
    written = "Raj [[FACT_1]]. He [fact 2] and [[FACT_2]]! See [[FACT_7]]. [CURRENT_FACT_3]"
    substituted = substitute(written, facts)
    assert substituted.text == (
        "Raj is a practising Sikh. He votes Green and votes Green! See . keeps kosher"
    )
    assert substituted.unknown == ["[[FACT_7]]"]
    assert [[substituted.text[a:b] for a, b in places] for places in substituted.places] == [
        ["is a practising Sikh"],
        ["votes Green", "votes Green"],
        ["keeps kosher"],
    ]
    assert substitute("Raj [[FACT_1]].", facts).places[1:] == [[], []]  # left out: missing


def test_a_changed_detail_still_matches_with_a_score_below_one(english: FactFinder) -> None:
    """A known limit, documented: the passage discloses the same category, not the fact."""
    text = "Maria was diagnosed with type 2 diabetes at the age of nine."
    found, quality, score = passage(english, text, DIABETES)
    assert found == "was diagnosed with type 2 diabetes at the age of nine"
    assert quality == FUZZY and 0.9 < score < 1


def test_short_words_match_only_their_equal(english: FactFinder) -> None:
    """A short word is no typo of another ("he", "the"): the passage starts at the verb."""
    text = "Staff notes. He is now a health and safety representative at Acme."
    fact = "joined Unison in 2001 and is now a health and safety representative at Acme"
    found, quality, score = passage(english, text, fact)
    assert found == "is now a health and safety representative at Acme"
    assert quality == FUZZY and score >= 0.7


def test_a_passage_ends_at_its_last_matched_content_word(italian: FactFinder) -> None:
    """Words the fact did not match and function words after it are left out."""
    text = "Giulia convive con asma grave dall'infanzia e va dalla nonna ogni domenica."
    fact = "convive con asma grave dall'infanzia e va dallo specialista ogni tre mesi"
    found, quality, score = passage(italian, text, fact)
    assert found == "convive con asma grave dall'infanzia e va"
    assert quality == FUZZY and score >= 0.7


def test_spanish_first_person_and_a_changed_wording(spanish: FactFinder) -> None:
    """Spanish drops the subject: the fact and the first-person passage are the same words
    but for the verb forms of one `same_words` group."""
    fact = "está afiliada a CCOO desde 2012"
    text = "Hola, Gabriela: te cuento que estoy afiliada a CCOO desde 2012 y voy a las asambleas."
    assert passage(spanish, text, fact) == ("estoy afiliada a CCOO desde 2012", FUZZY, 1.0)
    fact = "recibió un diagnóstico de diabetes tipo 1 a los nueve años"
    text = "Recibí el diagnóstico de diabetes tipo 1 cuando tenía nueve años."
    found, quality, score = passage(spanish, text, fact)
    assert found == text.rstrip(".") and quality == FUZZY and 0.7 <= score < 1
    assert passage(spanish, "Me diagnosticaron asma en el colegio.", fact) is None
    assert passage(spanish, "Es una católica de las de antes.", "es católica practicante") is None


@pytest.mark.parametrize(
    ("fact", "text", "found"),
    [
        (
            "s'est convertie à l'islam en 2015",
            "Je me suis convertie à l’islam en 2015.",
            "me suis convertie à l’islam en 2015",
        ),
        (
            "a appris à neuf ans qu'elle avait un diabète de type 1",
            "J’ai appris à neuf ans que j’avais un diabète de type 1.",
            "J’ai appris à neuf ans que j’avais un diabète de type 1",
        ),
        (
            "est adhérent au Parti socialiste depuis 2012",
            "Il est adhérent au Parti depuis longtemps.",
            None,
        ),
    ],
)
def test_french_facts_in_the_first_person_and_elided(fact: str, text: str, found: str | None):
    """French person forms (« s'est » / « me suis », « qu'elle » / « que j'avais ») are the
    same words; a passage with the fact's first words only is not the fact."""
    result = passage(FactFinder(load_language_pack("fr").facts.finder), text, fact)
    assert (result and result[0]) == found
    assert result is None or result[2] >= 0.9
