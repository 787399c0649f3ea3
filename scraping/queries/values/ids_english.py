"""Identifiers of the English-speaking countries: US, UK, Ireland, Canada, Australia.

Check digits where the number has one (python-stdnum computes or validates them): UK
NHS number (mod 11), UTR, Irish PPSN (mod 23 letter), Canadian SIN and Ontario health
number (Luhn), Australian TFN (weighted mod 11) and Medicare number; US SSN and ITIN
follow the issuing rules (no area 000, 666 or 9xx; ITIN groups 70-88, 90-92, 94-99).
The UK driving licence number is made from the person's surname, birth date and
initials, as the DVLA's is.
"""

from __future__ import annotations

import string

from stdnum import luhn
from stdnum.au import tfn
from stdnum.gb import nhs, utr
from stdnum.ie import vat as ie_vat

from scraping.queries.values.country import UPPER, CountryIds, faker_plate, grouped, shapes
from scraping.queries.values.finance import account_digits
from scraping.queries.values.identity import Identity, digits, valid_draw

#: Letters a Medicare Beneficiary Identifier never uses.
_MBI_LETTERS = "".join(c for c in UPPER if c not in "SLOIBZ")


def _compact_or(person: Identity, number: str, written: str) -> str:
    return number if person.random.random() < 0.3 else written


def us_ssn(person: Identity) -> str:
    area = person.random.choice([a for a in range(1, 900) if a != 666])
    group, serial = person.random.randint(1, 99), person.random.randint(1, 9999)
    return _compact_or(
        person, f"{area:03d}{group:02d}{serial:04d}", f"{area:03d}-{group:02d}-{serial:04d}"
    )


def us_itin(person: Identity) -> str:
    groups = [*range(70, 89), 90, 91, 92, *range(94, 100)]
    area, group = digits(person.fake, 2), person.random.choice(groups)
    serial = digits(person.fake, 4)
    return _compact_or(person, f"9{area}{group}{serial}", f"9{area}-{group}-{serial}")


def us_medicare(person: Identity) -> str:
    """Medicare Beneficiary Identifier: 11 characters, e.g. 1EG4-TE5-MK73."""
    pick = person.random.choice
    letter, either = _MBI_LETTERS, _MBI_LETTERS + string.digits
    shape = ("123456789", letter, either, string.digits, letter, either, string.digits,
             letter, letter, string.digits, string.digits)  # fmt: skip
    number = "".join(pick(chars) for chars in shape)
    return _compact_or(person, number, grouped(number, (4, 3, 4), "-"))


def uk_nino(person: Identity) -> str:
    """National Insurance number: two prefix letters, six digits, suffix A-D."""
    first = [c for c in UPPER if c not in "DFIQUV"]
    second = [c for c in UPPER if c not in "DFIOQUV"]
    while (prefix := person.random.choice(first) + person.random.choice(second)) in {
        "BG", "GB", "KN", "NK", "NT", "TN", "ZZ"
    }:  # fmt: skip
        pass
    number = prefix + digits(person.fake, 6) + person.random.choice("ABCD")
    return _compact_or(person, number, grouped(number, (2, 2, 2, 2, 1)))


def uk_utr(person: Identity) -> str:
    return valid_draw(lambda: digits(person.fake, 10), utr.is_valid)


def uk_nhs(person: Identity) -> str:
    number = valid_draw(lambda: digits(person.fake, 10), nhs.is_valid)
    return _compact_or(person, number, grouped(number, (3, 3, 4)))


def uk_driving_licence(person: Identity) -> str:
    """DVLA number: surname (5, padded with 9), decade, month (+50 for women), day,
    year digit, initials (padded with 9), a digit, two check characters."""
    surname = "".join(c for c in person.last_name.upper() if c in UPPER)[:5].ljust(5, "9")
    born = person.birth_date
    month = born.month + (50 if person.female else 0)
    initials = (person.first_name[:1] + person.middle_name[:1]).upper()
    return (
        f"{surname}{born.year % 100 // 10}{month:02d}{born.day:02d}{born.year % 10}"
        f"{initials.ljust(2, '9')}9{person.fake.bothify('??', letters=UPPER)}"
    )


