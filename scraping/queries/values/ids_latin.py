"""Identifiers of Italy, France, Belgium, Spain and Mexico.

Made from the person where the real number is (and checked where it has a check):
Italian codice fiscale (surname, name, birth date, sex, check character), French NIR
(sex, birth year and month, key 97 - n mod 97), Belgian national register number
(birth date, sex, mod 97), Mexican CURP and RFC (Faker's, checked). Check digits only:
Spanish DNI/NIE letter, Spanish social security number (mod 97), French tax number,
Italian and Swiss-style health card numbers (Luhn), Mexican NSS (Luhn).
"""

from __future__ import annotations

from stdnum import luhn
from stdnum.es import dni, nie
from stdnum.fr import nif, nir
from stdnum.it import codicefiscale
from stdnum.mx import curp, rfc

from scraping.queries.values.country import CountryIds, Maker, faker_plate, grouped, shapes
from scraping.queries.values.finance import (
    account_digits,
    belgian_account,
    french_rib,
    mexican_clabe,
    spanish_ccc,
)
from scraping.queries.values.identity import Identity, ascii_word, digits, valid_draw

_VOWELS = "AEIOU"


def _letters(name: str) -> tuple[str, str]:
    word = ascii_word(name).upper()
    letters = "".join(c for c in word if c.isalpha())
    return "".join(c for c in letters if c not in _VOWELS), "".join(
        c for c in letters if c in _VOWELS
    )


def _surname_code(surname: str) -> str:
    consonants, vowels = _letters(surname)
    return (consonants + vowels + "XXX")[:3]


def _name_code(name: str) -> str:
    consonants, vowels = _letters(name)
    if len(consonants) >= 4:
        return consonants[0] + consonants[2] + consonants[3]
    return (consonants + vowels + "XXX")[:3]


def codice_fiscale(person: Identity) -> str:
    """Italian tax code of the person: surname, name, birth date and sex, town, check."""
    born = person.birth_date
    body = (
        _surname_code(person.last_name)
        + _name_code(person.first_name)
        + f"{born.year % 100:02d}"
        + "ABCDEHLMPRST"[born.month - 1]
        + f"{born.day + (40 if person.female else 0):02d}"
        + person.random.choice("ABCDEFGHILM")
        + digits(person.fake, 3)
    )
    return body + codicefiscale.calc_check_digit(body)


def luhn_card(prefix: str, length: int) -> Maker:
    """A health card number (ISO 7812): `prefix`, digits, a Luhn check digit."""

    def make(person: Identity) -> str:
        body = prefix + digits(person.fake, length - len(prefix) - 1)
        return body + luhn.calc_check_digit(body)

    return make


def italian_plate(person: Identity) -> str:
    plate = person.fake.license_plate()
    return f"{plate[:2]} {plate[2:5]} {plate[5:]}" if person.random.random() < 0.4 else plate


def french_nir(person: Identity) -> str:
    """Numéro de sécurité sociale: sex, year, month, département, commune, order, key."""
    born = person.birth_date
    department = person.random.choice([d for d in range(1, 96) if d != 20])
    body = (
        ("2" if person.female else "1")
        + f"{born.year % 100:02d}{born.month:02d}{department:02d}"
        + digits(person.fake, 3)
        + digits(person.fake, 3)
    )
    number = body + nir.calc_check_digits(body)
    return number if person.random.random() < 0.3 else nir.format(number)


def french_tax_number(person: Identity) -> str:
    body = digits(person.fake, 10, first="0123")
    number = body + nif.calc_check_digits(body)
    return number if person.random.random() < 0.4 else grouped(number, (2, 2, 3, 3, 3))


def belgian_register(person: Identity) -> str:
    """Numéro de registre national YY.MM.DD-XXX.CC: birth date, order (odd for men),
    97 - mod 97 (with a leading 2 for those born from 2000)."""
    born = person.birth_date
    order = person.random.randrange(2 if person.female else 1, 998, 2)
    body = f"{born.year % 100:02d}{born.month:02d}{born.day:02d}{order:03d}"
    check = 97 - int(("2" if born.year >= 2000 else "") + body) % 97
    return f"{body[:2]}.{body[2:4]}.{body[4:6]}-{body[6:]}.{check:02d}"


def spanish_dni(person: Identity) -> str:
    if person.random.random() < 0.15:
        body = person.random.choice("XYZ") + digits(person.fake, 7)
        return body + nie.calc_check_digit(body)
    body = digits(person.fake, 8)
    letter = dni.calc_check_digit(body)
    return f"{body}-{letter}" if person.random.random() < 0.2 else body + letter


def spanish_social_security(person: Identity) -> str:
    """Número de la Seguridad Social: province, number, two digits (first ten mod 97)."""
    body = f"{person.random.randint(1, 52):02d}" + digits(person.fake, 8)
    number = f"{body}{int(body) % 97:02d}"
    separator = person.random.choice(("/", " ", ""))
    return separator.join((number[:2], number[2:10], number[10:]))


def spanish_plate(person: Identity) -> str:
    return person.fake.bothify("#### ???", letters="BCDFGHJKLMNPRSTVWXYZ")


def mexican_nss(person: Identity) -> str:
    body = digits(person.fake, 10)
    return body + luhn.calc_check_digit(body)


ITALY = CountryIds(
    national_id=shapes("C?#####??"),
    tax_id=codice_fiscale,
    health_insurance_id=luhn_card("80380", 20),
    passport=shapes("??#######"),
    driver_license=shapes("??#######?", "U1#######?"),
    bank_account=account_digits(12, 12),
    license_plate=italian_plate,
)

FRANCE = CountryIds(
    national_id=shapes("############", "?#??#??#?"),
    tax_id=french_tax_number,
    health_insurance_id=french_nir,
    passport=shapes("##??#####"),
    driver_license=shapes("############", "##??#####"),
    bank_account=french_rib,
    license_plate=faker_plate,
)

BELGIUM = CountryIds(
    national_id=belgian_account,
    tax_id=belgian_register,
    health_insurance_id=belgian_register,
    passport=shapes("??######"),
    driver_license=shapes("##########"),
    bank_account=belgian_account,
    license_plate=shapes("#-???-###", "?-???-###"),
)

SPAIN = CountryIds(
    national_id=spanish_dni,
    tax_id=spanish_dni,
    health_insurance_id=spanish_social_security,
    passport=shapes("???######"),
    driver_license=spanish_dni,
    bank_account=spanish_ccc,
    license_plate=spanish_plate,
)

MEXICO = CountryIds(
    national_id=lambda person: valid_draw(person.fake.curp, curp.is_valid),
    tax_id=lambda person: valid_draw(lambda: person.fake.rfc(natural=True), rfc.is_valid),
    health_insurance_id=mexican_nss,
    passport=shapes("?########"),
    driver_license=shapes("?########", "??#########"),
    bank_account=mexican_clabe,
    license_plate=faker_plate,
)
