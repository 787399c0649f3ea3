"""Value providers of `gen queries`: every locale's identifiers are valid for their
country (check digits verified by python-stdnum), agree with the person they belong to,
and come in the shapes the world writes them."""

from __future__ import annotations

import ipaddress
import re
from datetime import date

import pytest
from faker import Faker
from stdnum import iban, luhn
from stdnum.at import tin as at_tin
from stdnum.at import vnr
from stdnum.au import tfn
from stdnum.be import nn
from stdnum.ca import sin
from stdnum.ch import esr
from stdnum.ch import ssn as ahv
from stdnum.de import idnr
from stdnum.es import dni, nie, nif
from stdnum.fr import nif as fr_nif
from stdnum.fr import nir
from stdnum.gb import nhs, utr
from stdnum.ie import pps
from stdnum.it import codicefiscale
from stdnum.mx import curp, rfc
from stdnum.us import itin, ssn

from scraping.queries.values import IDENTITY_MAKERS, LOCALES, Identity, Wording, new_identity

WORDING = Wording(
    titles_male=("Dr", "Mr"),
    titles_female=("Dr", "Ms"),
    months=tuple(f"M{i}" for i in range(1, 13)),
    date_words=("{day} {month} {year}",),
)
SEEDS = range(40)


def people(locale: str) -> list[Identity]:
    fake = Faker(LOCALES[locale].faker)
    found = []
    for seed in SEEDS:
        fake.seed_instance(f"{locale}-{seed}")
        found.append(new_identity(fake, locale, WORDING))
    return found


def values(locale: str, name: str) -> list[tuple[Identity, str]]:
    return [(p, p.value(name, IDENTITY_MAKERS[name]).text) for p in people(locale)]


def compact(text: str) -> str:
    return re.sub(r"[\s./-]", "", text)


#: Validators of (locale, label): python-stdnum where the number has a check.
CHECKED = {
    ("en_US", "NATIONAL_ID"): ssn.is_valid,
    ("en_US", "TAX_ID"): itin.is_valid,
    ("en_GB", "TAX_ID"): utr.is_valid,
    ("en_GB", "HEALTH_INSURANCE_ID"): nhs.is_valid,
    ("en_IE", "NATIONAL_ID"): pps.is_valid,
    ("en_IE", "TAX_ID"): pps.is_valid,
    ("en_CA", "NATIONAL_ID"): sin.is_valid,
    ("en_CA", "HEALTH_INSURANCE_ID"): lambda v: luhn.is_valid(compact(v)[:10]),
    ("en_AU", "TAX_ID"): tfn.is_valid,
    ("it_IT", "TAX_ID"): codicefiscale.is_valid,
    ("it_IT", "HEALTH_INSURANCE_ID"): luhn.is_valid,
    ("it_CH", "TAX_ID"): ahv.is_valid,
    ("it_CH", "HEALTH_INSURANCE_ID"): luhn.is_valid,
    ("it_CH", "BANK_ACCOUNT"): lambda v: esr.is_valid("{}{:0>6}{}".format(*v.split("-"))),
    ("de_DE", "TAX_ID"): idnr.is_valid,
    ("de_AT", "TAX_ID"): at_tin.is_valid,
    ("de_AT", "HEALTH_INSURANCE_ID"): vnr.is_valid,
    ("de_CH", "TAX_ID"): ahv.is_valid,
    ("fr_FR", "TAX_ID"): fr_nif.is_valid,
    ("fr_FR", "HEALTH_INSURANCE_ID"): nir.is_valid,
    ("fr_BE", "TAX_ID"): nn.is_valid,
    ("fr_BE", "HEALTH_INSURANCE_ID"): nn.is_valid,
    ("fr_CH", "TAX_ID"): ahv.is_valid,
    ("es_ES", "NATIONAL_ID"): lambda v: dni.is_valid(v) or nie.is_valid(v),
    ("es_ES", "TAX_ID"): nif.is_valid,
    ("es_MX", "NATIONAL_ID"): curp.is_valid,
    ("es_MX", "TAX_ID"): rfc.is_valid,
    ("es_MX", "HEALTH_INSURANCE_ID"): luhn.is_valid,
}


