"""Fictional identifier values for query templates, per locale.

Each placeholder of a template is either an identity placeholder, filled from one
fictional person (`identity.Identity`) and labeled, or a filler, text that identifies
no one (a date, an order number, a price) and gets no span. Providers, one module per
concern: `names`, `contacts` (e-mail, phone, URL, user name), `places` (addresses,
towns), `finance` (IBAN, cards, bank accounts), `network` (IP, MAC), `dates`, and the
national identifiers per country (`ids_english`, `ids_german`, `ids_latin`), wired to
the locales in `locales`.
"""

from __future__ import annotations

from collections.abc import Callable

from faker import Faker

from scraping.queries.values import contacts, dates, finance, names, network, places
from scraping.queries.values.identity import Identity, Value, Wording
from scraping.queries.values.locales import LOCALES, LocaleSpec, locale_spec

#: The PII span labels a query can carry, in table order (shared with the PII gold set).
LABELS = (
    "PERSON",
    "ORGANIZATION",
    "LOCATION",
    "ADDRESS",
    "EMAIL",
    "PHONE",
    "IBAN",
    "CREDIT_CARD",
    "NATIONAL_ID",
    "TAX_ID",
    "HEALTH_INSURANCE_ID",
    "PASSPORT",
    "DRIVER_LICENSE",
    "BANK_ACCOUNT",
    "LICENSE_PLATE",
    "IP_ADDRESS",
    "MAC_ADDRESS",
    "URL",
    "USERNAME",
    "DATE_OF_BIRTH",
)

#: Placeholders that write another form of a label's value: the name alone, with a
#: title, as initials; the address as a multi-line block, or its postcode alone.
FORMS = {
    "FIRST_NAME": "PERSON",
    "LAST_NAME": "PERSON",
    "TITLE_NAME": "PERSON",
    "INITIALS_NAME": "PERSON",
    "ADDRESS_BLOCK": "ADDRESS",
    "POSTCODE": "ADDRESS",
}

#: Suffix of the placeholders of a query's second person (`{PERSON_2}`, `{EMAIL_2}`).
SECOND = "_2"

#: Words that identify no one, drawn for the locale, without a span. Word lists
#: (weekdays, products...) are language data: the `fillers` of the pack.
BUILTIN_FILLERS = ("TIME", "NUMBER", "AMOUNT", "PRICE", "DATE", "REF", "VERSION", "ROOM")

IdentityMaker = Callable[[Identity], "str | Value"]
FillerMaker = Callable[[Faker], str]


def label_of(placeholder: str) -> str | None:
    """The span label a placeholder writes, or None for a filler."""
    base = placeholder.removesuffix(SECOND)
    return base if base in LABELS else FORMS.get(base)


def identity_placeholders() -> tuple[str, ...]:
    """Every identity placeholder, of the first and of the second person."""
    bases = (*LABELS, *FORMS)
    return (*bases, *(base + SECOND for base in bases))


def _country(field: str) -> IdentityMaker:
    return lambda person: getattr(person.locale.ids, field)(person)


#: One maker per identity placeholder base name.
IDENTITY_MAKERS: dict[str, IdentityMaker] = {
    "PERSON": names.full_name,
    "FIRST_NAME": names.first_name,
    "LAST_NAME": names.last_name,
    "TITLE_NAME": names.title_name,
    "INITIALS_NAME": names.initials_name,
    "ORGANIZATION": names.organization,
    "LOCATION": places.location,
    "ADDRESS": places.address,
    "ADDRESS_BLOCK": places.address_block,
    "POSTCODE": places.postcode,
    "EMAIL": contacts.email,
    "PHONE": contacts.phone,
    "URL": contacts.url,
    "USERNAME": contacts.username,
    "IBAN": finance.iban,
    "CREDIT_CARD": finance.credit_card,
    "IP_ADDRESS": network.ip_address,
    "MAC_ADDRESS": network.mac_address,
    "DATE_OF_BIRTH": dates.date_of_birth,
    **{
        label: _country(label.lower())
        for label in (
            "NATIONAL_ID",
            "TAX_ID",
            "HEALTH_INSURANCE_ID",
            "PASSPORT",
            "DRIVER_LICENSE",
            "BANK_ACCOUNT",
            "LICENSE_PLATE",
        )
    },
}


def _reference(fake: Faker) -> str:
    """An order, ticket or invoice number."""
    shape = fake.random.choice(
        (
            "#######",
            "ORD-####-######",
            "INV/####/#####",
            "TCK-#####",
            "??-#####-?",
            "SR#######",
            "##-####-##",
            "#??########",
            "PO ######",
            "CASE-######",
        )
    )
    return fake.bothify(shape, letters="ABCDEFGHJKLMNPRSTUVWXYZ")


def _version(fake: Faker) -> str:
    major, minor, patch = (
        fake.random.randint(1, 24),
        fake.random.randint(0, 19),
        fake.random.randint(0, 40),
    )
    return fake.random.choice((f"{major}.{minor}.{patch}", f"v{major}.{minor}", f"{major}.{minor}"))


def _room(fake: Faker) -> str:
    return fake.bothify(
        fake.random.choice(("?###", "#.##", "###", "?-##", "#??")), letters="ABCDEFGH"
    )


def filler_makers(locale: str, wording: Wording) -> dict[str, FillerMaker]:
    """One maker per built-in filler. Only the seeded random source is used (Faker's
    date fillers depend on today's date), so a query is the same whenever made."""
    spec = locale_spec(locale)

    def price(fake: Faker) -> str:
        amount = fake.random.randint(100, 250000) / 100
        text = f"{amount:,.2f}"
        if not spec.faker.startswith("en") and not spec.price.startswith("CHF"):
            text = text.replace(",", " ").replace(".", ",").replace(" ", ".")
        return spec.price.format(amount=text)

    return {
        "TIME": lambda f: f"{f.random.randint(0, 23):02d}:{f.random.randint(0, 59):02d}",
        "NUMBER": lambda f: str(f.random_int(2, 30)),
        "AMOUNT": price,
        "PRICE": price,
        "DATE": lambda f: dates.any_date(f, spec.date_formats, wording),
        "REF": _reference,
        "VERSION": _version,
        "ROOM": _room,
    }


def new_identity(fake: Faker, locale: str, wording: Wording) -> Identity:
    return Identity(fake, locale_spec(locale), wording)


__all__ = [
    "BUILTIN_FILLERS",
    "FORMS",
    "IDENTITY_MAKERS",
    "LABELS",
    "LOCALES",
    "SECOND",
    "Identity",
    "LocaleSpec",
    "Value",
    "Wording",
    "filler_makers",
    "identity_placeholders",
    "label_of",
    "locale_spec",
    "new_identity",
]