def irish_ppsn(person: Identity) -> str:
    number = digits(person.fake, 7)
    suffix = "A" if person.random.random() < 0.1 else ""
    return number + ie_vat.calc_check_digit(number + suffix) + suffix


def canadian_sin(person: Identity) -> str:
    body = digits(person.fake, 8, first="1234567")
    number = body + luhn.calc_check_digit(body)
    return _compact_or(person, number, grouped(number, (3, 3, 3), person.random.choice(" -")))


def ontario_health(person: Identity) -> str:
    body = digits(person.fake, 9, first="123456789")
    number = body + luhn.calc_check_digit(body)
    version = person.fake.bothify("??", letters=UPPER)
    return f"{grouped(number, (4, 3, 3), '-')}-{version}"


def ontario_licence(person: Identity) -> str:
    initial = (person.last_name[:1].upper() or "A") if person.last_name[:1].isascii() else "A"
    return f"{initial}{digits(person.fake, 4)}-{digits(person.fake, 5)}-{digits(person.fake, 5)}"


def australian_tfn(person: Identity) -> str:
    number = valid_draw(lambda: digits(person.fake, 9, first="123456789"), tfn.is_valid)
    return _compact_or(person, number, grouped(number, (3, 3, 3)))


def australian_medicare(person: Identity) -> str:
    """Medicare card number: first digit 2-6, 7 digits, a weighted check digit, the
    issue number; written 2123 45670 1."""
    body = digits(person.fake, 8, first="23456")
    check = sum(int(d) * w for d, w in zip(body, (1, 3, 7, 9, 1, 3, 7, 9), strict=True)) % 10
    number = f"{body}{check}{person.random.randint(1, 9)}"
    return _compact_or(person, number, grouped(number, (4, 5, 1)))


def irish_plate(person: Identity) -> str:
    year = person.random.choice(("08", "12", "151", "162", "191", "202", "231", "242"))
    county = person.random.choice(("D", "C", "G", "L", "KY", "WX", "MO", "DL", "KE", "MH"))
    return f"{year}-{county}-{person.random.randint(1, 29999)}"


COUNTRIES: dict[str, CountryIds] = {
    "US": CountryIds(
        national_id=us_ssn,
        tax_id=us_itin,
        health_insurance_id=us_medicare,
        passport=shapes("#########", "?########"),
        driver_license=shapes("?#######", "### ### ###", "?###-###-##-###-#", "########"),
        bank_account=account_digits(8, 12),
        license_plate=faker_plate,
    ),
    "GB": CountryIds(
        national_id=uk_nino,
        tax_id=uk_utr,
        health_insurance_id=uk_nhs,
        passport=shapes("#########"),
        driver_license=uk_driving_licence,
        bank_account=account_digits(8, 8),
        license_plate=faker_plate,
    ),
    "IE": CountryIds(
        national_id=irish_ppsn,
        tax_id=irish_ppsn,
        health_insurance_id=shapes("#######?", "########"),
        passport=shapes("??#######"),
        driver_license=shapes("### ### ###", "#########"),
        bank_account=account_digits(8, 8),
        license_plate=irish_plate,
    ),
    "CA": CountryIds(
        national_id=canadian_sin,
        tax_id=canadian_sin,
        health_insurance_id=ontario_health,
        passport=shapes("??######"),
        driver_license=ontario_licence,
        bank_account=shapes("#####-###-#######"),
        license_plate=faker_plate,
    ),
    "AU": CountryIds(
        national_id=shapes("###-###-###?", "### ### ###?"),
        tax_id=australian_tfn,
        health_insurance_id=australian_medicare,
        passport=shapes("?#######", "??#######"),
        driver_license=shapes("########", "#########"),
        bank_account=account_digits(6, 10),
        license_plate=faker_plate,
    ),
}
