"""Fictional identifier values per locale, drawn with Faker.

Formats follow each country's real ones so detectors learn their shape, but
every value is random: check digits are only computed where the format would
look wrong without them (NHS numbers).
"""

from __future__ import annotations

import string
from collections.abc import Callable
from dataclasses import dataclass

from faker import Faker

from gen.core.errors import UsageError

#: The PII span labels a query can carry, in table order.
LABELS = (
    "PERSON",
    "ADDRESS",
    "EMAIL",
    "PHONE",
    "IBAN",
    "CREDIT_CARD",
    "NATIONAL_ID",
    "TAX_ID",
    "HEALTH_INSURANCE_ID",
    "DATE_OF_BIRTH",
    "LICENSE_PLATE",
    "IP_ADDRESS",
)

#: Words that identify no one, drawn for the locale: they make each query, negatives
#: above all, differ from the others made from its template. Word lists (weekdays,
#: products...) are language data: the `fillers` of prompts/queries/<lang>.yaml.
BUILTIN_FILLERS = ("TIME", "NUMBER", "AMOUNT")

ValueMaker = Callable[[Faker], str]

#: Letters a Medicare Beneficiary Identifier never uses.
_MBI_LETTERS = "".join(c for c in string.ascii_uppercase if c not in "SLOIBZ")


def _one_line(text: str) -> str:
    return ", ".join(line.strip() for line in text.splitlines() if line.strip())


def _ip_address(fake: Faker) -> str:
    return fake.ipv6() if fake.random.random() < 0.2 else fake.ipv4_public()


def _carta_identita(fake: Faker) -> str:
    """Italian electronic identity card: CA12345BC."""
    return fake.bothify("C?#####??", letters=string.ascii_uppercase)


def _tessera_sanitaria(fake: Faker) -> str:
    """Italian health card (TEAM) number: 20 digits starting 80380 (health, Italy)."""
    return "80380" + fake.numerify("#" * 15)


def _medicare_mbi(fake: Faker) -> str:
    """US Medicare Beneficiary Identifier: 11 characters, e.g. 1EG4TE5MK73."""
    pick = fake.random.choice
    digit, nonzero, letter = string.digits, "123456789", _MBI_LETTERS
    either = letter + digit
    shape = (nonzero, letter, either, digit, letter, either, digit, letter, letter, digit, digit)
    return "".join(pick(chars) for chars in shape)


def _nhs_number(fake: Faker) -> str:
    """UK NHS number: 10 digits, the last a mod-11 check digit, written 3-3-4."""
    while True:
        digits = [fake.random.randint(0, 9) for _ in range(9)]
        check = 11 - sum(d * w for d, w in zip(digits, range(10, 1, -1), strict=True)) % 11
        if check == 10:
            continue
        number = "".join(map(str, digits)) + str(0 if check == 11 else check)
        return f"{number[:3]} {number[3:6]} {number[6:]}"


def _pricetag(fake: Faker) -> str:
    return fake.pricetag()


@dataclass(frozen=True)
class LocaleFormats:
    """What the country-specific labels mean in one locale."""

    national_id: ValueMaker
    tax_id: ValueMaker
    health_insurance_id: ValueMaker
    date_format: str
    #: A price in the local currency.
    amount: ValueMaker


LOCALES: dict[str, LocaleFormats] = {
    # Carta d'identità elettronica, codice fiscale, tessera sanitaria.
    "it_IT": LocaleFormats(
        _carta_identita, lambda f: f.ssn(), _tessera_sanitaria, "%d/%m/%Y", _pricetag
    ),
    # Social Security number, ITIN, Medicare Beneficiary Identifier.
    "en_US": LocaleFormats(
        lambda f: f.ssn(), lambda f: f.itin(), _medicare_mbi, "%m/%d/%Y", _pricetag
    ),
    # National Insurance number, Unique Taxpayer Reference, NHS number.
    "en_GB": LocaleFormats(
        lambda f: f.ssn(),
        lambda f: f.numerify("##########"),
        _nhs_number,
        "%d/%m/%Y",
        lambda f: "£" + _pricetag(f).removeprefix("$"),
    ),
}


def locale_formats(locale: str) -> LocaleFormats:
    """What the country-specific labels mean in `locale`; a UsageError if it is unsupported."""
    formats = LOCALES.get(locale)
    if formats is None:
        raise UsageError(f"unsupported locale {locale!r}; supported: {', '.join(LOCALES)}")
    return formats


def filler_makers(locale: str) -> dict[str, ValueMaker]:
    """One maker per built-in filler for `locale`. Only the seeded random source is used
    (Faker's date fillers depend on today's date), so a query is the same whenever made."""
    return {
        "TIME": lambda f: f"{f.random.randint(0, 23):02d}:{f.random.randint(0, 59):02d}",
        "NUMBER": lambda f: str(f.random_int(2, 30)),
        "AMOUNT": locale_formats(locale).amount,
    }


def value_makers(locale: str) -> dict[str, ValueMaker]:
    """One value maker per label for `locale`."""
    formats = locale_formats(locale)

    def date_of_birth(fake: Faker) -> str:
        return fake.date_of_birth(minimum_age=18, maximum_age=90).strftime(formats.date_format)

    return {
        "PERSON": lambda f: f.name(),
        "ADDRESS": lambda f: _one_line(f.address()),
        "EMAIL": lambda f: f.email(),
        "PHONE": lambda f: f.phone_number(),
        "IBAN": lambda f: f.iban(),
        "CREDIT_CARD": lambda f: f.credit_card_number(),
        "NATIONAL_ID": formats.national_id,
        "TAX_ID": formats.tax_id,
        "HEALTH_INSURANCE_ID": formats.health_insurance_id,
        "DATE_OF_BIRTH": date_of_birth,
        "LICENSE_PLATE": lambda f: f.license_plate(),
        "IP_ADDRESS": _ip_address,
    }
