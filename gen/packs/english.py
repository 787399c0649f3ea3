"""English words that give a persona value away as Faker's English fallback.

Faker falls back to its en_US providers where a locale has none of its own: it_IT has no
job titles and writes "Music therapist", fr_BE writes "876 Jean Drive Suite 012". The words
of those providers (job titles, company suffixes such as "Group" and "LLC", "and Sons",
"Apt.", "Suite") are the tell-tale: in a pack whose locale is not English, a persona value
holding one of them, unless the pack wrote that word itself in `persona.yaml` (Italian
writes "barista" too), is a leak.
"""

from __future__ import annotations

from collections.abc import Iterable, Set
from functools import cache

import regex
from faker import Faker
from faker.providers.address.en_US import Provider as Addresses
from faker.providers.company.en_US import Provider as Companies
from faker.providers.job.en_US import Provider as Jobs

#: Shorter words ("a", "of") are shared by too many languages to tell anything.
_MIN_LETTERS = 3
_WORD = regex.compile(r"\p{L}+")
_FAKER_FIELD = regex.compile(r"\{\{\w+\}\}|[#?@%^]")


def words(text: str) -> set[str]:
    """The case-folded words of `text` long enough to tell a language."""
    return {w.casefold() for w in _WORD.findall(text) if len(w) >= _MIN_LETTERS}


def words_of(texts: Iterable[str]) -> set[str]:
    return set().union(*(words(text) for text in texts))


@cache
def english_words() -> frozenset[str]:
    """The words of Faker's English job titles, company names and address lines."""
    literals = [
        _FAKER_FIELD.sub(" ", text)
        for text in (*Companies.formats, *Addresses.secondary_address_formats)
    ]
    return frozenset(words_of((*Jobs.jobs, *Companies.company_suffixes, *literals)))


#: Lists of a locale's own Faker providers whose words are that language's.
_NATIVE_LISTS = ("jobs", "first_names", "last_names", "cities")


@cache
def native_words(locale: str) -> frozenset[str]:
    """The words of the job titles, person names and place names of the Faker providers
    written for `locale` itself (not its English fallback): names are not translated
    ("Handler" is a de_AT surname, "Torre di Fine" an Italian town) and many words are
    shared (German "Land" in "Land- und Baumaschinentechnik")."""
    texts: list[str] = []
    for provider in Faker(locale).get_providers():
        if not type(provider).__module__.endswith(locale):
            continue
        for attribute in dir(provider):
            if attribute.startswith(_NATIVE_LISTS):
                texts += [t for t in getattr(provider, attribute) if isinstance(t, str)]
    return frozenset(words_of(texts))


def english_in(value: str, own: Set[str] = frozenset()) -> list[str]:
    """The English tell-tale words of `value`, but those in `own` (the pack's own words)."""
    return sorted(words(value) & english_words() - own)
