"""`prompts/<language>/persona.yaml`: how the fictional people of one language are written.

Faker draws names, cities, e-mail addresses and phone numbers in the pack's locale. Where a
locale has no provider of its own, Faker falls back to English (it_IT has no job titles and
would write "Music therapist"), and where its values read foreign (it_IT's company names end
in "Group"), the pack lists its own: job titles in both genders, employer and address
patterns, the doctor's title by the doctor's gender, the word for the persona's gender,
and how a birth date is written. Every list is language data checked on load; the code in
`gen.generate.personas` only draws from it.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, ValidationInfo, field_validator

from gen.core.grammar import Gendered, GenderedForms, Word, check_no_slash_form, gendered_forms
from gen.core.placeholders import check_placeholders, placeholders
from gen.core.yamlio import StrictModel

#: Placeholders of a birth date format: the day (3, or 03), month (3, 03 or its name), year.
DATE_FIELDS = ("day", "dd", "month", "mm", "month_name", "year")

#: Placeholders of employer and address patterns besides the pack's own `lists`: a fresh
#: Faker first or last name, a Faker company name, the persona's city, a house number.
PATTERN_FIELDS = ("first_name", "last_name", "company", "city", "number")


def _check_patterns(patterns: tuple[str, ...], info: ValidationInfo) -> tuple[str, ...]:
    if "lists" not in info.data:  # the lists are wrong, and said so already
        return patterns
    allowed = (*PATTERN_FIELDS, *info.data["lists"])
    for pattern in patterns:
        check_placeholders(pattern, allowed)
        check_no_slash_form(pattern)
    return patterns


#: What a list of persona.yaml falls back to when its key is left out; given empty, it is
#: refused: `jobs: []` would silently mean Faker's job titles, in English where the locale
#: has none.
UNLISTED = {
    "jobs": "Faker's job titles (English where the locale has none)",
    "employers": "Faker's company names",
    "addresses": "Faker's street addresses",
    "month_names": "no {month_name}",
    "lowercase_words": "Faker's capitals",
    "cities": "Faker's place names",
}


def _not_empty(value: Any, info: ValidationInfo) -> Any:
    """An empty list given in the file, refused as facts.yaml refuses an empty value list."""
    if isinstance(value, list | tuple) and not value:
        fallback = UNLISTED[str(info.field_name)]
        raise ValueError(
            f"the list is empty; list the pack's own, or leave the key out for {fallback}"
        )
    return value


class PlaceNames(StrictModel):
    """How to write Faker's place names of the locale as the language writes them."""

    #: Words Faker capitalizes after a name's first word that the language writes in lower
    #: case ("Vigo Di Cadore" -> "Vigo di Cadore"); one ending in an apostrophe is a prefix
    #: ("D'Elsa" -> "d'Elsa").
    lowercase_words: tuple[str, ...] = ()
    #: Endings Faker writes without their accent, in words of three letters or more
    #: ("Cantu'" -> "Cantù"; "Ca'" stays).
    word_endings: dict[str, str] = Field(default_factory=dict)

    @field_validator("lowercase_words")
    @classmethod
    def _folded(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(word.casefold() for word in value)

    _given_lists = field_validator("lowercase_words", mode="before")(_not_empty)


class PersonaConfig(StrictModel):
    #: The value of {gender}: the language's word for a woman and for a man.
    gender: GenderedForms
    #: The title before the doctor's name, by the doctor's own gender (Dott.ssa / Dott.).
    doctor_title: Gendered
    #: January to December, for {month_name}.
    month_names: tuple[Word, ...] = ()
    #: How a birth date is written; one format is drawn per persona.
    birth_date_formats: tuple[str, ...] = Field(min_length=1)
    #: How a day is written where it is not its number (French: {1: 1er}).
    day_names: dict[int, Word] = Field(default_factory=dict)
    #: Named word lists that employer and address patterns draw from as {name}.
    lists: dict[str, tuple[Word, ...]] = Field(default_factory=dict)
    #: Job titles, each a plain string or {female, male}; empty: Faker's (English fallback!).
    jobs: tuple[Gendered, ...] = ()
    #: Employer name patterns; empty: Faker's company names.
    employers: tuple[str, ...] = ()
    #: Street address patterns; empty: Faker's street addresses.
    addresses: tuple[str, ...] = ()
    #: Faker's place names as the language writes them.
    place_names: PlaceNames = PlaceNames()
    #: The towns personas live in, where Faker's are not the country's (en_GB's
    #: "Nicholasmouth"); empty: Faker's.
    cities: tuple[Word, ...] = ()

    _given_lists = field_validator(
        "month_names", "jobs", "employers", "addresses", "cities", mode="before"
    )(_not_empty)

    @field_validator("month_names")
    @classmethod
    def _twelve_months(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if value and len(value) != 12:
            raise ValueError(f"{len(value)} names; expected 12, January to December")
        return value

    @field_validator("birth_date_formats")
    @classmethod
    def _date_fields(cls, value: tuple[str, ...], info: ValidationInfo) -> tuple[str, ...]:
        for pattern in value:
            check_placeholders(pattern, DATE_FIELDS)
            check_no_slash_form(pattern)
            used = placeholders(pattern)
            if "year" not in used:
                raise ValueError(f"{pattern!r}: a birth date format needs {{year}}")
            if "month_name" in used and info.data.get("month_names") == ():  # given: none
                raise ValueError(f"{pattern!r} uses {{month_name}}: list the month_names")
        return value

    @field_validator("day_names")
    @classmethod
    def _days(cls, value: dict[int, str]) -> dict[int, str]:
        for day in value:
            if not 1 <= day <= 31:
                raise ValueError(f"day {day} is not a day of a month (1-31)")
        return value

    @field_validator("lists")
    @classmethod
    def _list_names(cls, value: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
        for name, words in value.items():
            if not name.isidentifier() or name in PATTERN_FIELDS:
                raise ValueError(
                    f"{name!r}: a list name is a placeholder name (letters, digits, _) other "
                    f"than {', '.join(PATTERN_FIELDS)}"
                )
            if not words:
                raise ValueError(f"{name}: the list is empty")
        return value

    @field_validator("employers", "addresses")
    @classmethod
    def _patterns(cls, value: tuple[str, ...], info: ValidationInfo) -> tuple[str, ...]:
        return _check_patterns(value, info)

    @property
    def titles(self) -> tuple[str, ...]:
        """Every form of the doctor's title: left out of the doctor's PERSON span."""
        return gendered_forms(self.doctor_title)
