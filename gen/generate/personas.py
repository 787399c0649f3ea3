"""Fictional people drawn with Faker, one per document.

The values go into the prompt and are stored with the document, so that the
labeling stage can mark them as PII spans exactly.
"""

from __future__ import annotations

from datetime import date

from faker import Faker

#: Fixed reference day for ages, so that a persona does not change with the calendar.
REFERENCE_DAY = date(2026, 1, 1)


def draw_persona(locale: str, seed: int, *, date_format: str = "%Y-%m-%d") -> dict[str, str]:
    """A persona that depends only on (locale, seed); keys are `gen.core.records.PERSONA_FIELDS`."""
    fake = Faker(locale)
    fake.seed_instance(seed)
    gender = fake.random_element(("female", "male"))
    if gender == "female":
        first_name, last_name = fake.first_name_female(), fake.last_name_female()
    else:
        first_name, last_name = fake.first_name_male(), fake.last_name_male()
    birth = fake.date_between_dates(
        REFERENCE_DAY.replace(year=REFERENCE_DAY.year - 85),
        REFERENCE_DAY.replace(year=REFERENCE_DAY.year - 18),
    )
    had_birthday = (REFERENCE_DAY.month, REFERENCE_DAY.day) >= (birth.month, birth.day)
    age = REFERENCE_DAY.year - birth.year - (0 if had_birthday else 1)
    return {
        "name": f"{first_name} {last_name}",
        "first_name": first_name,
        "last_name": last_name,
        "gender": gender,
        "birth_date": birth.strftime(date_format),
        "age": str(age),
        "city": fake.city(),
        "address": fake.street_address(),
        "employer": fake.company(),
        "job": fake.job(),
        "doctor": fake.name(),
        "email": fake.email(),
        "phone": fake.phone_number(),
    }
