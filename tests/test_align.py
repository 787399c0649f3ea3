"""The censor aligner on answers shaped like real model output, in English and Italian."""

from __future__ import annotations

import pytest

from gen.core.records import Span, check_spans
from labeling.align.aligner import Alignment, align_censored, align_document
from labeling.align.censored import Tag, parse_censored, strip_chatter, tag_key

EN_TAGS = {
    "HEALTH_DATA": "health",
    "POLITICAL_OPINION": "politic",
    "RELIGIOUS_BELIEF": "philosophy",
}
IT_TAGS = {"DATI_SALUTE": "health", "OPINIONI_POLITICHE": "politic"}

EN_LETTER = (
    "Dear Dr. Patel,\n\n"
    "I am writing about my father, Robert Hale, aged 71. Since last spring he has had "
    '"episodes" of confusion and was diagnosed with early-stage Alzheimer\'s disease. '
    "He takes donepezil every evening.\n"
    "He has been a member of the Labour Party for thirty years and still canvasses on "
    "weekends. We would like to discuss his care plan – ideally before the end of May.\n\n"
    "Kind regards,\nEmma Hale"
)
EN_HEALTH = (
    '"episodes" of confusion and was diagnosed with early-stage Alzheimer\'s disease',
    "takes donepezil every evening",
)
EN_POLITIC = "a member of the Labour Party for thirty years and still canvasses on weekends"

IT_REPORT = (
    "Relazione dell'assistente sociale\n\n"
    "La signora Giulia Ferrè, 58 anni, vive da sola a Perugia. È affetta da diabete di "
    "tipo 2 e da un'insufficienza renale cronica, per cui segue la dialisi tre volte a "
    "settimana. Dichiara di votare da sempre per il Partito Democratico e di partecipare "
    "alle riunioni di quartiere.\n"
    "La prossima visita è fissata per giovedì."
)
IT_HEALTH = (
    "diabete di tipo 2 e da un'insufficienza renale cronica, per cui segue la dialisi tre "
    "volte a settimana"
)
IT_POLITIC = "da sempre per il Partito Democratico"


def labeled(original: str, alignment: Alignment | list[Span]) -> list[tuple[str, str]]:
    spans = alignment.spans if isinstance(alignment, Alignment) else alignment
    check_spans(original, spans)
    return [(span.label, original[span.start : span.end]) for span in spans]


def en_censored() -> str:
    return (
        "Dear Dr. Patel,\n\n"
        "I am writing about my father, Robert Hale, aged 71. Since last spring he has had "
        "[HEALTH_DATA]. He [HEALTH_DATA].\n"
        "He has been [POLITICAL_OPINION]. We would like to discuss his care plan – ideally "
        "before the end of May.\n\n"
        "Kind regards,\nEmma Hale"
    )


EN_EXPECTED = [
    ("health", EN_HEALTH[0]),
    ("health", EN_HEALTH[1]),
    ("politic", EN_POLITIC),
]


def test_a_faithful_answer_is_exact() -> None:
    alignment = align_document(EN_LETTER, en_censored(), EN_TAGS)

    assert labeled(EN_LETTER, alignment) == EN_EXPECTED
    assert alignment.quality == "exact" and alignment.score == 1.0 and not alignment.flagged
    assert all(span.quality == "exact" and span.score == 1.0 for span in alignment.spans)
    assert all(span.source == "llm_censor" for span in alignment.spans)


def test_align_censored_returns_the_document_spans() -> None:
    spans = align_censored(EN_LETTER, en_censored(), EN_TAGS)

    assert spans == align_document(EN_LETTER, en_censored(), EN_TAGS).spans


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("Here is the censored document:\n\n", ""),
        ("Sure! Here's the document with sensitive information replaced:\n```\n", "\n```"),
        ("```text\n", "\n```\n\nI hope this helps! Let me know if you need anything else."),
        ("", "\n\nNote: all health and political details have been censored."),
        (
            "",
            "\n\nNote: I replaced health details with [HEALTH_DATA] and views with "
            "[ POLITICAL OPINION ].",
        ),
    ],
)
def test_chatter_and_fences_around_the_answer_are_ignored(before: str, after: str) -> None:
    alignment = align_document(EN_LETTER, before + en_censored() + after, EN_TAGS)

    assert labeled(EN_LETTER, alignment) == EN_EXPECTED
    assert alignment.score == 1.0 and alignment.quality == "exact"


