import pytest

from gen.core.packs import load_language_pack
from gen.generate.checks import refusal
from gen.generate.postprocess import (
    clean_document,
    cut_unfinished,
    strip_closing,
    strip_fences,
    strip_markdown,
    strip_preamble,
    template_slots,
)

PREFIX = "Sure! Here's the generated document:"
EN = load_language_pack("en").generation.chatter
IT = load_language_pack("it").generation.chatter
DE = load_language_pack("de").generation.chatter
ES = load_language_pack("es").generation.chatter
FR = load_language_pack("fr").generation.chatter


def test_echoed_prefix_is_removed() -> None:
    cleaned = clean_document(
        f"{PREFIX}\nMedical report for Anna.", echoes=[PREFIX], truncated=False, chatter=EN
    )
    assert cleaned.text == "Medical report for Anna."
    assert cleaned.removed == ["echo"]


def test_preamble_and_fence_and_closing_remark() -> None:
    raw = (
        "Certainly! Here is the document:\n```markdown\nARREST REPORT\nSuspect: Tom.\n```\n"
        "I hope this helps!"
    )
    cleaned = clean_document(raw, echoes=[PREFIX], truncated=False, chatter=EN)
    assert cleaned.text == "ARREST REPORT\nSuspect: Tom."
    assert cleaned.removed == ["preamble", "fence"]


def test_italian_preamble() -> None:
    text, hit = strip_preamble("Ecco il documento richiesto:\nRicetta medica", IT)
    assert hit and text == "Ricetta medica"


def test_german_preamble_closing_and_refusal() -> None:
    text, hit = strip_preamble("Gerne! Hier ist das gewünschte Dokument:\nArztbrief", DE)
    assert hit and text == "Arztbrief"
    letter = "Sicherheitsunterweisung für alle Mitarbeitenden.\nDatum: 03.04.2024"
    assert strip_preamble(letter, DE) == (letter, False)
    body = "Patient: Herr Wendt.\n" * 10
    text, hit = strip_closing(body + "Hinweis: Alle Namen in diesem Dokument sind erfunden.", DE)
    assert hit and text == body.rstrip("\n")
    own_note = body + "Hinweis: Bitte bringen Sie Ihre Versichertenkarte mit."
    assert strip_closing(own_note, DE) == (own_note, False)
    assert refusal("Es tut mir leid, aber ich kann dieses Dokument nicht erstellen.", DE)
    assert refusal("Als KI-Sprachmodell kann ich keine Gutachten schreiben.", DE)
    assert not refusal("Es tut mir leid, aber ich kann am Freitag nicht kommen.", DE)
    assert not refusal("Er arbeitet als KI-Entwickler in Leipzig.", DE)


def test_spanish_preamble_and_closing() -> None:
    text, hit = strip_preamble("¡Claro! Aquí tienes el informe que me pediste:\nReceta médica", ES)
    assert hit and text == "Receta médica"
    body = "Paciente: Ana.\n" * 10
    text, hit = strip_closing(body + "Espero que te sirva. Si necesitas algún cambio, dímelo.", ES)
    assert hit and text == body.rstrip("\n")


def test_spanish_refusals_and_a_letter_that_only_declines() -> None:
    answer = "Lo siento, pero no puedo generar este tipo de documento con datos de salud."
    assert refusal(answer, ES) == "Lo siento, pero no puedo generar este"
    assert refusal("Como modelo de lenguaje, no invento historias clínicas.", ES)
    assert refusal("I'm sorry, but I can't help with that.", ES)
    letter = "Estimada Sra. Ruiz: lo siento, pero no puedo asistir a la junta del jueves."
    assert refusal(letter, ES) is None


