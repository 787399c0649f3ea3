"""Identifiers of Germany, Austria and Switzerland (all three Swiss language regions).

Check digits (python-stdnum computes or validates them): German Steuer-IdNr (ISO 7064
mod 11,10, one digit repeated), German health insurance number (Krankenversicherten-
nummer: letter as two digits, weights 1-2, cross sums), Austrian Abgabenkontonummer and
Sozialversicherungsnummer (made from the birth date), Swiss AHV number (EAN-13),
Swiss health card (Luhn) and PostFinance account (mod 10 recursive).
"""

from __future__ import annotations

from stdnum import ean, luhn
from stdnum.at import tin, vnr
from stdnum.ch import esr
from stdnum.de import idnr
from stdnum.iso7064 import mod_11_10

from scraping.queries.values.country import UPPER, CountryIds, Maker, faker_plate, shapes
from scraping.queries.values.finance import account_digits
from scraping.queries.values.identity import Identity, digits, valid_draw

#: Characters of German identity card and passport serial numbers.
_DE_SERIAL = "CFGHJKLMNPRTVWXYZ0123456789"


def german_document(first: str) -> Maker:
    """Identity card or passport number as printed: a letter of `first`, 8 serial
    characters (the check digit is only in the machine-readable zone)."""

    def make(person: Identity) -> str:
        return person.random.choice(first) + "".join(
            person.random.choice(_DE_SERIAL) for _ in range(8)
        )

    return make


def german_tax_id(person: Identity) -> str:
    def draw() -> str:
        chosen = person.random.sample(range(10), 9)
        body = [*chosen, person.random.choice(chosen)]
        person.random.shuffle(body)
        number = "".join(map(str, body))
        return number + mod_11_10.calc_check_digit(number)

    number = valid_draw(draw, idnr.is_valid)
    return number if person.random.random() < 0.5 else idnr.format(number)


def german_health_number(person: Identity) -> str:
    """Krankenversichertennummer: a letter, 8 digits, a check digit."""
    letter = person.random.choice(UPPER)
    body = digits(person.fake, 8)
    total = 0
    for i, d in enumerate(f"{ord(letter) - 64:02d}{body}"):
        product = int(d) * (1, 2)[i % 2]
        total += product // 10 + product % 10
    return f"{letter}{body}{total % 10}"


def austrian_tax_id(person: Identity) -> str:
    return tin.format(valid_draw(lambda: digits(person.fake, 9), tin.is_valid))


def austrian_social_security(person: Identity) -> str:
    """Sozialversicherungsnummer: serial, check digit, birth date DDMMYY."""
    born = person.birth_date.strftime("%d%m%y")

    def draw() -> str:
        serial = digits(person.fake, 3, first="123456789")
        return serial + vnr.calc_check_digit(serial + "0" + born) + born

    number = valid_draw(draw, vnr.is_valid)
    return number if person.random.random() < 0.4 else f"{number[:4]} {number[4:]}"


def swiss_ahv(person: Identity) -> str:
    body = "756" + digits(person.fake, 9)
    number = body + ean.calc_check_digit(body)
    return f"{number[:3]}.{number[3:7]}.{number[7:11]}.{number[11:]}"


def swiss_health_card(person: Identity) -> str:
    body = "80756" + digits(person.fake, 14)
    return body + luhn.calc_check_digit(body)


def postfinance_account(person: Identity) -> str:
    body = digits(person.fake, 2, first="123456789") + digits(person.fake, 6)
    number = body + esr.calc_check_digit(body)
    return f"{number[:2]}-{int(number[2:8])}-{number[8]}"


def swiss_plate(cantons: tuple[str, ...]) -> Maker:
    def make(person: Identity) -> str:
        number = person.random.randint(1, 999999)
        written = f"{number:,}".replace(",", " ") if person.random.random() < 0.5 else str(number)
        return f"{person.random.choice(cantons)} {written}"

    return make


GERMANY = CountryIds(
    national_id=german_document("LMNPRTVWXY"),
    tax_id=german_tax_id,
    health_insurance_id=german_health_number,
    passport=german_document("CFGHJK"),
    driver_license=shapes("?###??#?##", "?##?###??#?"),
    bank_account=account_digits(7, 10),
    license_plate=faker_plate,
)

AUSTRIA = CountryIds(
    national_id=shapes("#######", "?#######"),
    tax_id=austrian_tax_id,
    health_insurance_id=austrian_social_security,
    passport=shapes("?#######"),
    driver_license=shapes("########"),
    bank_account=account_digits(9, 11),
    license_plate=faker_plate,
)


def switzerland(cantons: tuple[str, ...]) -> CountryIds:
    """Swiss identifiers, with the licence plates of the cantons of a language region."""
    return CountryIds(
        national_id=shapes("?#######"),
        tax_id=swiss_ahv,
        health_insurance_id=swiss_health_card,
        passport=shapes("?#######", "??######"),
        driver_license=shapes("######-###", "#########"),
        bank_account=postfinance_account,
        license_plate=swiss_plate(cantons),
    )
