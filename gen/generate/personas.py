"""Fictional people drawn with Faker and the pack's lists, one per document.

The values go into the prompt and are stored with the document, so that the labeling stage
can mark them as PII spans exactly. Every value a prompt can name is written in the pack's
language (`prompts/<lang>/persona.yaml`, see `gen.core.pack_persona`), and the persona's
gender picks the form of its job title and of the pack's gendered words; the doctor is a
person of their own, with a gender and the title that goes with it. A persona is of one
country, its Faker locale's: address, postcode, phone and its national identifiers (an NHS
number, a codice fiscale, a Steuer-ID, a DNI, a NIR: `gen queries`' makers, with valid
check digits, from the persona's own name, sex and birth date where the number holds them).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date

from faker import Faker

from gen.core.grammar import GENDERS, Gender, GenderedForms, gendered_form, slash_form
from gen.core.pack_persona import PersonaConfig, PlaceNames
from scraping.queries.values import locale_spec
from scraping.queries.values.identity import Identity, Wording

#: Fixed reference day for ages, so that a persona does not change with the calendar.
REFERENCE_DAY = date(2026, 1, 1)
#: The persona's national identifiers: fields of `gen.core.records.PERSONA_FIELDS` and of
#: the locale's `scraping.queries.values.country.CountryIds`.
ID_FIELDS = ("national_id", "tax_id", "health_insurance_id")

_fakers = threading.local()


@dataclass(frozen=True)
class Persona:
    #: `gen.core.records.PERSONA_FIELDS` -> value, as stored with the document.
    values: dict[str, str]
    gender: Gender
    doctor_gender: Gender

    def placeholders(self, gendered: Mapping[str, GenderedForms]) -> dict[str, str]:
        """The persona's values and the pack's `gendered` words in the persona's gender."""
        words = {name: forms.form(self.gender) for name, forms in gendered.items()}
        return {**self.values, **words}


def _faker(locale: str, seed: int) -> Faker:
    """A Faker of `locale` seeded with `seed`; one instance per thread and locale, since
    building one costs milliseconds and a reseeded instance draws what a new one would."""
    cache: dict[str, Faker] = _fakers.__dict__.setdefault("by_locale", {})
    if locale not in cache:
        cache[locale] = _in_stable_order(Faker(locale))
    fake = cache[locale]
    fake.seed_instance(seed)
    return fake


def _in_stable_order(fake: Faker) -> Faker:
    """`fake` with its city list sorted. Faker's it_IT builds that list from a set, whose order
    (and so the city a seed draws) changed with each process's string hashing: the same plan
    gave other cities in another run."""
    for provider in fake.get_providers():
        cities = getattr(provider, "cities", None)
        if isinstance(cities, list):
            provider.cities = sorted(cities)
    return fake


def draw_persona(locale: str, config: PersonaConfig, seed: int) -> Persona:
    """A persona that depends only on (locale, pack lists, seed)."""
    fake = _faker(locale, seed)
    gender: Gender = fake.random_element(GENDERS)
    first_name, last_name = _names(fake, gender)
    birth = fake.date_between_dates(
        REFERENCE_DAY.replace(year=REFERENCE_DAY.year - 85),
        REFERENCE_DAY.replace(year=REFERENCE_DAY.year - 18),
    )
    had_birthday = (REFERENCE_DAY.month, REFERENCE_DAY.day) >= (birth.month, birth.day)
    age = REFERENCE_DAY.year - birth.year - (0 if had_birthday else 1)
    city = fake.random_element(config.cities) if config.cities else _city(fake, config.place_names)
    pattern = _pattern_filler(fake, config, city)
    address = pattern(config.addresses) if config.addresses else fake.street_address()
    address = ", ".join(address.splitlines())  # en_GB's "Flat 2\nOak Road": one line
    employer = pattern(config.employers) if config.employers else fake.company()
    job = gendered_form(fake.random_element(config.jobs), gender) if config.jobs else fake.job()
    doctor_gender: Gender = fake.random_element(GENDERS)
    doctor_title = gendered_form(config.doctor_title, doctor_gender)
    doctor = f"{doctor_title} {' '.join(_names(fake, doctor_gender))}"
    values = {
        "name": f"{first_name} {last_name}",
        "first_name": first_name,
        "last_name": last_name,
        "gender": config.gender.form(gender),
        "birth_date": _birth_date(fake, config, birth),
        "age": str(age),
        "city": city,
        "address": address,
        "employer": employer,
        "job": job,
        "doctor": doctor,
        "email": fake.email(),
        "phone": fake.phone_number(),
        "postcode": fake.postcode(),
    }
    person = Identity(fake, locale_spec(locale), Wording())
    person.__dict__.update(  # the numbers that hold them hold the persona's name and birth
        first_name=first_name, last_name=last_name, birth_date=birth, female=gender == "female"
    )
    values.update({field: getattr(person.locale.ids, field)(person) for field in ID_FIELDS})
    return Persona(values, gender, doctor_gender)