def test_french_chatter_goes_and_a_letter_s_own_closing_stays() -> None:
    text, hit = strip_preamble("Bien sûr ! Voici le compte rendu demandé :\nCompte rendu", FR)
    assert hit and text == "Compte rendu"
    body = "Patiente : Mme Roux.\n" * 10
    text, hit = strip_closing(body + "J'espère que ce document vous sera utile !", FR)
    assert hit and text == body.rstrip("\n")
    text, hit = strip_closing(body + "N'hésitez pas à me demander des modifications.", FR)
    assert hit and text == body.rstrip("\n")
    letter = body + "N'hésitez pas à me contacter au 06 12 34 56 78.\nJeanne Roux"
    assert strip_closing(letter, FR) == (letter, False)


@pytest.mark.parametrize(
    ("text", "refused"),
    [
        ("Je suis désolé, mais je ne peux pas rédiger ce type de document.", True),
        ("Désolée, mais je ne suis pas en mesure de générer un tel contenu.", True),
        ("En tant qu'IA, je ne peux pas inventer de données médicales.", True),
        ("I'm sorry, but I can't generate that document.", True),
        ("Je suis désolée, mais je ne peux pas venir à la réunion de jeudi.", False),
        ("Je ne peux pas fournir ce justificatif avant lundi.", False),
        ("En tant qu'assistante sociale, je suis Mme Roux depuis 2021.", False),
    ],
)
def test_french_refusals_and_letters_that_only_look_like_one(text: str, refused: bool) -> None:
    assert (refusal(text, FR) is not None) is refused


def test_a_document_that_merely_starts_with_here_is_kept_when_no_colon_line() -> None:
    text = "Here in Springfield the council met on Monday and discussed the budget for roads"
    assert strip_preamble(text, EN) == (text, False)


def test_closing_remark_only_at_the_end() -> None:
    body = "Patient: Anna.\n" * 10
    text, hit = strip_closing(body + "Note: this document is fictional.", EN)
    assert hit and text == body.rstrip("\n")
    early = "Note: fasting required.\n" + body
    assert strip_closing(early, EN) == (early, False)


def test_unfinished_sentence_is_cut_only_when_truncated() -> None:
    raw = "The patient is stable. The next visit is on"
    assert clean_document(raw, echoes=[], truncated=False, chatter=EN).text == raw
    assert clean_document(raw, echoes=[], truncated=True, chatter=EN).text == (
        "The patient is stable."
    )
    assert cut_unfinished("Done.") == ("Done.", False)


def test_an_answer_that_is_one_unfinished_sentence_is_not_cut_to_nothing() -> None:
    raw = "\nBrian Andersen, 58, lives in Port Stevenberg and works at Mccoy, Galloway"
    cleaned = clean_document(raw, echoes=[], truncated=True, chatter=EN)
    assert cleaned.text == raw.strip() and cleaned.removed == []


def test_small_fence_inside_a_document_is_left_alone() -> None:
    text = "A long introduction that explains the configuration. " * 5 + "\n```\nx=1\n```\nEnd."
    assert strip_fences(text) == (text, False)


def test_markdown_marks_go_and_their_words_stay() -> None:
    raw = (
        "## Blood test report\n---\n**Patient:** Anna Rossi\n- **Hemoglobin:** 13.2 g/dL\n"
        "Note __urgent__ follow-up; the ratio 2**3 stays.\n***\nEnd of report."
    )
    cleaned = clean_document(raw, echoes=[], truncated=False, chatter=EN)
    assert cleaned.text == (
        "Blood test report\nPatient: Anna Rossi\n- Hemoglobin: 13.2 g/dL\n"
        "Note urgent follow-up; the ratio 2**3 stays.\nEnd of report."
    )
    assert cleaned.removed == ["markdown"]
    assert strip_markdown("- item\n* other item\n[x] done") == (
        "- item\n* other item\n[x] done",
        False,
    )


def test_slots_left_for_someone_to_fill_are_found_once_each_not_boxes_or_references() -> None:
    text = (
        "Dear [Recipient's Name],\n[x] Yes  [ ] No  [X] Maybe, as in [12].\n"
        "Date: [Inserisci la data corrente]\nSigned: [Recipient's Name]"
    )
    assert template_slots(text) == ["[Recipient's Name]", "[Inserisci la data corrente]"]
    assert template_slots("Checked [x] and [ ], see [3] and [a].") == []
