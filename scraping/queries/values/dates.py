"""Dates in a locale's numeric forms and in words: the date of birth (a span) and other
dates (`{DATE}`, no span) written the same ways, so that a detector learns from the
context, not the form, which date is a birth date.

Numeric patterns belong to the country (`LocaleSpec.date_formats`: `{d}` `{dd}` `{m}`
`{mm}` `{yy}` `{yyyy}`); patterns in words and month names to the language (the pack's
`date_words` and `MONTH` filler).
"""

from __future__ import annotations

from datetime import date

from faker import Faker

from scraping.queries.values.identity import Identity, Wording


def write_date(day: date, fake: Faker, numeric: tuple[str, ...], wording: Wording) -> str:
    """`day` in one of the numeric patterns or, now and then, in words."""
    if wording.months and wording.date_words and fake.random.random() < 0.3:
        pattern = fake.random.choice(wording.date_words)
        return pattern.format(day=day.day, month=wording.months[day.month - 1], year=day.year)
    return fake.random.choice(numeric).format(
        d=day.day,
        dd=f"{day.day:02d}",
        m=day.month,
        mm=f"{day.month:02d}",
        yy=f"{day.year % 100:02d}",
        yyyy=day.year,
    )


def date_of_birth(person: Identity) -> str:
    return write_date(person.birth_date, person.fake, person.locale.date_formats, person.wording)


def any_date(fake: Faker, numeric: tuple[str, ...], wording: Wording) -> str:
    """A date of recent years that is nobody's birthday: a delivery, a visit, a deadline."""
    day = date.fromordinal(
        fake.random.randint(date(2015, 1, 1).toordinal(), date(2027, 12, 31).toordinal())
    )
    return write_date(day, fake, numeric, wording)