def test_italian_answer_with_preamble_and_spelling_variants() -> None:
    censored = (
        "Ecco il documento censurato:\n\n"
        "Relazione dell'assistente sociale\n\n"
        "La signora Giulia Ferrè, 58 anni, vive da sola a Perugia. È affetta da [dati salute]. "
        "Dichiara di votare [Opinioni-Politiche] e di partecipare alle riunioni di quartiere.\n"
        "La prossima visita è fissata per giovedì.\n\n"
        "Spero che sia utile!"
    )

    alignment = align_document(IT_REPORT, censored, IT_TAGS)

    assert labeled(IT_REPORT, alignment) == [("health", IT_HEALTH), ("politic", IT_POLITIC)]
    assert alignment.quality == "exact"


def test_reflowed_whitespace_quotes_and_dashes_change_nothing() -> None:
    censored = (
        "Dear Dr. Patel,\n"
        "I am writing about my father,  Robert Hale, aged 71.\nSince last spring he has had "
        "[HEALTH_DATA].   He [HEALTH_DATA]. He has been\n[POLITICAL_OPINION]. We would like "
        "to discuss his care plan - ideally before the end of May. Kind regards, Emma Hale"
    )

    alignment = align_document(EN_LETTER, censored, EN_TAGS)

    assert labeled(EN_LETTER, alignment) == EN_EXPECTED
    assert alignment.quality == "exact"


def test_curly_quotes_in_the_answer_match_straight_quotes_of_the_original() -> None:
    original = 'He wrote "I have been sober for two years" and signed it.'
    censored = "He wrote “[HEALTH_DATA]” and signed it."

    alignment = align_document(original, censored, EN_TAGS)

    assert labeled(original, alignment) == [("health", "I have been sober for two years")]
    assert alignment.quality == "exact"


def test_typos_paraphrases_and_dropped_or_repeated_sentences_outside_tags() -> None:
    censored = (
        "Dear Dr Patel,\n\n"
        "I am writting about my dad, Robert Hale, aged 71. Since last spring he has had "
        "[HEALTH_DATA]. He [HEALTH_DATA].\n"
        "He has been [POLITICAL_OPINION]. We would like to discuss his care plan – ideally "
        "before the end of May. We would like to discuss his care plan.\n\n"
        "Kind regards,"
    )

    alignment = align_document(EN_LETTER, censored, EN_TAGS)

    assert labeled(EN_LETTER, alignment) == EN_EXPECTED
    assert alignment.quality == "fuzzy" and not alignment.flagged
    assert 0.6 < alignment.score < 1.0 and alignment.coverage < 1.0


def test_a_typo_right_beside_a_tag_keeps_the_word_out_of_the_span() -> None:
    original = "The scan confirmed a herniated disc in the lower back, so surgery follows."
    censored = "The scan confimred [HEALTH_DATA], so surgery follows."

    alignment = align_document(original, censored, EN_TAGS)

    assert labeled(original, alignment) == [("health", "a herniated disc in the lower back")]
    assert alignment.spans[0].quality == "fuzzy" and 0 < alignment.spans[0].score < 1


def test_punctuation_the_model_dropped_stays_out_of_the_span() -> None:
    original = "She has epilepsy, and works as a nurse."
    censored = "She has [HEALTH_DATA] and works as a nurse."

    assert labeled(original, align_censored(original, censored, EN_TAGS)) == [
        ("health", "epilepsy")
    ]


def test_brackets_and_quotes_closed_inside_the_span_are_kept() -> None:
    original = "Results: (HbA1c 9.1%) since March. Mood low."
    censored = "Results: [HEALTH_DATA] since March. Mood low."

    assert labeled(original, align_censored(original, censored, EN_TAGS)) == [
        ("health", "(HbA1c 9.1%)")
    ]


@pytest.mark.parametrize(
    "spelling",
    ["[HEALTH_DATA]", "[health data]", "[Health-Data]", "[HEALTH DATA]", "[ health_data ]"],
)
def test_tag_spellings(spelling: str) -> None:
    original = "Tom was treated for pneumonia in 2021."
    censored = f"Tom was treated for {spelling} in 2021."

    assert labeled(original, align_censored(original, censored, EN_TAGS)) == [
        ("health", "pneumonia")
    ]


