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
    return FactFinder(load_language_pack("en").facts.finder, "en")


@pytest.fixture(scope="module")
def italian() -> FactFinder:
    return FactFinder(load_language_pack("it").facts.finder, "it")


@pytest.fixture(scope="module")
def spanish() -> FactFinder:
    return FactFinder(load_language_pack("es").facts.finder, "es")


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
    assert (
        found == "has been diagnosed with type 1 diabetes at the age of nine" and quality == FUZZY
    )
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


@pytest.mark.parametrize(
    ("language", "fact", "text"),
    [
        (
            "en",
            "is a transgender man and began hormone therapy in 2019",
            "He came out to his parents in 2012. He began hormone therapy in 2019.",
        ),
        (
            "en",
            "takes levothyroxine for an underactive thyroid twice a day",
            "As a result, Alexandra takes levothyroxine twice a day.",
        ),
        (
            "en",
            "wears a sheitel every day as a sign of faith",
            "She wears a sheitel every day, believing in her own faithfulness.",
        ),
        (
            "en",  # "sexual" is one word: it holds "sexual" or "asexual", not both
            "is asexual and has never had a sexual relationship",
            "In fact, Jesus has never had a sexual relationship with anyone.",
        ),
        (
            "en",  # the fact in two sentences: no span holds it
            "is asexual and has never had a sexual relationship",
            "Douglas is asexual. He has never had a sexual relationship.",
        ),
        (
            "it",
            "è di origine rumena e in famiglia parla il cinese mandarino",
            "Ha un nonno di Bucarest. In famiglia parla il cinese mandarino, ma lo capisce poco.",
        ),
        (
            "it",
            "è delegato sindacale della FIOM-CGIL presso Acme dal 2012",
            "Paolo è iscritto alla FIOM-CGIL presso Acme dal 2012.",
        ),
        (  # the head after the auxiliary: an acquittal, not a charge
            "it",
            "è stata assolta dall'accusa di appropriazione indebita dalla Corte d'Appello di "
            "Roma nel 1990",
            "Le accuse di appropriazione indebita dalla Corte d'Appello di Roma nel 1990 hanno "
            "aperto il dibattito.",
        ),
    ],
)
def test_half_a_fact_is_missing(language: str, fact: str, text: str) -> None:
    """A passage that holds one part of a fact, or all but its head, is no span of it."""
    finder = FactFinder(load_language_pack(language).facts.finder, language)
    assert passage(finder, text, fact) is None


@pytest.mark.parametrize(
    ("language", "fact", "text"),
    [
        (  # a year
            "en",
            "was convicted of harassment at Glasgow Sheriff Court in 2002",
            "He was convicted of harassment at Glasgow Sheriff Court in 2003.",
        ),
        (  # a name
            "en",
            "was convicted of harassment at Glasgow Sheriff Court in 2002",
            "He was convicted of harassment at Paisley Sheriff Court in 2002.",
        ),
        ("it", "è iscritta alla CISL dal 1988", "Anna è iscritta alla UIL dal 1988."),
        ("it", "è iscritta alla CISL dal 1988", "Anna è iscritta alla CISL dal 1998."),
    ],
)
def test_a_missing_name_or_number_makes_the_fact_missing(
    language: str, fact: str, text: str
) -> None:
    finder = FactFinder(load_language_pack(language).facts.finder, language)
    assert passage(finder, text, fact) is None


@pytest.mark.parametrize(
    ("language", "fact", "text", "span"),
    [
        (  # another tense: the verb group the writer put before the fact's words
            "en",
            "has lived with fibromyalgia since childhood and sees a specialist every three months",
            "She has been living with fibromyalgia since childhood and sees a specialist every "
            "three months.",
            "has been living with fibromyalgia since childhood and sees a specialist every "
            "three months",
        ),
        (
            "en",
            "is on the waiting list for a coronary bypass",
            "Matthew is currently on the waiting list for a coronary bypass at St Luke's.",
            "is currently on the waiting list for a coronary bypass at St Luke's",
        ),
        (  # the year in front, the subject left out, the writer's own verb
            "en",
            "had gender-affirming surgery at the regional gender identity service in 2018",
            "In 2018, she underwent gender-affirming surgery at the regional gender identity "
            "service, which changed her life.",
            "underwent gender-affirming surgery at the regional gender identity service",
        ),
        (
            "en",
            "votes for Plaid Cymru at every election",
            "She is committed to her cause, which includes voting for Plaid Cymru at every "
            "election.",
            "voting for Plaid Cymru at every election",
        ),
        (  # the first person, an auxiliary and another tense
            "it",
            "fa il catechista nella parrocchia di San Rocco",
            "Nel corso degli anni ho fatto il catechista nella parrocchia di San Rocco.",
            "ho fatto il catechista nella parrocchia di San Rocco",
        ),
        (
            "it",
            "assume l'adalimumab per il morbo di Crohn dal 1998",
            "Dal 1998 Mirco ha cominciato ad assumere l'adalimumab per il morbo di Crohn.",
            "ha cominciato ad assumere l'adalimumab per il morbo di Crohn",
        ),
        (
            "it",
            "è asessuale e non ha mai avuto rapporti sessuali",
            "Adele scrive: sono in genere asessuale e non ho mai avuto rapporti sessuali.",
            "sono in genere asessuale e non ho mai avuto rapporti sessuali",
        ),
    ],
)
def test_the_whole_fact_in_another_tense_or_person_is_the_clause_that_holds_it(
    language: str, fact: str, text: str, span: str
) -> None:
    finder = FactFinder(load_language_pack(language).facts.finder, language)
    found, quality, score = passage(finder, text, fact)
    assert (found, quality) == (span, FUZZY) and score >= finder.min_score


