"""What each supported locale writes: its Faker locale for names and words, its
country's identifiers, phone numbers, addresses, dates, IBAN country and web domains.

Faker has Italian data only for it_IT (its it_CH falls back to American names and
addresses) and no Belgian French (fr_BE likewise): those two take names and streets
from it_IT and fr_FR and the country's own postcodes, phones and identifiers.
"""

from __future__ import annotations

from dataclasses import dataclass

from gen.core.errors import UsageError
from scraping.queries.values import ids_english, ids_german, ids_latin
from scraping.queries.values.contacts import PhoneFormat
from scraping.queries.values.country import CountryIds
from scraping.queries.values.places import AddressLines, faker_lines, irish_lines, postcode_city

#: Day-first numeric dates, the European way.
_DAY_FIRST = ("{dd}/{mm}/{yyyy}", "{d}/{m}/{yyyy}", "{dd}.{mm}.{yyyy}", "{yyyy}-{mm}-{dd}")
_GERMAN_DATES = ("{dd}.{mm}.{yyyy}", "{d}.{m}.{yyyy}", "{dd}.{mm}.{yy}", "{yyyy}-{mm}-{dd}")


@dataclass(frozen=True)
class LocaleSpec:
    """One locale's formats (the language's words are in the pack: `Wording`)."""

    #: The Faker locale of names, streets, companies and free mail domains.
    faker: str
    #: The country's name on the last line of an address.
    country: str
    ids: CountryIds
    phone: PhoneFormat
    address: AddressLines
    #: Numeric date patterns, most usual first.
    date_formats: tuple[str, ...]
    #: Countries of the IBANs people of this locale hold.
    iban_countries: tuple[str, ...]
    #: Top-level domains of e-mail and web addresses.
    tlds: tuple[str, ...]
    #: How a price is written: `{amount}` with two decimals.
    price: str
    #: ISO code of the country (its real towns, from Faker's geo data).
    country_code: str = ""
    #: Faker locales whose names people of this country also bear (`NAME_MIX_SHARE`).
    name_mix: tuple[str, ...] = ()
    #: Postcode pattern where the Faker locale is another country's (`#` a digit).
    postcode: str = ""


#: Names from other countries in English and Italian texts, in Latin script.
_ENGLISH_MIX = ("en_IN", "nl_NL", "ga_IE", "yo_NG", "pl_PL", "es_ES", "de_DE", "it_IT", "tr_TR")
_ITALIAN_MIX = ("ro_RO", "sq_AL", "es_ES", "fr_FR", "de_DE", "pl_PL", "en_GB", "en_IN", "yo_NG")
_EUROPEAN_MIX = ("it_IT", "tr_TR", "pl_PL", "pt_PT", "es_ES", "en_GB", "hr_HR", "ro_RO")
_LATIN_AMERICAN_MIX = ("es_ES", "pt_BR", "en_US", "it_IT", "fr_FR")

_SWISS_PHONE = PhoneFormat("41", "0", ("0%# ### ## ##", "07% ### ## ##"))