def other_person(locale: str, seed: int) -> tuple[str, str]:
    """Name and e-mail address of someone else (a recipient, a partner, an officer): drawn
    apart from the persona, so personas stay as they were."""
    fake = _faker(locale, seed)
    first_name, last_name = _names(fake, fake.random_element(GENDERS))
    return f"{first_name} {last_name}", fake.email()


def _names(fake: Faker, gender: Gender) -> tuple[str, str]:
    if gender == "female":
        return fake.first_name_female(), fake.last_name_female()
    return fake.first_name_male(), fake.last_name_male()


def _birth_date(fake: Faker, config: PersonaConfig, birth: date) -> str:
    pattern = fake.random_element(config.birth_date_formats)
    return pattern.format(
        day=config.day_names.get(birth.day, str(birth.day)),
        dd=f"{birth.day:02d}",
        month=str(birth.month),
        mm=f"{birth.month:02d}",
        month_name=config.month_names[birth.month - 1] if config.month_names else "",
        year=str(birth.year),
    )


#: Place names drawn at most this often before one with a slash is kept (and reported by
#: `gen packs check`).
_CITY_DRAWS = 20


def _city(fake: Faker, rules: PlaceNames) -> str:
    """A Faker city as the language writes it; a bilingual name with a slash ("St.
    Ulrich/Urtijei") is drawn again, since a prompt never offers written alternatives."""
    for _ in range(_CITY_DRAWS):
        city = _place_name(fake.city(), rules)
        if slash_form(city) is None:
            break
    return city


def _place_name(name: str, rules: PlaceNames) -> str:
    """`name` with the language's lower-case particles after its first word and its accents."""
    words = name.split(" ")
    for index, word in enumerate(words):
        folded = word.casefold()
        for particle in rules.lowercase_words if index else ():
            if folded == particle or (particle.endswith("'") and folded.startswith(particle)):
                word = particle + word[len(particle) :]
                break
        for ending, written in rules.word_endings.items():
            if word.endswith(ending) and len(word) - len(ending) >= 2:
                word = word[: -len(ending)] + written
                break
        words[index] = word
    return " ".join(words)


def _pattern_filler(
    fake: Faker, config: PersonaConfig, city: str
) -> Callable[[tuple[str, ...]], str]:
    """Fills a pattern drawn from a list: each placeholder drawn afresh, {city} the persona's."""
    makers: dict[str, Callable[[], str]] = {
        "first_name": fake.first_name,
        "last_name": fake.last_name,
        "company": fake.company,
        "city": lambda: city,
        "number": lambda: str(fake.random_int(1, 199)),
        **{
            name: (lambda words=words: fake.random_element(words))
            for name, words in config.lists.items()
        },
    }

    def fill(patterns: tuple[str, ...]) -> str:
        pattern = fake.random_element(patterns)
        return pattern.format_map(_Drawn(makers))

    return fill


class _Drawn(dict):
    """`str.format_map` mapping that draws a fresh value for each placeholder it meets."""

    def __init__(self, makers: Mapping[str, Callable[[], str]]) -> None:
        super().__init__()
        self.makers = makers

    def __missing__(self, key: str) -> str:
        return self.makers[key]()
