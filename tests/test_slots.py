"""Slots a writer left in brackets: filled from the persona, unbracketed, or kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fakes import ScriptedBackend
from planned_fakes import writer

from gen.core.errors import ConfigError
from gen.core.pack_generation import GenerationPrompts
from gen.core.packs import load_language_pack
from gen.core.records import Span, check_spans
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from gen.core.yamlio import load_model
from gen.generate.disclosures import DisclosureSpec
from gen.generate.options import DocumentsOptions
from gen.generate.plan_spec import PlanSpec
from gen.generate.postprocess import template_slots
from gen.generate.run import run as generate_run
from gen.generate.slots import UNBRACKETED, fill_slots
from labeling.persona_pii import SOURCE
from labeling.planned import SOURCE as PLANNED

PERSONA = {
    "name": "Zoë Ångström",
    "employer": "Acme Ltd",
    "city": "Leeds",
    "doctor": "Dr. Ian Moss",
    "phone": None,
}
EN = load_language_pack("en").generation.slots


def spanned(text: str, spans: list[Span]) -> list[tuple[str, str]]:
    return [(text[span.start : span.end], span.label) for span in spans]


def test_a_persona_slot_gets_the_value_and_an_exact_span_of_its_label() -> None:
    filled = fill_slots("Patient:\n[Patient Name]\n[Company Name], [Insert City]", PERSONA, EN)
    assert filled.text == "Patient:\nZoë Ångström\nAcme Ltd, Leeds"
    assert spanned(filled.text, filled.spans) == [
        ("Zoë Ångström", "PERSON"),
        ("Acme Ltd", "ORGANIZATION"),
        ("Leeds", "LOCATION"),
    ]
    assert {span.source for span in filled.spans} == {SOURCE}
    assert filled.filled == [
        {"slot": "[Patient Name]", "field": "name"},
        {"slot": "[Company Name]", "field": "employer"},
        {"slot": "[Insert City]", "field": "city"},
    ]
    check_spans(filled.text, filled.spans)


def test_a_doctors_title_stays_outside_the_span() -> None:
    filled = fill_slots("Seen by [Doctor's Name].", PERSONA, EN)
    assert spanned(filled.text, filled.spans) == [("Ian Moss", "PERSON")]
    assert filled.text == "Seen by Dr. Ian Moss."


def test_a_value_left_in_brackets_loses_them_without_a_span() -> None:
    text = "Dear [Tammy Ward], on [January 10, 2023] we saw [250 patients] in [30 days]."
    filled = fill_slots(text, PERSONA, EN)
    assert filled.text == "Dear Tammy Ward, on January 10, 2023 we saw 250 patients in 30 days."
    assert filled.spans == []
    assert {slot["field"] for slot in filled.filled} == {UNBRACKETED}


@pytest.mark.parametrize(
    "slot",
    [
        "[Recipient's Name]",
        "[Date]",
        "[Insert Wages and Salaries]",
        "[Calculate Tax Due]",
        "[Your Position]",
        "[Your Name]",
        "[Your Address]",
        "[Description of Services Provided]",
        "[Invoice Number 2]",
        "[Phone Number]",
    ],
)
def test_a_gap_or_a_slot_of_an_empty_field_stays_flagged(slot: str) -> None:
    text = f"To {slot}, thanks."
    filled = fill_slots(text, PERSONA, EN)
    assert (filled.text, filled.filled) == (text, [])
    assert template_slots(filled.text) == [slot]


def test_spans_stay_exact_around_odd_unicode_and_existing_spans_move() -> None:
    text = "🎉 Zoë wrote [Full Name] ✍️ for 🏥 Acme Ltd and [Name] 👍."
    acme = text.index("Acme Ltd")
    inline = Span(acme, acme + len("Acme Ltd"), "ORGANIZATION", "llm_inline")
    filled = fill_slots(text, PERSONA, EN, [inline])
    assert filled.text == "🎉 Zoë wrote Zoë Ångström ✍️ for 🏥 Acme Ltd and Zoë Ångström 👍."
    assert spanned(filled.text, filled.spans) == [
        ("Zoë Ångström", "PERSON"),
        ("Acme Ltd", "ORGANIZATION"),
        ("Zoë Ångström", "PERSON"),
    ]
    check_spans(filled.text, filled.spans)


def test_a_planned_facts_placeholder_is_no_slot() -> None:
    text = "Zoë [[FACT_2]] and [[FACT_3]]."
    assert fill_slots(text, PERSONA, EN).text == text


def test_a_slot_inside_an_existing_span_is_left_alone() -> None:
    text = "Signed [Full Name]"
    inline = Span(7, len(text), "PERSON", "llm_inline")
    assert fill_slots(text, PERSONA, EN, [inline]).text == text


def test_italian_slot_words() -> None:
    words = load_language_pack("it").generation.slots
    persona = {"name": "Giulia Rossi", "address": "Via Roma 3, Lodi", "employer": "Comune di Lodi"}
    text = (
        "[Nome completo]\n[indirizzo]\n[Inserisci il datore di lavoro]\n[Codice fiscale]\n[Nome 1]"
    )
    filled = fill_slots(text, persona, words)
    assert (
        filled.text == "Giulia Rossi\nVia Roma 3, Lodi\n[Inserisci il datore di lavoro]\n"
        "[Codice fiscale]\n[Nome 1]"
    )
    assert spanned(filled.text, filled.spans) == [
        ("Giulia Rossi", "PERSON"),
        ("Via Roma 3, Lodi", "ADDRESS"),
    ]
    filled = fill_slots("[Inserisci datore di lavoro]", persona, words)
    assert filled.filled == [{"slot": "[Inserisci datore di lavoro]", "field": "employer"}]


def bad_pack(tmp_path: Path, slots: str) -> str:
    text = Path("prompts/en/generation.yaml").read_text(encoding="utf-8")
    path = tmp_path / "generation.yaml"
    path.write_text(text[: text.index("slots:")] + slots, encoding="utf-8")
    with pytest.raises(ConfigError) as error:
        load_model(path, GenerationPrompts)
    return str(error.value)


def test_an_unknown_persona_field_is_refused_in_one_line(tmp_path: Path) -> None:
    message = bad_pack(tmp_path, "slots:\n  fields:\n    shoe_size: [shoe size]\n")
    assert "generation.yaml" in message and "slots" in message
    assert "'shoe_size' is not a persona field" in message and "\n" not in message


def test_a_slot_word_under_two_fields_is_refused(tmp_path: Path) -> None:
    message = bad_pack(tmp_path, "slots:\n  fields:\n    name: [Name]\n    doctor: [name]\n")
    assert "slot word 'name' is under both name and doctor" in message


def test_documents_get_their_slots_filled_before_the_facts_are_placed(tmp_path: Path) -> None:
    letter = writer(lambda number, fact: fact)
    backend = ScriptedBackend(lambda request: f"From [Patient Name].\n\n{letter(request)}")
    paths = RunPaths(tmp_path)
    plan = PlanSpec(language="en", seed=3, disclosures=DisclosureSpec())
    generate_run(paths, DocumentsOptions(plan, n=4), backend)
    records = RecordTable(paths.documents).read()
    assert len(records) == 4
    for record in records:
        check_spans(record.text, record.spans, record_id=record.id)
        assert "[Patient Name]" not in record.text and "unfilled_slot" not in record.flags
        assert record.meta["slots_filled"] == [{"slot": "[Patient Name]", "field": "name"}]
        [signed] = [span for span in record.spans if span.source == SOURCE]
        assert record.text[signed.start : signed.end] == record.persona["name"]
        assert record.text.startswith(f"From {record.persona['name']}.")
        planned = [span for span in record.spans if span.source == PLANNED]
        facts = record.meta.get("disclosures", {}).get("planned", [])
        for span, fact in zip(planned, facts, strict=True):
            assert record.text[span.start : span.end] == fact["text"]
            assert (fact["start"], fact["end"]) == (span.start, span.end)
    manifest = json.loads(paths.manifest("documents").read_text())
    [entry] = next(iter(manifest["plans"].values()))["runs"]
    assert entry["slots_filled"] == {"name": 4}
