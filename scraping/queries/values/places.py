"""Postal addresses (on one line, or as the block of a letter or a parcel label, with
an optional country line: one ADDRESS span either way) and places (LOCATION).

Faker writes the address of most locales; where it has none of its own (en_IE writes
one run-on line, it_CH and fr_BE fall back to American addresses) the lines are put
together from the language's street names and the country's postcode form.
"""

from __future__ import annotations

from collections.abc import Callable

from scraping.queries.values.identity import Identity

#: The lines of one address, without the country.
AddressLines = Callable[[Identity], list[str]]


def faker_lines(person: Identity) -> list[str]:
    """Faker's own address for the locale, one entry per line."""
    return [line.strip() for line in person.fake.address().splitlines() if line.strip()]


def postcode_city(postcode: str, *, number_after_street: bool = True) -> AddressLines:
    """Street line and "<postcode> <city>" line: Swiss and Belgian addresses, whose
    postcodes (`#` a digit) Faker does not know for the language."""

    def lines(person: Identity) -> list[str]:
        street, number = person.fake.street_name(), person.random.randint(1, 180)
        line = f"{street} {number}" if number_after_street else f"{number} {street}"
        return [line, f"{person.fake.numerify(postcode)} {person.city}"]

    return lines


def irish_lines(person: Identity) -> list[str]:
    """Street, town, Eircode (Faker's en_IE writes them as one run-on line)."""
    return [person.fake.street_address(), person.city, person.fake.postcode()]


def _lines(person: Identity) -> list[str]:
    return person.locale.address(person)


def _country(person: Identity) -> str:
    name = person.locale.country
    return name.upper() if person.random.random() < 0.5 else name


def address(person: Identity) -> str:
    """The address on one line, parts separated by commas (sometimes with the country)."""
    lines = _lines(person)
    if person.random.random() < 0.1:
        lines.append(_country(person))
    return ", ".join(lines)


def address_block(person: Identity) -> str:
    """The address as the lines of a letter head or a label (sometimes with the country)."""
    lines = _lines(person)
    if person.random.random() < 0.3:
        lines.append(_country(person))
    return "\n".join(lines)


def postcode(person: Identity) -> str:
    """The postcode alone, as forms and delivery areas ask for it (labeled ADDRESS)."""
    pattern = person.locale.postcode
    return person.fake.numerify(pattern) if pattern else person.fake.postcode()


def location(person: Identity) -> str:
    """Where the person lives: a town or, now and then, the country."""
    return person.locale.country if person.random.random() < 0.12 else person.town
