"""Personas written in the pack's language: every value a prompt can name, 1,000 personas per
shipped pack, and the grammar of the prompt following the persona's gender."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from faker.providers.job.en_US import Provider as EnglishJobs

from gen.core.grammar import GenderedForms, gendered_form, gendered_forms, slash_form
from gen.core.pack_persona import PersonaConfig, PlaceNames
from gen.core.packs import LanguagePack, default_prompts_dir, load_language_pack, pack_codes
from gen.core.records import PERSONA_FIELDS
from gen.generate.personas import _place_name, draw_persona
from gen.generate.plan import prompt_parts
from gen.packs.english import native_words, words_of

ROOT = Path(__file__).resolve().parents[1]
PERSONAS = 1000
#: Every pack of the repository: a new one is checked here without a change.
SHIPPED = tuple(pack_codes(default_prompts_dir()))

#: What gives an English value away: Faker's English job titles, company suffixes and
#: English gender words.
ENGLISH = words_of(EnglishJobs.jobs) | {
    "group", "inc", "llc", "ltd", "plc", "and", "sons", "female", "male", "woman", "man",
}  # fmt: skip
#: Words of the language that are English words too, beyond those of the locale's own Faker
#: names, places and job titles (Italian "fine", end, in the town "Torre di Fine"; French
#: "civil" in "génie civil", "union" in the association "Trait d'Union").
NATIVE_TOO = {
    "it": {"barista"},
    "de": {"controller", "hotel", "journalist", "park", "professor"},
    "es": {"hospital", "hotel", "rural", "doctor", "local"},
    "fr": {"civil", "union"},
}


@pytest.fixture(scope="module", params=SHIPPED)
def pack(request: pytest.FixtureRequest) -> LanguagePack:
    return load_language_pack(request.param)


@pytest.fixture(scope="module")
def personas(pack: LanguagePack) -> list:
    return [draw_persona(pack.language.faker_locale, pack.persona, s) for s in range(PERSONAS)]


def date_pattern(config: PersonaConfig) -> re.Pattern[str]:
    """A regular expression that matches the dates of `config`'s formats and nothing else."""
    days = "|".join(map(re.escape, config.day_names.values()))
    fields = {
        "day": rf"(?:[1-9]|[12]\d|3[01]{'|' + days if days else ''})",
        "dd": r"(?:0[1-9]|[12]\d|3[01])",
        "month": r"(?:[1-9]|1[0-2])",
        "mm": r"(?:0[1-9]|1[0-2])",
        "month_name": "(?:" + "|".join(map(re.escape, config.month_names)) + ")",
        "year": r"(?:19|20)\d\d",
    }
    return re.compile(
        "|".join(re.escape(f).replace(r"\{", "{").replace(r"\}", "}").format(**fields)
                 for f in config.birth_date_formats)
    )  # fmt: skip


def test_every_value_is_filled_and_free_of_slash_forms(personas) -> None:
    for persona in personas:
        assert set(persona.values) == set(PERSONA_FIELDS)
        for field, value in persona.values.items():
            assert value.strip(), (field, persona)
            assert slash_form(value) is None, (field, value)


@pytest.mark.parametrize(
    "code",
    [c for c in SHIPPED if not load_language_pack(c).language.faker_locale.startswith("en")],
)
def test_no_english_word_in_a_persona_value_of_a_non_english_pack(code: str) -> None:
    pack = load_language_pack(code)
    allowed = NATIVE_TOO.get(code, set()) | native_words(pack.language.faker_locale)
    found = Counter(
        (field, word)
        for seed in range(PERSONAS)
        for field, value in draw_persona(
            pack.language.faker_locale, pack.persona, seed
        ).values.items()
        for word in words_of([value]) & ENGLISH - allowed
    )
    assert not found, found.most_common(10)


def test_the_check_would_see_faker_s_english_fallback() -> None:
    config = load_language_pack("it").persona.model_copy(update={"jobs": ()})
    jobs = [draw_persona("it_IT", config, seed).values["job"] for seed in range(50)]
    assert sum(bool(words_of([job]) & ENGLISH) for job in jobs) >= 45


def test_birth_dates_are_written_in_the_pack_s_formats(pack, personas) -> None:
    pattern = date_pattern(pack.persona)
    shapes = Counter()
    for persona in personas:
        birth_date = persona.values["birth_date"]
        assert pattern.fullmatch(birth_date), birth_date
        shapes[any(ch.isalpha() for ch in birth_date)] += 1
    assert set(shapes) == {True, False}  # both formats drawn


def test_italian_dates_name_italian_months_and_the_first_as_ordinal() -> None:
    config = load_language_pack("it").persona
    dates = [draw_persona("it_IT", config, seed).values["birth_date"] for seed in range(3000)]
    assert any(re.fullmatch(r"\d{1,2} marzo \d{4}", d) for d in dates)
    assert any(d.startswith("1º ") for d in dates)
    assert not any(re.match(r"1 [a-z]", d) for d in dates)
    assert not re.search(r"January|March|May", " ".join(dates))


def test_gendered_values_follow_the_persona_and_the_doctor(pack, personas) -> None:
    config = pack.persona
    jobs = {form: job for job in config.jobs for form in gendered_forms(job)}
    genders = Counter()
    for persona in personas:
        assert persona.values["gender"] == config.gender.form(persona.gender)
        job = jobs[persona.values["job"]]
        if isinstance(job, GenderedForms):
            assert persona.values["job"] == job.form(persona.gender)
        title = gendered_form(config.doctor_title, persona.doctor_gender)
        assert persona.values["doctor"].startswith(title + " ")
        genders[persona.gender, persona.doctor_gender] += 1
    assert len(genders) == 4  # the doctor's gender is drawn apart from the persona's