LOCALES: dict[str, LocaleSpec] = {
    "en_US": LocaleSpec(
        "en_US", "United States", ids_english.COUNTRIES["US"],
        PhoneFormat("1", "", ("(%##) %##-####", "%##-%##-####", "%## %## ####", "%##.%##.####")),
        faker_lines, ("{mm}/{dd}/{yyyy}", "{m}/{d}/{yyyy}", "{m}/{d}/{yy}", "{yyyy}-{mm}-{dd}"),
        ("GB", "DE", "FR", "NL"), ("com", "com", "net", "org", "us"), "${amount}",
        country_code="US", name_mix=_ENGLISH_MIX,
    ),
    "en_GB": LocaleSpec(
        "en_GB", "United Kingdom", ids_english.COUNTRIES["GB"],
        PhoneFormat("44", "0", ("020 %### ####", "07%## ######", "01%## ######", "0161 %## ####")),
        faker_lines, ("{dd}/{mm}/{yyyy}", "{d}/{m}/{yyyy}", "{dd}-{mm}-{yyyy}", "{dd}.{mm}.{yy}"),
        ("GB",), ("co.uk", "co.uk", "org.uk", "com", "uk"), "£{amount}",
        country_code="GB", name_mix=_ENGLISH_MIX,
    ),
    "en_IE": LocaleSpec(
        "en_IE", "Ireland", ids_english.COUNTRIES["IE"],
        PhoneFormat("353", "0", ("01 %## ####", "08% ### ####", "021 %## ####", "091 %#####")),
        irish_lines, _DAY_FIRST, ("IE",), ("ie", "ie", "com", "eu"), "€{amount}",
        country_code="IE", name_mix=_ENGLISH_MIX,
    ),
    "en_CA": LocaleSpec(
        "en_CA", "Canada", ids_english.COUNTRIES["CA"],
        PhoneFormat("1", "", ("(%##) %##-####", "%##-%##-####", "%## %## ####")),
        faker_lines, ("{yyyy}-{mm}-{dd}", "{dd}/{mm}/{yyyy}", "{mm}/{dd}/{yyyy}"),
        ("GB", "FR"), ("ca", "ca", "com", "net"), "${amount}",
        country_code="CA", name_mix=_ENGLISH_MIX,
    ),
    "en_AU": LocaleSpec(
        "en_AU", "Australia", ids_english.COUNTRIES["AU"],
        PhoneFormat("61", "0", ("04%# ### ###", "02 %### ####", "03 %### ####", "08 %### ####")),
        faker_lines, ("{dd}/{mm}/{yyyy}", "{d}/{m}/{yyyy}", "{dd}/{mm}/{yy}", "{dd}-{mm}-{yyyy}"),
        ("GB",), ("com.au", "com.au", "net.au", "org.au", "com"), "A${amount}",
        country_code="AU", name_mix=_ENGLISH_MIX,
    ),
    "it_IT": LocaleSpec(
        "it_IT", "Italia", ids_latin.ITALY,
        PhoneFormat("39", "", ("3%# ### ####", "3%# #######", "06 %### ####", "02 %#######")),
        faker_lines, ("{dd}/{mm}/{yyyy}", "{d}/{m}/{yyyy}", "{dd}-{mm}-{yyyy}", "{dd}.{mm}.{yyyy}"),
        ("IT",), ("it", "it", "com", "eu", "net"), "{amount} €",
        country_code="IT", name_mix=_ITALIAN_MIX,
    ),
    "it_CH": LocaleSpec(
        "it_IT", "Svizzera", ids_german.switzerland(("TI", "GR")), _SWISS_PHONE,
        postcode_city("6###"), ("{dd}.{mm}.{yyyy}", "{dd}/{mm}/{yyyy}", "{d}.{m}.{yyyy}"),
        ("CH",), ("ch", "ch", "com", "swiss"), "CHF {amount}",
        country_code="CH", name_mix=_ITALIAN_MIX, postcode="6###",
    ),
    "de_DE": LocaleSpec(
        "de_DE", "Deutschland", ids_german.GERMANY,
        PhoneFormat("49", "0", ("030 %#######", "0151 %#######", "089 %######", "0%## ######")),
        faker_lines, _GERMAN_DATES, ("DE",), ("de", "de", "com", "net", "eu"), "{amount} €",
        country_code="DE", name_mix=_EUROPEAN_MIX,
    ),
    "de_AT": LocaleSpec(
        "de_AT", "Österreich", ids_german.AUSTRIA,
        PhoneFormat("43", "0", ("01 %######", "0664 %######", "0316 %#####", "0676 %## ####")),
        faker_lines, _GERMAN_DATES, ("AT",), ("at", "at", "co.at", "com"), "€ {amount}",
        country_code="AT", name_mix=_EUROPEAN_MIX,
    ),
    "de_CH": LocaleSpec(
        "de_CH", "Schweiz", ids_german.switzerland(("ZH", "BE", "LU", "AG", "SG", "BS", "ZG")),
        _SWISS_PHONE, faker_lines, _GERMAN_DATES, ("CH",), ("ch", "ch", "com"), "CHF {amount}",
        country_code="CH", name_mix=_EUROPEAN_MIX,
    ),
    "fr_FR": LocaleSpec(
        "fr_FR", "France", ids_latin.FRANCE,
        PhoneFormat("33", "0", ("0% ## ## ## ##", "06 ## ## ## ##", "07 ## ## ## ##")),
        faker_lines, ("{dd}/{mm}/{yyyy}", "{d}/{m}/{yyyy}", "{dd}-{mm}-{yyyy}", "{dd}.{mm}.{yyyy}"),
        ("FR",), ("fr", "fr", "com", "net", "eu"), "{amount} €",
        country_code="FR", name_mix=_EUROPEAN_MIX,
    ),
    "fr_BE": LocaleSpec(
        "fr_FR", "Belgique", ids_latin.BELGIUM,
        PhoneFormat("32", "0", ("04%# ## ## ##", "02 %## ## ##", "0% %## ## ##")),
        postcode_city("####", number_after_street=True), _DAY_FIRST, ("BE",),
        ("be", "be", "com", "eu"), "{amount} €",
        country_code="BE", name_mix=_EUROPEAN_MIX, postcode="####",
    ),
    "fr_CH": LocaleSpec(
        "fr_CH", "Suisse", ids_german.switzerland(("GE", "VD", "NE", "FR", "VS", "JU")),
        _SWISS_PHONE, faker_lines, ("{dd}.{mm}.{yyyy}", "{dd}/{mm}/{yyyy}", "{d}.{m}.{yyyy}"),
        ("CH",), ("ch", "ch", "com"), "CHF {amount}",
        country_code="CH", name_mix=_EUROPEAN_MIX,
    ),
    "es_ES": LocaleSpec(
        "es_ES", "España", ids_latin.SPAIN,
        PhoneFormat("34", "", ("6%# ## ## ##", "6%# ### ###", "91 %## ## ##", "93 %## ## ##")),
        faker_lines, _DAY_FIRST, ("ES",), ("es", "es", "com", "net", "eu"), "{amount} €",
        country_code="ES", name_mix=_EUROPEAN_MIX,
    ),
    "es_MX": LocaleSpec(
        "es_MX", "México", ids_latin.MEXICO,
        PhoneFormat("52", "", ("55 %### ####", "33 %### ####", "81 %### ####", "%## %## ####")),
        faker_lines, ("{dd}/{mm}/{yyyy}", "{d}/{m}/{yyyy}", "{dd}-{mm}-{yyyy}"),
        ("ES",), ("com.mx", "mx", "com", "org.mx"), "${amount} MXN",
        country_code="MX", name_mix=_LATIN_AMERICAN_MIX,
    ),
}  # fmt: skip


def locale_spec(locale: str) -> LocaleSpec:
    """The formats of `locale`; a UsageError naming the supported ones otherwise."""
    spec = LOCALES.get(locale)
    if spec is None:
        raise UsageError(f"unsupported locale {locale!r}; supported: {', '.join(LOCALES)}")
    return spec
