"""The country-specific identifiers of one country, as value makers."""

from __future__ import annotations

import string
from collections.abc import Callable
from dataclasses import dataclass

from scraping.queries.values.identity import Identity

Maker = Callable[[Identity], str]

UPPER = string.ascii_uppercase


@dataclass(frozen=True)
class CountryIds:
    """What NATIONAL_ID, TAX_ID, HEALTH_INSURANCE_ID, PASSPORT, DRIVER_LICENSE,
    BANK_ACCOUNT and LICENSE_PLATE look like in one country."""

    national_id: Maker
    tax_id: Maker
    health_insurance_id: Maker
    passport: Maker
    driver_license: Maker
    bank_account: Maker
    license_plate: Maker


def shapes(*patterns: str, letters: str = UPPER) -> Maker:
    """One of `patterns`, `#` a digit and `?` a letter of `letters`."""

    def make(person: Identity) -> str:
        return person.fake.bothify(person.random.choice(patterns), letters=letters)

    return make


def faker_plate(person: Identity) -> str:
    """Faker's licence plate of the locale."""
    return person.fake.license_plate()


def grouped(number: str, sizes: tuple[int, ...], separator: str = " ") -> str:
    """`number` cut into groups of `sizes` characters."""
    parts, at = [], 0
    for size in sizes:
        parts.append(number[at : at + size])
        at += size
    return separator.join(parts)
