"""IBANs, payment cards and national bank account numbers, with their check digits.

IBAN check digits are ISO 13616 mod 97, card numbers end with a Luhn digit, and the
national checks inside a BBAN (Belgian mod 97 and bank code, Spanish CCC, French RIB
key) hold too;
python-stdnum computes and validates them. Numbers are written compact or in the groups
of print (IBAN in fours, cards 4-4-4-4 or Amex 4-6-5).
"""

from __future__ import annotations

from collections.abc import Callable

from stdnum import iban as iso_iban
from stdnum import luhn
from stdnum.es import ccc

from scraping.queries.values.identity import Identity, digits, valid_draw

#: BBAN of each IBAN country drawn here: `#` a digit, `?` an upper-case letter.
BBAN: dict[str, str] = {
    "GB": "????##############",
    "IE": "????##############",
    "IT": "?######################",
    "CH": "#################",
    "DE": "##################",
    "AT": "################",
    "FR": "#######################",
    "BE": "############",
    "ES": "####################",
    "NL": "????##########",
    "LU": "################",
}


def _bban(person: Identity, country: str) -> str:
    fake = person.fake
    if country == "BE":
        body = digits(fake, 10)
        return body + f"{int(body) % 97 or 97:02d}"
    if country == "ES":
        bank, branch, account = digits(fake, 4), digits(fake, 4), digits(fake, 10)
        return bank + branch + ccc.calc_check_digits(bank + branch + "00" + account) + account
    if country == "FR":
        return french_rib(person).replace(" ", "")
    return fake.bothify(BBAN[country], letters="ABCDEFGHIJKLMNOPQRSTUVWXYZ")


def iban(person: Identity) -> str:
    """An IBAN of the person's country (of a neighbour where IBANs are not used)."""
    country = person.random.choice(person.locale.iban_countries)

    def draw() -> str:
        bban = _bban(person, country)
        return country + iso_iban.calc_check_digits(country + "00" + bban) + bban

    # The library also checks national rules (a Belgian IBAN needs a known bank code).
    number = valid_draw(draw, iso_iban.is_valid)
    return number if person.random.random() < 0.35 else iso_iban.format(number)


def french_rib(person: Identity) -> str:
    """Relevé d'identité bancaire: bank, branch, account, key (97 - weighted sum mod 97)."""
    bank, branch, account = digits(person.fake, 5), digits(person.fake, 5), digits(person.fake, 11)
    key = 97 - (89 * int(bank) + 15 * int(branch) + 3 * int(account)) % 97
    return f"{bank} {branch} {account} {key:02d}"


#: Card schemes: (prefixes, length, groups).
CARDS = (
    (("4",), 16, (4, 4, 4, 4)),
    (("51", "52", "53", "54", "55", "2221", "2720"), 16, (4, 4, 4, 4)),
    (("34", "37"), 15, (4, 6, 5)),
    (("6011", "65"), 16, (4, 4, 4, 4)),
)


def credit_card(person: Identity) -> str:
    prefixes, length, groups = person.random.choice(CARDS)
    prefix = person.random.choice(prefixes)
    body = prefix + digits(person.fake, length - len(prefix) - 1)
    number = body + luhn.calc_check_digit(body)
    roll = person.random.random()
    if roll < 0.3:
        return number
    separator = " " if roll < 0.8 else "-"
    parts, at = [], 0
    for size in groups:
        parts.append(number[at : at + size])
        at += size
    return separator.join(parts)


def belgian_account(person: Identity) -> str:
    """Old Belgian account number 123-4567890-12 (mod 97 check)."""
    body = digits(person.fake, 10)
    check = int(body) % 97 or 97
    return f"{body[:3]}-{body[3:]}-{check:02d}"


def spanish_ccc(person: Identity) -> str:
    """Código Cuenta Cliente: bank, branch, two check digits, account."""
    bank, branch, account = digits(person.fake, 4), digits(person.fake, 4), digits(person.fake, 10)
    check = ccc.calc_check_digits(bank + branch + "00" + account)
    return f"{bank} {branch} {check} {account}"


def mexican_clabe(person: Identity) -> str:
    """CLABE: 17 digits and a check digit (weights 3, 7, 1; 10 - sum mod 10)."""
    body = digits(person.fake, 17)
    total = sum(int(d) * (3, 7, 1)[i % 3] % 10 for i, d in enumerate(body))
    return body + str((10 - total % 10) % 10)


def account_digits(low: int, high: int) -> Callable[[Identity], str]:
    """A plain account number of `low` to `high` digits."""

    def make(person: Identity) -> str:
        return digits(person.fake, person.random.randint(low, high))

    return make
