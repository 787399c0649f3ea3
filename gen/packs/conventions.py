"""One country per document: a pack's forms follow the conventions of its personas' locale.

A persona is of one country, its Faker locale's (address, postcode, phone, national
identifiers); the forms, facts and dates the pack writes around it must be of the same
country, or a British form shows an American birth date beside a day-first issue date. The
locale's conventions are those `gen queries` writes for it
(`scraping.queries.values.locales`): the order of day and month in a numeric date, and the
currency of its prices. A pack whose `shapes.yaml` date format, persona birth-date formats
or amounts follow another country is refused, one line per problem.
"""

from __future__ import annotations

import re
from pathlib import Path

from gen.core.errors import GenError, UsageError
from gen.core.packs import LanguagePack
from gen.core.placeholders import template_pieces
from gen.core.yamlio import located_message
from scraping.queries.values import locale_spec

#: Currency signs a pack may write an amount with; the locale's own is the one allowed.
CURRENCY_SIGNS = ("$", "£", "€")
_DAY, _MONTH = {"dd", "d", "day", "%d", "%e", "%-d"}, {"mm", "m", "month", "month_name"}
_STRFTIME = re.compile(r"%-?[a-zA-Z]")


def _order(fields: list[str]) -> str | None:
    """ "dm" or "md": which of day and month `fields` name first; None without both."""
    seen = [
        "d" if name in _DAY else "m"
        for name in fields
        if name in _DAY or name in _MONTH or name in {"%m", "%-m", "%b", "%B"}
    ]
    return "".join(seen[:2]) if {"d", "m"} <= set(seen) else None


def locale_order(locale: str) -> str | None:
    """The order of day and month in the locale's usual numeric date ("dm" for en_GB)."""
    for pattern in locale_spec(locale).date_formats:
        order = _order([name for _, name in template_pieces(pattern) if name])
        if order and not pattern.startswith("{yyyy}"):
            return order
    return None


def _written(order: str) -> str:
    return "the day first" if order == "dm" else "the month first"


def convention_problems(pack: LanguagePack) -> list[str]:
    """One line per file that follows another country than the personas' locale."""
    locale = pack.language.faker_locale
    try:
        spec = locale_spec(locale)
    except UsageError:  # said by the queries check of `gen packs check`
        return []
    order = locale_order(locale)
    why = f"the personas' locale {locale} (language.yaml faker_locale) writes"
    problems = []
    shapes = pack.folder / "shapes.yaml"
    try:
        date_format = pack.shapes.date_format if order and shapes.is_file() else ""
    except GenError:  # said by the shapes check of `gen packs check`
        date_format = ""
    found = _order(_STRFTIME.findall(date_format))
    if order and found and found != order:
        what = f"{date_format!r}: {why} {_written(order)}"
        problems.append(located_message(shapes, ("date_format",), what))
    persona = pack.folder / "persona.yaml"
    for number, pattern in enumerate(pack.persona.birth_date_formats):
        found = _order([name for _, name in template_pieces(pattern) if name])
        if order and found and found != order:
            loc = ("birth_date_formats", number)
            problems.append(located_message(persona, loc, f"{pattern!r}: {why} {_written(order)}"))
            break
    sign = spec.price.replace("{amount}", "").strip()
    if sign in CURRENCY_SIGNS:
        for path in (shapes, pack.folder / "facts.yaml"):
            problems += _foreign_amounts(path, sign, f"{why} amounts in {sign!r}")
    return problems


def _foreign_amounts(path: Path, own: str, why: str) -> list[str]:
    """The first line of `path` holding an amount in another currency than `own`."""
    if not path.is_file():
        return []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.lstrip().startswith("#"):
            continue
        for sign in CURRENCY_SIGNS:
            if sign != own and re.search(rf"{re.escape(sign)}\s?\d|\d\s?{re.escape(sign)}", line):
                return [f"{path}: line {number}: an amount in {sign!r}; {why}"]
    return []