def test_adjacent_tags_of_different_labels_split_at_punctuation() -> None:
    original = "Notes: diabetes since 2010, supports the Green Party. End of notes."
    censored = "Notes: [HEALTH_DATA][POLITICAL_OPINION]. End of notes."

    alignment = align_document(original, censored, EN_TAGS)

    assert labeled(original, alignment) == [
        ("health", "diabetes since 2010"),
        ("politic", "supports the Green Party"),
    ]
    assert all(span.quality == "fuzzy" and span.score <= 0.5 for span in alignment.spans)


def test_repeated_tag_gives_one_span_per_tag_split_at_punctuation() -> None:
    original = "Notes: diabetes since 2010, asthma as a child. End of notes."
    censored = "Notes: [HEALTH_DATA] [HEALTH_DATA]. End of notes."

    assert labeled(original, align_censored(original, censored, EN_TAGS)) == [
        ("health", "diabetes since 2010"),
        ("health", "asthma as a child"),
    ]


def test_two_censored_sentences_give_two_adjacent_spans() -> None:
    original = (
        "Report of 4 May. He votes for the Green Party. He campaigns against nuclear power. "
        "Next meeting in June."
    )
    censored = "Report of 4 May. [POLITICAL_OPINION] [POLITICAL_OPINION] Next meeting in June."

    alignment = align_document(original, censored, EN_TAGS)

    assert labeled(original, alignment) == [
        ("politic", "He votes for the Green Party"),
        ("politic", "He campaigns against nuclear power"),
    ]
    assert not alignment.flagged


def test_tags_at_the_very_start_and_end() -> None:
    original = "Chronic migraine keeps him home most Mondays. He prays at the mosque daily"
    censored = "[HEALTH_DATA] keeps him home most Mondays. He [RELIGIOUS_BELIEF]"

    alignment = align_document(original, censored, EN_TAGS)

    assert labeled(original, alignment) == [
        ("health", "Chronic migraine"),
        ("philosophy", "prays at the mosque daily"),
    ]
    assert alignment.quality == "exact"


def test_unknown_bracketed_text_is_literal() -> None:
    original = "See note [1]. The client has HIV and asked for [REDACTED] copies."
    censored = "See note [1]. The client has [HEALTH_DATA] and asked for [REDACTED] copies."

    alignment = align_document(original, censored, EN_TAGS)

    assert labeled(original, alignment) == [("health", "HIV")]
    assert alignment.score == 1.0


def test_a_hallucinated_unknown_tag_yields_no_span() -> None:
    original = "The client has HIV and asked for two copies of the letter."
    censored = "The client has [HEALTH_DATA] and asked for [NUMBER] copies of the letter."

    alignment = align_document(original, censored, EN_TAGS)

    assert labeled(original, alignment) == [("health", "HIV")]
    assert alignment.quality == "fuzzy"


@pytest.mark.parametrize(
    ("original", "censored", "expected"),
    [
        (
            "Ο ασθενής πάσχει από διαβήτη τύπου 2. Ψηφίζει το κόμμα Χ.",
            "Ο ασθενής πάσχει από [HEALTH_DATA]. Ψηφίζει [POLITICAL_OPINION].",
            [("health", "διαβήτη τύπου 2"), ("politic", "το κόμμα Χ")],
        ),
        (
            "Пациент страдает от гипертонии. Он голосует за партию «Яблоко».",
            "Пациент страдает от [HEALTH_DATA]. Он голосует за [POLITICAL_OPINION].",
            [("health", "гипертонии"), ("politic", "партию «Яблоко»")],
        ),
        (
            "患者は糖尿病を患っている。彼は緑の党を支持している。",
            "患者は[HEALTH_DATA]を患っている。彼は[POLITICAL_OPINION]を支持している。",
            [("health", "糖尿病"), ("politic", "緑の党")],
        ),
        (
            "Straße 5: Herr Groß leidet an Schuppenflechte.",
            "STRASSE 5: Herr Groß leidet an [health data].",
            [("health", "Schuppenflechte")],
        ),
    ],
)
def test_non_ascii_scripts(original: str, censored: str, expected: list[tuple[str, str]]) -> None:
    assert labeled(original, align_censored(original, censored, EN_TAGS)) == expected