@pytest.mark.parametrize(
    ("language", "fact", "text", "span"),
    [
        (
            "en",
            "has a mother of Pakistani origin and a father of Ghanaian origin",
            "William describes himself as British Bangladeshi. His mother is Pakistani origin, "
            "and his father is Ghanaian origin.",
            "His mother is Pakistani origin, and his father is Ghanaian origin",
        ),
        (
            "en",
            "had a BMI of 41 at the check-up in 2004",
            "Her BMI of 41 at the check-up in 2004 indicated that she needed medication.",
            "Her BMI of 41 at the check-up in 2004 indicated that she needed medication",
        ),
        (  # a name's possessive: the name stays out, a PERSON span of its own
            "en",
            "is a pacifist and was a conscientious objector",
            "Lori's pacifist and conscientious objector status is part of her faith. She prays.",
            "pacifist and conscientious objector status is part of her faith",
        ),
        (
            "it",
            "ha la madre di origine eritrea e il padre di origine somala",
            "Anna è nata a Bari. Sua madre è di origine eritrea e suo padre di origine somala.",
            "Sua madre è di origine eritrea e suo padre di origine somala",
        ),
    ],
)
def test_a_passage_after_a_possessive_is_the_whole_clause(
    language: str, fact: str, text: str, span: str
) -> None:
    """As the gold set marks "his parents came from Mirpur in Pakistan"."""
    finder = FactFinder(load_language_pack(language).facts.finder, language)
    found = passage(finder, text, fact)
    assert found is not None and found[:2] == (span, FUZZY)


def test_a_relative_clause_right_after_the_fact_belongs_to_it(italian: FactFinder) -> None:
    fact = "ha una grave allergia alla frutta secca"
    text = "Luca ha una grave allergia alla frutta secca che lo obbliga a portare l'adrenalina."
    assert passage(italian, text, fact) == (text[5:-1], EXACT, 1.0)
    text = "Luca ha una grave allergia alla frutta secca, che ha scoperto da bambino."
    assert passage(italian, text, fact) == (fact, EXACT, 1.0)


def test_an_exact_fact_takes_in_its_complement_and_stops_at_a_clause(
    english: FactFinder,
) -> None:
    text = "Darren made the pilgrimage to Mecca in 1999 as part of his obligations. He prays."
    found = passage(english, text, "made the pilgrimage to Mecca in 1999")
    assert found == ("made the pilgrimage to Mecca in 1999 as part of his obligations", EXACT, 1.0)
    text = "He arrived from Eritrea as a refugee in 1981 and received a caution in 1998."
    found = passage(english, text, "arrived from Eritrea as a refugee in 1981")
    assert found == ("arrived from Eritrea as a refugee in 1981", EXACT, 1.0)
    text = "- Willie May wears an electronic tag as part of a curfew order."
    fact = "wears an electronic tag as part of a curfew order"
    assert passage(english, text, fact) == (fact, EXACT, 1.0)  # "May" is his name here


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
    german = FactFinder(load_language_pack("de").facts.finder, "de")
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


def test_a_changed_word_still_matches_with_a_score_below_one(english: FactFinder) -> None:
    """A known limit, documented: one content word of four or more may differ, so an age in
    words that the writer changed still matches; a `score` below 1 marks it."""
    text = "Maria was diagnosed with type 1 diabetes at the age of seven."
    found, quality, score = passage(english, text, DIABETES)
    assert found == "was diagnosed with type 1 diabetes at the age of seven"
    assert quality == FUZZY and 0.8 < score < 1


def test_short_words_match_only_their_equal(english: FactFinder) -> None:
    """A short word is no typo of another ("he", "the"): the span starts at the verb."""
    text = "Staff notes. He is now a health and safety representative at Acme."
    fact = "is now the health and safety representative at Acme"
    found, quality, score = passage(english, text, fact)
    assert found == "is now a health and safety representative at Acme"
    assert quality == FUZZY and score >= 0.7


def test_a_span_ends_with_the_words_the_writer_put_for_the_facts_last(
    italian: FactFinder,
) -> None:
    """Words the fact did not match at the end of a passage are left out ("e dalla
    nonna"), except as many as the fact still had to say ("settimane" for "mesi")."""
    text = (
        "Giulia convive con asma grave dall'infanzia e va dallo specialista ogni tre "
        "settimane e dalla nonna."
    )
    fact = "convive con asma grave dall'infanzia e va dallo specialista ogni tre mesi"
    found, quality, score = passage(italian, text, fact)
    assert found == "convive con asma grave dall'infanzia e va dallo specialista ogni tre settimane"
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
    result = passage(FactFinder(load_language_pack("fr").facts.finder, "fr"), text, fact)
    assert (result and result[0]) == found
    assert result is None or result[2] >= 0.9