@pytest.mark.parametrize(("locale", "label"), sorted(CHECKED))
def test_national_identifiers_pass_their_checks(locale: str, label: str) -> None:
    for _, value in values(locale, label):
        assert CHECKED[locale, label](value), (locale, label, value)


def german_health_number_is_valid(value: str) -> bool:
    body = f"{ord(value[0]) - 64:02d}{value[1:9]}"
    total = sum(
        int(d) * (1, 2)[i % 2] // 10 + int(d) * (1, 2)[i % 2] % 10 for i, d in enumerate(body)
    )
    return total % 10 == int(value[9])


def test_hand_written_checks_hold() -> None:
    """Checks python-stdnum does not know: German health number, Australian Medicare,
    Spanish NUSS, Mexican CLABE, Belgian account, Spanish CCC and French RIB in IBANs."""
    assert all(german_health_number_is_valid(v) for _, v in values("de_DE", "HEALTH_INSURANCE_ID"))
    for _, value in values("en_AU", "HEALTH_INSURANCE_ID"):
        digits = [int(d) for d in compact(value)]
        weights = (1, 3, 7, 9, 1, 3, 7, 9)
        assert sum(d * w for d, w in zip(digits, weights, strict=False)) % 10 == digits[8]
    for _, value in values("es_ES", "HEALTH_INSURANCE_ID"):
        number = compact(value)
        assert int(number[:10]) % 97 == int(number[10:]), value
    for _, value in values("es_MX", "BANK_ACCOUNT"):
        total = sum(int(d) * (3, 7, 1)[i % 3] % 10 for i, d in enumerate(value[:17]))
        assert (10 - total % 10) % 10 == int(value[17]), value
    for _, value in values("fr_BE", "BANK_ACCOUNT"):
        number = compact(value)
        assert (int(number[:10]) % 97 or 97) == int(number[10:]), value


@pytest.mark.parametrize("locale", sorted(LOCALES))
def test_every_label_of_every_locale_is_made(locale: str) -> None:
    for person in people(locale)[:10]:
        for name, make in IDENTITY_MAKERS.items():
            value = person.value(name, make)
            start, end = value.span
            assert 0 <= start < end <= len(value.text), (locale, name, value)
            written = value.text[start:end]
            assert written == written.strip() and written, (locale, name, value)


@pytest.mark.parametrize("locale", sorted(LOCALES))
def test_ibans_cards_and_network_addresses_are_valid(locale: str) -> None:
    for _, value in values(locale, "IBAN"):
        assert iban.is_valid(value), value
        assert value.replace(" ", "")[:2] in LOCALES[locale].iban_countries
    for _, value in values(locale, "CREDIT_CARD"):
        assert luhn.is_valid(compact(value)) and len(compact(value)) in (15, 16), value
    for _, value in values(locale, "IP_ADDRESS"):
        ipaddress.ip_address(value)
    for _, value in values(locale, "MAC_ADDRESS"):
        assert re.fullmatch(
            r"([\da-f]{2}[:-]){5}[\da-f]{2}|([\da-f]{4}\.){2}[\da-f]{4}", value, re.I
        )
    for _, value in values(locale, "EMAIL"):
        assert re.fullmatch(r"[\w.+-]+@[\w-]+(\.[\w-]+)+", value, re.ASCII), value


def test_shapes_vary() -> None:
    """IPv4 and IPv6 (compressed and full), several e-mail shapes, international and
    national phone numbers, names with and without middle parts."""
    ips = [v for _, v in values("en_GB", "IP_ADDRESS")] + [
        v for _, v in values("it_IT", "IP_ADDRESS")
    ]
    assert any("." in v for v in ips) and any("::" in v for v in ips)
    assert any(len(v) == 39 for v in ips)  # an IPv6 address written in full
    phones = [v for _, v in values("it_IT", "PHONE")]
    assert any(v.startswith(("+39", "0039")) for v in phones) and any(v[0] in "03" for v in phones)
    mails = {re.sub(r"[a-z]+", "a", v.split("@")[0]) for _, v in values("en_US", "EMAIL")}
    assert len(mails) >= 5
    assert len({v.count(" ") for _, v in values("en_US", "PERSON")}) >= 2
    assert any(ipaddress.ip_address(v) in ipaddress.ip_network("2001:db8::/32") for v in ips)
    assert any(v.startswith(("192.0.2.", "198.51.100.", "203.0.113.")) for v in ips)
    assert any("example." in v for _, v in values("en_GB", "EMAIL"))