def test_italian_doctors_are_dott_or_dott_ssa_by_their_gender() -> None:
    config = load_language_pack("it").persona
    for seed in range(200):
        persona = draw_persona("it_IT", config, seed)
        title = persona.values["doctor"].split()[0]
        assert title == {"female": "Dott.ssa", "male": "Dott."}[persona.doctor_gender]


def test_german_personas_write_german_dates_titles_and_female_job_titles() -> None:
    config = load_language_pack("de").persona
    personas = [draw_persona("de_DE", config, seed) for seed in range(300)]
    dates = " ".join(p.values["birth_date"] for p in personas)
    assert re.search(r"\b\d{2}\.\d{2}\.\d{4}\b", dates)
    assert re.search(r"\b\d{1,2}\. März \d{4}\b", dates)
    for persona in personas:
        title = {"female": "Frau Dr. med. ", "male": "Herr Dr. med. "}[persona.doctor_gender]
        assert persona.values["doctor"].startswith(title)
    women = {p.values["job"] for p in personas if p.gender == "female"}
    men = {p.values["job"] for p in personas if p.gender == "male"}
    assert "Pfleger" not in women and not women & {"Architekt", "Bäcker", "Hausarzt"}
    assert sum(job.endswith("in") or "frau" in job for job in women) > 0.8 * len(women)
    assert not men & women - {"Fachkraft für Lagerlogistik"}


def test_the_packs_list_enough_job_titles() -> None:
    assert len(load_language_pack("it").persona.jobs) >= 150
    assert len(load_language_pack("de").persona.jobs) >= 150
    assert len(load_language_pack("es").persona.jobs) >= 150
    assert len(load_language_pack("fr").persona.jobs) >= 150
    assert len(load_language_pack("en").persona.jobs) >= 100


def test_no_slash_form_reaches_a_rendered_prompt(pack, personas) -> None:
    categories = list(pack.categories.categories)
    for seed, persona in enumerate(personas):
        category = categories[seed % len(categories)]
        for doc_type in pack.doc_types(category)[:3]:
            for info in pack.taxonomy[category].sensitive_info or [""]:
                parts = prompt_parts(pack, persona, category, doc_type, info)
                for text in (parts.system, parts.instruction, parts.response_prefix):
                    assert slash_form(text) is None, text
                    assert "{" not in text, text


def test_a_persona_depends_only_on_locale_lists_and_seed(pack) -> None:
    locale, config = pack.language.faker_locale, pack.persona
    first = draw_persona(locale, config, 5)
    draw_persona(locale, config, 6)
    draw_persona("en_GB", config, 5)
    assert draw_persona(locale, config, 5) == first
    assert draw_persona(locale, config, 7) != first


@pytest.mark.parametrize("code", SHIPPED)
def test_a_persona_is_the_same_in_every_process(code: str) -> None:
    """Faker's it_IT city list came from a set: string hashing reordered it per process."""
    script = (
        "import json, sys; from gen.core.packs import load_language_pack; "
        "from gen.generate.personas import draw_persona; "
        f"pack = load_language_pack({code!r}); "
        "print(json.dumps([draw_persona(pack.language.faker_locale, pack.persona, s).values "
        "for s in range(200)]))"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", script],
            env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": hash_seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for hash_seed in ("1", "2", "3")
    }
    assert len(outputs) == 1


def test_employer_patterns_use_the_persona_s_city() -> None:
    config = load_language_pack("it").persona.model_copy(
        update={"employers": ("Comune di {city}",)}
    )
    persona = draw_persona("it_IT", config, 3)
    assert persona.values["employer"] == f"Comune di {persona.values['city']}"


def test_place_names_are_written_as_the_language_writes_them() -> None:
    rules = PlaceNames(
        lowercase_words=("Di", "del", "d'", "in"), word_endings={"u'": "ù", "a'": "à"}
    )
    assert _place_name("Vigo Di Cadore", rules) == "Vigo di Cadore"
    assert _place_name("Colle Val D'Elsa", rules) == "Colle Val d'Elsa"
    assert _place_name("San Martino In Badia", rules) == "San Martino in Badia"
    assert _place_name("Di Vittorio", rules) == "Di Vittorio"  # the first word stays
    assert _place_name("Mirabello Di Cantu'", rules) == "Mirabello di Cantù"
    assert _place_name("Ca' Bosco", rules) == "Ca' Bosco"  # a truncation, not an accent
    assert _place_name("Vigo Di Cadore", PlaceNames()) == "Vigo Di Cadore"


def test_italian_cities_have_accents_and_no_slash() -> None:
    config = load_language_pack("it").persona
    cities = [draw_persona("it_IT", config, seed).values["city"] for seed in range(3000)]
    assert not [city for city in cities if "/" in city or re.search(r"\w{3}'(?!\w)", city)]
    assert any(re.search(r"[àèìòù]\b", city) for city in cities)


def test_a_day_can_be_written_as_the_language_writes_it() -> None:
    config = PersonaConfig(
        gender={"female": "femme", "male": "homme"},
        doctor_title={"female": "Dre", "male": "Dr"},
        month_names=("janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août",
                     "septembre", "octobre", "novembre", "décembre"),
        day_names={1: "1er"},
        birth_date_formats=("{day} {month_name} {year}",),
    )  # fmt: skip
    dates = {draw_persona("fr_FR", config, seed).values["birth_date"] for seed in range(2000)}
    assert any(d.startswith("1er ") for d in dates)
    assert not any(d.startswith("1 ") for d in dates)
    assert any(d.startswith("2 ") for d in dates)
