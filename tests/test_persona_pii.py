from __future__ import annotations

from gen.core.records import check_spans
from labeling.persona_pii import FIELD_LABELS, persona_spans

PERSONA = {
    "name": "Rose Brown",
    "first_name": "Rose",
    "last_name": "Brown",
    "gender": "female",
    "birth_date": "March 04, 1980",
    "age": "45",
    "city": "Port Ellen",
    "address": "12 Harbour Road, Port Ellen",
    "employer": "Brown & Sons Ltd",
    "job": "nurse",
    "doctor": "Dr. Ian Moss",
    "email": "rose.brown@example.org",
    "phone": "+44 20 7946 0018",
}


def found(text: str, persona: dict[str, str] | None = PERSONA) -> list[tuple[str, str]]:
    spans = persona_spans(text, persona)
    check_spans(text, spans)
    assert all(span.source == "faker" for span in spans)
    return [(text[span.start : span.end], span.label) for span in spans]


def test_full_name_is_one_span_and_parts_are_found_alone() -> None:
    text = "Rose Brown was seen today. Ms. Brown reports that Rose sleeps well."
    assert found(text) == [("Rose Brown", "PERSON"), ("Brown", "PERSON"), ("Rose", "PERSON")]


def test_matching_ignores_case_but_not_word_boundaries() -> None:
    text = "ROSE BROWN, born March 04, 1980. Browning and Roseanne are not her."
    assert found(text) == [("ROSE BROWN", "PERSON"), ("March 04, 1980", "DATE_OF_BIRTH")]


def test_a_lone_name_in_lower_case_is_an_ordinary_word() -> None:
    text = "She planted a rose near the brown fence; Rose liked it."
    assert found(text) == [("Rose", "PERSON")]


def test_longest_value_wins_and_spans_never_overlap() -> None:
    text = "Write to rose.brown@example.org or visit 12 Harbour Road, Port Ellen."
    assert found(text) == [
        ("rose.brown@example.org", "EMAIL"),
        ("12 Harbour Road, Port Ellen", "ADDRESS"),
    ]


def test_every_pii_field_gets_its_label_and_a_title_stays_outside() -> None:
    text = (
        "Employer: Brown & Sons Ltd. City: Port Ellen. Phone: +44 20 7946 0018. "
        "Doctor: Dr. Ian Moss. Job: nurse, female, 45."
    )
    assert found(text) == [
        ("Brown & Sons Ltd", "ORGANIZATION"),
        ("Port Ellen", "LOCATION"),
        ("+44 20 7946 0018", "PHONE"),
        ("Ian Moss", "PERSON"),
    ]
    assert {"gender", "age", "job"}.isdisjoint(FIELD_LABELS)


def test_non_ascii_names_respect_word_boundaries() -> None:
    persona = {
        "name": "Nicolò Gallà",
        "first_name": "Nicolò",
        "last_name": "Gallà",
        "city": "Forlì",
    }
    text = "Il sig. Nicolò Gallà vive a Forlì; Gallàrdi e Nicolòsi sono altri. NICOLÒ ha firmato."
    assert found(text, persona) == [
        ("Nicolò Gallà", "PERSON"),
        ("Forlì", "LOCATION"),
        ("NICOLÒ", "PERSON"),
    ]


def test_no_persona_means_no_spans() -> None:
    assert found("Rose Brown", None) == []
    assert found("Rose Brown", {"name": "", "first_name": "R"}) == []


def test_title_initials_and_surname_forms_are_found() -> None:
    text = "Ms Brown called. R. Brown signed; Brown R. paid. Dr Moss and I. Moss agree, Moss too."
    assert found(text) == [
        ("Brown", "PERSON"),
        ("R. Brown", "PERSON"),
        ("Brown R.", "PERSON"),
        ("Moss", "PERSON"),
        ("I. Moss", "PERSON"),
        ("Moss", "PERSON"),
    ]


def test_a_name_inside_an_e_mail_or_url_is_not_a_person() -> None:
    text = "Write to Rose.Brown@mail.example.org or see https://example.org/Rose-Brown today, Rose."
    assert found(text) == [("Rose", "PERSON")]


def test_the_doctor_s_title_is_left_out_of_the_person_span() -> None:
    persona = {"doctor": "Dott.ssa Giulia Serra", "last_name": "Bianchi"}
    text = "Visitata dalla Dott.ssa Giulia Serra; la dottoressa Giulia Serra conferma."
    spans = persona_spans(text, persona, titles=("Dott.", "Dott.ssa"))
    check_spans(text, spans)
    assert [text[s.start : s.end] for s in spans] == ["Giulia Serra", "Giulia Serra"]
    # without the pack's titles a leading abbreviation with a dot is taken for a title too
    assert [text[s.start : s.end] for s in persona_spans(text, persona)] == [
        "Giulia Serra",
        "Giulia Serra",
    ]