def test_names_of_other_origins_and_real_towns() -> None:
    """A share of people bear names of the locale's `name_mix` locales; towns are real
    ones of the country (Faker's geo data) as well as Faker's invented ones."""
    from faker.providers.geo import Provider

    british = Faker("en_GB")
    own = {british.first_name() for _ in range(3000)}
    firsts = [p.first_name for p in people("en_GB") * 3 if p.first_name]
    assert any(name not in own for name in firsts)
    real = {place[2] for place in Provider.land_coords if place[3] == "GB"}
    assert any(v in real for _, v in values("en_GB", "LOCATION"))


def test_identifiers_of_one_person_agree() -> None:
    for person, value in values("it_IT", "TAX_ID"):
        assert codicefiscale.get_birth_date(value) == person.birth_date
        assert codicefiscale.get_gender(value) == ("F" if person.female else "M")
    for person, value in values("fr_FR", "HEALTH_INSURANCE_ID"):
        number = compact(value)
        assert number[0] == ("2" if person.female else "1")
        assert number[1:5] == person.birth_date.strftime("%y%m")
    for person, value in values("fr_BE", "TAX_ID"):
        assert nn.get_birth_date(value) == person.birth_date
    for person, value in values("de_AT", "HEALTH_INSURANCE_ID"):
        assert compact(value)[4:] == person.birth_date.strftime("%d%m%y")
    for person, value in values("en_GB", "DRIVER_LICENSE"):
        assert value[:5].rstrip("9") == re.sub(r"[^A-Z]", "", person.last_name.upper())[:5]
    matching = sum(
        person.last_name.lower()[:3] in value.lower()
        or person.first_name.lower()[:3] in value.lower()
        for person, value in values("en_US", "EMAIL")
    )
    assert matching >= len(SEEDS) // 2  # usually made from the name, sometimes not


def test_a_title_stays_outside_the_name_span() -> None:
    spans = [p.value("TITLE_NAME", IDENTITY_MAKERS["TITLE_NAME"]) for p in people("en_GB")]
    for value in spans:
        start, end = value.span
        name = value.text[start:end]
        assert value.text[:start].strip() in ("", "Dr", "Mr", "Ms")
        assert not name.startswith(("Dr", "Mr ", "Ms "))
    assert any(value.start > 0 for value in spans)


def test_dates_of_birth_in_numbers_and_words() -> None:
    written = [(p.birth_date, v) for p, v in values("de_DE", "DATE_OF_BIRTH")]
    assert all(date(1938, 1, 1) <= born <= date(2006, 12, 31) for born, _ in written)
    assert any(re.fullmatch(r"\d\d?\.\d\d?\.\d{2,4}", v) for _, v in written)
    assert any(v == f"{born.day} M{born.month} {born.year}" for born, v in written)


def test_address_blocks_have_lines_and_one_line_addresses_none() -> None:
    blocks = [v for _, v in values("en_IE", "ADDRESS_BLOCK")] + [
        v for _, v in values("it_CH", "ADDRESS_BLOCK")
    ]
    assert all("\n" in v for v in blocks)
    assert any(v.splitlines()[-1] in ("Ireland", "IRELAND", "Svizzera", "SVIZZERA") for v in blocks)
    assert all("\n" not in v for _, v in values("fr_BE", "ADDRESS"))
    assert all(re.search(r"\b6\d{3} ", v) for v in blocks[len(SEEDS) :])  # Ticino postcodes
