"""PII spans for free: the persona values put into the generation prompt are looked up
in the generated text.

Matching is exact up to case, on whole words only (a surname never matches inside a
longer word), longest value first, and never overlapping: "Anna Rossi" is one PERSON
span, not "Anna" plus "Rossi". First and last names are also found alone; because a
single name can be an ordinary word (Rose, Brown, Bianco), a lone name in all lower
case is not taken for a name. The doctor's title ("Dott.ssa", "Dr.": the pack's
`doctor_title`) is left out of the doctor's PERSON span, as the gold guideline asks, so the
name is also found after another title or none.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Mapping

from gen.core.records import Span

SOURCE = "faker"

#: Persona fields located in the text, and their label. gender, age and job are
#: ordinary words and are not located.
FIELD_LABELS: dict[str, str] = {
    "name": "PERSON",
    "first_name": "PERSON",
    "last_name": "PERSON",
    "doctor": "PERSON",
    "birth_date": "DATE_OF_BIRTH",
    "city": "LOCATION",
    "address": "ADDRESS",
    "employer": "ORGANIZATION",
    "email": "EMAIL",
    "phone": "PHONE",
}

#: Fields whose value is one name that may also be an ordinary word.
_SINGLE_NAMES = frozenset({"first_name", "last_name"})
#: Shorter values match too much by chance.
_MIN_CHARS = 2


def persona_values(
    persona: Mapping[str, str | None], titles: Collection[str] = ()
) -> list[tuple[str, str, bool]]:
    """(value, label, is a single name) to look for, longest first, each value once; the
    doctor's name without a leading title of `titles`."""
    values: dict[str, tuple[str, str, bool]] = {}
    for field, label in FIELD_LABELS.items():
        value = (persona.get(field) or "").strip()
        if field == "doctor":
            value = _without_title(value, titles)
        if len(value) < _MIN_CHARS:
            continue
        values.setdefault(value.casefold(), (value, label, field in _SINGLE_NAMES))
    return sorted(values.values(), key=lambda item: (-len(item[0]), item[0]))


def _without_title(name: str, titles: Collection[str]) -> str:
    for title in sorted(titles, key=len, reverse=True):
        if name.startswith(f"{title} "):
            return name[len(title) :].strip()
    return name


def _occurrences(text: str, value: str, single_name: bool) -> Iterator[tuple[int, int]]:
    pattern = re.compile(rf"(?<!\w){re.escape(value)}(?!\w)", re.IGNORECASE)
    for match in pattern.finditer(text):
        if single_name and match.group().islower():
            continue
        yield match.span()


def persona_spans(
    text: str, persona: Mapping[str, str | None] | None, titles: Collection[str] = ()
) -> list[Span]:
    """Non-overlapping spans of the persona's values in `text`, sorted by start; `titles`
    are the pack's doctor titles."""
    if not persona:
        return []
    taken: list[Span] = []
    for value, label, single_name in persona_values(persona, titles):
        for start, end in _occurrences(text, value, single_name):
            if not any(span.overlap(start, end) for span in taken):
                taken.append(Span(start, end, label, SOURCE))
    return sorted(taken, key=lambda span: span.start)