def test_an_answer_without_tags_has_no_spans() -> None:
    original = "La riunione è lunedì in municipio. Portate i documenti."

    exact = align_document(original, "La riunione è lunedì in municipio. Portate i documenti.", {})
    fuzzy = align_document(original, "La riunione è lunedi in municipio. Portate i documenti!", {})

    assert (exact.spans, exact.quality, exact.flagged) == ([], "exact", False)
    assert (fuzzy.spans, fuzzy.quality, fuzzy.flagged) == ([], "fuzzy", False)


@pytest.mark.parametrize(
    "censored",
    [
        "I'm sorry, but I can't help with that request.",
        "Photosynthesis turns light into chemical energy, and [HEALTH_DATA] is stored in roots.",
        "",
    ],
)
def test_an_unrelated_answer_fails(censored: str) -> None:
    alignment = align_document(EN_LETTER, censored, EN_TAGS, threshold=0.1)

    assert alignment.spans == [] and alignment.quality == "failed" and alignment.flagged
    assert "matches the original" in (alignment.reason or "")


def test_a_truncated_answer_is_flagged_but_keeps_its_spans() -> None:
    censored = (
        "Dear Dr. Patel,\n\nI am writing about my father, Robert Hale, aged 71. Since last "
        "spring he has had [HEALTH_DATA]. He"
    )

    alignment = align_document(EN_LETTER, censored, EN_TAGS)

    assert alignment.flagged and alignment.quality == "fuzzy" and alignment.score == 1.0
    assert "accounts for only" in (alignment.reason or "")
    assert labeled(EN_LETTER, alignment) == [("health", EN_HEALTH[0])]


def test_the_threshold_decides_what_is_flagged() -> None:
    censored = (
        "Dear Dr. Patel, I am writing about my father. Since last spring he has had [HEALTH_DATA]."
    )

    lenient = align_document(EN_LETTER, censored, EN_TAGS, threshold=0.1)
    strict = align_document(EN_LETTER, censored, EN_TAGS, threshold=0.9)

    assert not lenient.flagged and strict.flagged
    assert lenient.coverage == strict.coverage < 0.9


def test_tag_key_ignores_case_spacing_and_separators() -> None:
    assert {tag_key(s) for s in ["HEALTH_DATA", " health data ", "Health-Data"]} == {"healthdata"}


def test_parse_keeps_each_repeated_tag() -> None:
    tags = {"A": "health", "B": "politic"}

    assert parse_censored("x [A] [a]\n[B], [B] y", tags) == [
        "x ",
        Tag("health", "[A]"),
        " ",
        Tag("health", "[a]"),
        "\n",
        Tag("politic", "[B]"),
        ", ",
        Tag("politic", "[B]"),
        " y",
    ]


def test_strip_chatter_keeps_document_lines_that_match_the_original() -> None:
    reference = "summary of the visit the patient is stable"
    answer = "Here you go:\n```\nSummary of the visit\nThe patient is [A].\n```\nHope this helps!"

    stripped = strip_chatter(answer, reference, {"A": "health"}, str.casefold)

    assert stripped == "Summary of the visit\nThe patient is [A].\n"


def test_a_final_tag_with_nothing_after_it_stops_at_the_line_break() -> None:
    original = "Visit of 3 May.\nShe reports panic attacks at work.\nNext visit in June."
    censored = "Visit of 3 May.\nShe reports [HEALTH_DATA]"

    alignment = align_document(original, censored, EN_TAGS, threshold=0.5)

    assert labeled(original, alignment) == [("health", "panic attacks at work")]
    assert alignment.spans[0].quality == "fuzzy" and alignment.coverage < 1.0


@pytest.mark.parametrize(
    ("passage", "kept"),
    [
        ('<a href="x.html">votes Green</a>', "votes Green"),
        ("<br/>has asthma<br />", "has asthma"),
        ("(has asthma", "has asthma"),
        ("takes <5 mg a day", "takes <5 mg a day"),
        ("<b>", None),
    ],
)
def test_markup_and_unmatched_brackets_leave_a_passage_s_edges(passage: str, kept: str | None):
    from labeling.align.edges import trim_passage

    text = f"Note: {passage} end"
    edges = trim_passage(text, 6, 6 + len(passage))
    assert (text[edges[0] : edges[1]] if edges else None) == kept
