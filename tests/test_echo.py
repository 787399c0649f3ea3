"""The echo check: what of the prompt a written document holds, from the packs' own data."""

from __future__ import annotations

import shutil
from functools import cache
from pathlib import Path

import pytest

from gen.core.errors import ConfigError
from gen.core.packs import load_language_pack, prompts_root
from gen.core.record_files import read_record_file
from gen.generate.echo import (
    INSTRUCTION,
    OPENING,
    PLACEHOLDER_PERSON,
    REMARK,
    SLOT,
    WORD_COUNT,
    EchoCheck,
)

GOLD = sorted((Path(__file__).resolve().parents[1] / "bench" / "gold").glob("gold-*.jsonl"))
LANGUAGES = ("en", "it", "de", "es", "fr")


@cache
def check(language: str) -> EchoCheck:
    return EchoCheck.of(load_language_pack(language), facts=True, shapes=True)


def kinds(language: str, text: str, prompt: str = "") -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for echo in check(language).find(text, prompt):
        found.setdefault(echo.kind, []).append(echo.text)
    return found


BIRTH_CERTIFICATE = (
    "Gregory Strong arrived from Sudan as a refugee in 1984.\n"
    "This document includes the necessary facts about Gregory Strong, with the words of each "
    "fact kept as they are (change only the person or the tense where the document needs it)."
)


@pytest.mark.parametrize(
    ("language", "text", "kind", "passage"),
    [
        ("en", BIRTH_CERTIFICATE, INSTRUCTION, "with the words of each fact kept as they are"),
        ("en", BIRTH_CERTIFICATE, REMARK, "This document includes the necessary"),
        ("en", "Seen on [Insert Date] at [Insert Time] by the GP.", SLOT, "[Insert Date]"),
        ("en", "Sure! In this document, Mr Hale's review is set out.", OPENING, "Sure"),
        ("en", "Referral letter [230 Words]\nDear Dr Okafor,", WORD_COUNT, "[230 Words]"),
        ("en", "The letter runs to 230 Words (word count: 230).", WORD_COUNT, "word count: 230"),
        ("en", "Reviewed by Dr. Jane Smith, consultant.", PLACEHOLDER_PERSON, "Jane Smith"),
        ("en", "Feel free to adjust the content as needed.", REMARK, "Feel free to adjust"),
        ("en", "It is general information for the public, as leaflets are.", INSTRUCTION, ""),
        ("it", "Questo documento fittizio ma verosimile descrive la tessera.", REMARK, ""),
        ("it", "Certo! Ecco il documento richiesto:\nVerbale", OPENING, "Certo"),
        ("it", "Firmato: Mario Rossi, ufficiale di stato civile.", PLACEHOLDER_PERSON, ""),
        (
            "it",
            "con le parole di ciascun fatto così come sono, come richiesto.",
            INSTRUCTION,
            "con le parole di ciascun fatto così come sono",
        ),
        ("de", "Hierbei handelt es sich um einen fiktiven Rundbrief.", REMARK, ""),
        ("de", "Unterschrift: Max Mustermann", PLACEHOLDER_PERSON, "Max Mustermann"),
        ("de", "Befund (etwa 120 Wörter)", WORD_COUNT, "(etwa 120 Wörter)"),
        ("es", "¡Claro! Aquí tienes el documento solicitado.", OPENING, "¡Claro"),
        ("es", "Informe médico [230 palabras]", WORD_COUNT, "[230 palabras]"),
        ("es", "Este documento es ficticio y verosímil.", REMARK, ""),
        ("fr", "Bien sûr ! Voici le document demandé.", OPENING, "Bien sûr"),
        ("fr", "Fait à Lyon par Jean Dupont, officier d'état civil.", PLACEHOLDER_PERSON, ""),
        ("fr", "Date : [Insérer la date]", SLOT, "[Insérer la date]"),
    ],
)
def test_each_kind_of_echo_is_found(language: str, text: str, kind: str, passage: str) -> None:
    found = kinds(language, text)
    assert kind in found, found
    assert not passage or passage in " ".join(found[kind])


def test_a_person_the_prompt_named_is_no_placeholder() -> None:
    text = "Reviewed by Dr. Jane Smith, consultant, with John Doe's consent."
    assert kinds("en", text, prompt="... about John Doe. Dr. Jane Smith ...") == {}
    found = kinds("en", text, prompt="... about Ann Lee ...")
    assert set(found) == {PLACEHOLDER_PERSON}
    assert sorted(found[PLACEHOLDER_PERSON]) == ["Jane Smith", "John Doe"]


def test_what_a_real_document_says_is_no_echo() -> None:
    text = (
        "This document certifies that Ann Lee was baptised at St Mary's on 3 May 2001.\n"
        "Here is the summary of the meeting: the plan stays as it is. Of course the "
        "clinic will write. The leaflet is about 500 words of advice. See box [x] and ref [12]."
    )
    assert kinds("en", text) == {}
    assert kinds("en", "Of course, the clinic will write to you.\nKind regards") == {
        OPENING: ["Of course"]
    }  # only at the start is it a reply's opening


def test_a_run_of_instruction_words_is_an_echo_only_from_the_fixed_text() -> None:
    """The facts and the persona's details are in the prompt too, and belong in the text:
    only the words between the placeholders count."""
    text = "Maria Rossi is 54 years old, was born on 02/03/1971, lives in Leeds and works at Acme."
    assert kinds("en", text, prompt=text) == {}


def test_nothing_is_found_in_the_gold_documents() -> None:
    assert len(GOLD) >= 8
    for path in GOLD:
        for record in read_record_file(path):
            assert check(record.language).find(record.text, "") == [], (path.name, record.id)


def test_every_pack_has_its_echo_words() -> None:
    for language in LANGUAGES:
        words = check(language).words
        assert words.openings and words.remarks and words.word_counts
        assert words.placeholder_people


def test_a_bad_echo_pattern_is_one_line_naming_the_file_and_key(tmp_path: Path) -> None:
    root = tmp_path / "prompts"
    shutil.copytree(prompts_root(None), root)
    generation = root / "en" / "generation.yaml"
    text = generation.read_text(encoding="utf-8")
    generation.write_text(text.replace('    - "sure\\\\b"', '    - "sure(\\\\b"', 1))
    with pytest.raises(ConfigError, match=r"generation\.yaml.*echo\.openings.*not a valid"):
        load_language_pack("en", root)
