"""Which lines of a page are kept: pure rules, no network."""

from __future__ import annotations

import re

import pytest

from gen.core.packs import default_prompts_dir
from scraping.wikipedia.client import load_config
from scraping.wikipedia.paragraphs import Block, PageFilter, paragraphs, person_reason

RULES = PageFilter(
    skip_sections=["See also"],
    biography_sections=["Early life"],
    person_categories=[re.compile(r"^Category:Living people$")],
    person_lead=[re.compile(r"^[^(\n]{1,120}\(born ")],
    citation_markers=[re.compile(r"\[\d+\]"), re.compile(r"\[citation needed\]")],
    min_paragraph_chars=20,
)
LONG = "A sentence that is long enough to keep."


def test_subsections_of_dropped_sections_are_dropped_too() -> None:
    blocks = [
        Block((), LONG),
        Block(("See also",), LONG),
        Block(("See also", "More"), LONG),
        Block(("history", "early life"), LONG),  # case-insensitive, any level
        Block(("Treatment",), LONG),
    ]
    reasons = [p.reason for p in paragraphs(blocks, RULES)]
    assert reasons == [None, "skipped_section", "skipped_section", "biography_section", None]


def test_indexes_count_every_line_so_ids_survive_rule_changes() -> None:
    blocks = [Block((), f"short\n\n{LONG}\n   \n{LONG}[1]")]
    loose = paragraphs(blocks, RULES.model_copy(update={"min_paragraph_chars": 1}))
    strict = paragraphs(blocks, RULES)
    assert [p.index for p in loose] == [p.index for p in strict] == [0, 1, 2]
    assert [p.reason for p in strict] == ["too_short", None, None]
    assert strict[2].text == LONG


def test_citations_leave_no_double_spaces() -> None:
    (paragraph,) = paragraphs([Block((), f"{LONG} [citation needed] Then more text.")], RULES)
    assert paragraph.text == f"{LONG} Then more text."


def test_person_by_category_or_lead() -> None:
    assert person_reason(["Category:Living people"], "", RULES) == (
        "person_category: Category:Living people"
    )
    assert person_reason([], "Ann Lee (born 1 May 1950) is a writer.", RULES)
    assert person_reason(["Category:Fevers"], "Lantern fever (1820s) is an illness.", RULES) is None


@pytest.mark.parametrize(
    ("language", "lead", "is_person"),
    [
        ("it", "Anna Neri (Borgo Alto, 12 marzo 1900 – Lago Basso, 3 aprile 1980) è stata", True),
        ("it", "Piero Blu (Colle Verde, 1931) è un pittore immaginario.", True),
        ("it", "Rita Gialli (nata a Pianura nel 1950) è una scrittrice.", True),
        ("it", "La febbre dei prati (1846-1853) fu un'epidemia immaginaria.", False),
        ("it", "Il furto di nuvole è un reato immaginario (art. 12).", False),
        ("de", "Anna Schwarz (* 12. März 1900 in Bergdorf; † 3. April 1980 in Seestadt) war", True),
        ("de", "Peter Blau (* 1931) ist ein erfundener Maler.", True),
        ("de", "Rita Grün (geb. 1950 in Talheim) ist eine erfundene Schriftstellerin.", True),
        ("de", "Das Wiesenfieber (1846–1853) war eine erfundene Seuche.", False),
        ("de", "Der Wolkendiebstahl ist eine erfundene Straftat (§ 12 Abs. 1).", False),
        ("es", "Ana Prado (Villa Alta, 12 de marzo de 1900-Lago, 3 de abril de 1980) fue", True),
        ("es", "Pedro Azul (Cerro Verde, 1931) es un pintor imaginario.", True),
        ("es", "Rita Gualda (nacida en Llanura en 1950) es una escritora.", True),
        ("es", "Luis Marrón (n. 1962) es un juez imaginario.", True),
        ("es", "La fiebre de los prados (1846-1853) fue una epidemia imaginaria.", False),
        ("es", "El robo de nubes es un delito imaginario (art. 12).", False),
        ("fr", "Jeanne Roux, née le 1er mars 1900 à Lyon et morte en 1980, est une", True),
        ("fr", "Jean Roux (né en 1931 à Nancy) est un peintre imaginaire.", True),
        ("fr", "Paul Blanc (Colmar, 3 mars 1900 – Sète, 1980) est un juriste imaginaire.", True),
        ("fr", "Le Mouvement des prés, né en 1970 à Paris, est un courant imaginaire.", False),
        ("fr", "La fièvre des prés (1846-1853) fut une épidémie imaginaire.", False),
        ("en", "Jane Roe (born 3 May 1950) is an invented writer.", True),
        ("en", "John Roe (12 March 1900 – 3 April 1980) was an invented judge.", True),
        ("en", "Mark Doe (March 12, 1900 – April 3, 1980) was an invented judge.", True),
        ("en", "The meadow fever (1846–1853) was an invented epidemic.", False),
        ("en", "Marsh cough is an invented condition (see below).", False),
    ],
)
def test_shipped_lead_patterns(language: str, lead: str, is_person: bool) -> None:
    rules = load_config(default_prompts_dir(), language).filters
    assert (person_reason([], lead, rules) is not None) is is_person


def test_french_citation_markers_and_sections_go() -> None:
    rules = load_config(default_prompts_dir(), "fr").filters.model_copy(
        update={"min_paragraph_chars": 20}
    )
    text = f"{LONG}[1] Une phrase[réf. nécessaire] de plus[N 2], encore une[Qui ?]."
    blocks = [Block((), text), Block(("Notes et références",), LONG), Block(("Biographie",), LONG)]
    kept, notes, life = paragraphs(blocks, rules)
    assert kept.text == f"{LONG} Une phrase de plus, encore une."
    assert (notes.reason, life.reason) == ("skipped_section", "biography_section")
