"""One fictional person per query, drawn lazily: every identity placeholder of a query
(`{PERSON}`, `{EMAIL}`, `{TAX_ID}`...) reads from the same person, so a name, its
e-mail, its codice fiscale and its date of birth agree, as they do in real documents;
placeholders with the suffix `_2` read from a second person.

A value is cached per placeholder name, so `{PERSON}` twice in one template is the same
name twice; different placeholders of one label (`{PERSON}`, `{LAST_NAME}`) are different
forms of the same name.
"""

from __future__ import annotations

import random
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from functools import cache, cached_property
from typing import Any, Protocol

from faker import Faker
from faker.providers.geo import Provider as GeoProvider


@dataclass(frozen=True)
class Value:
    """A filled placeholder: its text, and the span's range inside it when the text
    carries more than the identifier ("Dr Rossi": the span is "Rossi")."""

    text: str
    start: int = 0
    end: int | None = None

    @property
    def span(self) -> tuple[int, int]:
        return self.start, len(self.text) if self.end is None else self.end


@dataclass(frozen=True)
class Wording:
    """Language data a value needs, from the pack (`prompts/queries/<lang>.yaml`)."""

    #: Courtesy and academic titles written before a name, per gender.
    titles_male: tuple[str, ...] = ()
    titles_female: tuple[str, ...] = ()
    #: The twelve month names, for dates written in words (empty: numeric dates only).
    months: tuple[str, ...] = ()
    #: Date patterns in words: `{day}`, `{month}`, `{year}` (e.g. "{day} {month} {year}").
    date_words: tuple[str, ...] = ()
    #: Organization name patterns (`{city}`, `{surname}`, `{word}`) and their words.
    organizations: tuple[str, ...] = ()
    organization_words: tuple[str, ...] = ()


class LocaleFormats(Protocol):
    """What the providers read of a locale (`locales.LocaleSpec`, which imports the
    providers, is the implementation)."""

    country: str
    #: ISO code of the country, Faker locales whose names people here also bear.
    country_code: str
    name_mix: tuple[str, ...]
    #: `country.CountryIds` and `contacts.PhoneFormat` of the locale.
    ids: Any
    phone: Any
    address: Callable[[Identity], list[str]]
    date_formats: tuple[str, ...]
    postcode: str
    iban_countries: tuple[str, ...]
    tlds: tuple[str, ...]


#: Share of people whose name comes from another of the locale's `name_mix` locales.
NAME_MIX_SHARE = 0.2


@cache
def _faker(locale: str) -> Faker:
    return Faker(locale)


@cache
def _places(country: str) -> tuple[str, ...]:
    """Real towns of a country from Faker's geo data (their names identify no one)."""
    return tuple(place[2] for place in GeoProvider.land_coords if place[3] == country)


def ascii_word(text: str) -> str:
    """`text` folded to lowercase ASCII letters and digits, as in e-mail addresses."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return "".join(c for c in folded.lower() if c.isalnum())


def digits(fake: Faker, count: int, *, first: str = "0123456789") -> str:
    """`count` random digits, the first one from `first`."""
    pick = fake.random.choice
    return pick(first) + "".join(pick("0123456789") for _ in range(count - 1))


class Identity:
    """One fictional person of one locale; attributes are drawn on first use."""

    def __init__(self, fake: Faker, locale: LocaleFormats, wording: Wording) -> None:
        self.fake = fake
        self.locale = locale
        self.wording = wording
        self._values: dict[str, Value] = {}

    @property
    def random(self) -> random.Random:
        """Faker's seeded random source: every draw of a query comes from it."""
        return self.fake.random

    @cached_property
    def female(self) -> bool:
        return self.random.random() < 0.5

    @cached_property
    def names(self) -> Faker:
        """The locale's Faker, or now and then one of the locales whose names people of
        this country also bear ("Marcus van Dijk", "Priya Iyer" in an English letter)."""
        mix = self.locale.name_mix
        if not mix or self.random.random() >= NAME_MIX_SHARE:
            return self.fake
        other = _faker(self.random.choice(mix))
        other.seed_instance(self.random.getrandbits(64))
        return other

    @cached_property
    def first_name(self) -> str:
        return self.names.first_name_female() if self.female else self.names.first_name_male()

    @cached_property
    def last_name(self) -> str:
        return self.names.last_name()

    @cached_property
    def middle_name(self) -> str:
        return self.names.first_name_female() if self.female else self.names.first_name_male()

    @cached_property
    def birth_date(self) -> date:
        """Drawn from the seeded random source only, never from today's date."""
        return date.fromordinal(
            self.random.randint(date(1938, 1, 1).toordinal(), date(2006, 12, 31).toordinal())
        )

    @cached_property
    def employer(self) -> str:
        """A company of Faker's, or a shop, school, practice or public body made from the
        pack's patterns ("{city} Library", "Comune di {city}")."""
        patterns, words = self.wording.organizations, self.wording.organization_words
        if not patterns or self.random.random() < 0.4:
            return self.fake.company()
        return self.random.choice(patterns).format(
            city=self.town, surname=self.fake.last_name(), word=self.random.choice(words or ("",))
        )

    @cached_property
    def city(self) -> str:
        return self.fake.city()

    @cached_property
    def town(self) -> str:
        """A real town of the country (of anywhere, now and then) or Faker's town."""
        roll = self.random.random()
        here = _places(self.locale.country_code)
        if roll < 0.45 and len(here) >= 5:
            return self.random.choice(here)
        if roll < 0.6:
            return self.random.choice(GeoProvider.land_coords)[2]
        return self.city

    def value(self, name: str, make: Callable[[Identity], str | Value]) -> Value:
        """The value of placeholder `name` for this person, made once."""
        if name not in self._values:
            made = make(self)
            self._values[name] = made if isinstance(made, Value) else Value(made)
        return self._values[name]


def valid_draw(draw: Callable[[], str], is_valid: Callable[[str], bool]) -> str:
    """A value from `draw` that `is_valid` accepts: for check digits that python-stdnum
    validates but does not compute (one draw in about ten passes a mod-11 check)."""
    for _ in range(1000):
        value = draw()
        if is_valid(value):
            return value
    raise RuntimeError("no valid value in 1000 draws: the format and its validator disagree")
