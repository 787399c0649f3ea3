"""PII spans for free: the persona values put into the generation prompt are looked up
in the generated text.

Matching is exact up to case, on whole words only (a surname never matches inside a
longer word), longest value first, and never overlapping: "Anna Rossi" is one PERSON
span, not "Anna" plus "Rossi". Names are found in the forms documents use: the whole
name, initials with the surname ("A. Rossi", "A.M. Rossi", "Rossi A."), the surname or
the first name alone ("Dr Rossi": the title stays outside the span, as in the gold set;
a title written in the persona's own value is left out too: the pack's `doctor_title`
("Dott.ssa", "Dr.") or any short abbreviation with a dot, "Dr. Ian Moss"). Because a
single name can be an ordinary word (Rose, Brown, Bianco), a lone name in all lower case
is not taken for a name, and a name inside an e-mail address or a URL
(anna.rossi@example.org) is part of that address, never a PERSON.
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
    "postcode": "ADDRESS",
    "national_id": "NATIONAL_ID",
    "tax_id": "TAX_ID",
    "health_insurance_id": "HEALTH_INSURANCE_ID",
}

#: Fields whose value is one name that may also be an ordinary word.
_SINGLE_NAMES = frozenset({"first_name", "last_name"})
#: Fields holding a whole name, found with initials too.
_FULL_NAMES = ("name", "doctor")
#: Shorter values match too much by chance.
_MIN_CHARS = 2
#: A leading abbreviation with a dot ("Dr.", "Prof.", "Dott.ssa", "Sig.ra"): a title.
_TITLE = re.compile(r"^[^\W\d]{1,5}\.[^\W\d]{0,3}\s+(?=\S+\s+\S)")
#: E-mail addresses and web addresses: names inside them are not PERSON spans.
_ADDRESSES = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+|(?:https?://|www\.)\S+")

#: (regex of the value, label, is a single name).
Pattern = tuple[re.Pattern[str], str, bool]


def without_title(name: str, titles: Collection[str]) -> str:
    """`name` without a leading title: one of the pack's `titles`, or an abbreviation."""
    for title in sorted(titles, key=len, reverse=True):
        if name.startswith(f"{title} "):
            return name[len(title) :].strip()
    return _TITLE.sub("", name, count=1)


def _initials(first: str, last: str) -> list[str]:
    """Regexes of a name written with initials: "A. Rossi", "A.M. Rossi", "Rossi A."."""
    initial, surname = re.escape(first[0]), re.escape(last)
    return [
        rf"{initial}\.(?:\s?[^\W\d_]\.)?\s?{surname}",
        rf"{surname},?\s{initial}\.",
    ]


def persona_values(
    persona: Mapping[str, str | None], titles: Collection[str] = ()
) -> list[tuple[str, str, bool]]:
    """(value, label, is a single name) to look for, longest first, each value once; the
    doctor's name without a leading title of `titles`."""
    values: dict[str, tuple[str, str, bool]] = {}
    for field, label in FIELD_LABELS.items():
        value = (persona.get(field) or "").strip()
        if field in _FULL_NAMES:
            value = without_title(value, titles)
        if len(value) < _MIN_CHARS:
            continue
        values.setdefault(value.casefold(), (value, label, field in _SINGLE_NAMES))
    doctor = without_title((persona.get("doctor") or "").strip(), titles).split()
    if len(doctor) >= 2 and len(doctor[-1]) >= _MIN_CHARS:  # "Dr Moss": the surname alone
        values.setdefault(doctor[-1].casefold(), (doctor[-1], "PERSON", True))
    return sorted(values.values(), key=lambda item: (-len(item[0]), item[0]))


def _patterns(persona: Mapping[str, str | None], titles: Collection[str]) -> list[Pattern]:
    """Whole-word regexes of every form to find: whole values, then names with
    initials, then single names."""

    def whole_word(form: str) -> re.Pattern[str]:
        return re.compile(rf"(?<!\w){form}(?!\w)", re.IGNORECASE)

    values = persona_values(persona, titles)
    initials: list[Pattern] = []
    for field in _FULL_NAMES:
        words = without_title((persona.get(field) or "").strip(), titles).split()
        if len(words) >= 2:
            initials += [
                (whole_word(form), "PERSON", False) for form in _initials(words[0], words[-1])
            ]
    return [
        *(
            (whole_word(re.escape(value)), label, False)
            for value, label, single in values
            if not single
        ),
        *initials,
        *((whole_word(re.escape(value)), label, True) for value, label, single in values if single),
    ]


def _occurrences(
    text: str, pattern: re.Pattern[str], single_name: bool
) -> Iterator[tuple[int, int]]:
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
    addresses = [match.span() for match in _ADDRESSES.finditer(text)]
    taken: list[Span] = []
    for pattern, label, single_name in _patterns(persona, titles):
        for start, end in _occurrences(text, pattern, single_name):
            if label == "PERSON" and any(s < end and start < e for s, e in addresses):
                continue
            if not any(span.overlap(start, end) for span in taken):
                taken.append(Span(start, end, label, SOURCE))
    return sorted(taken, key=lambda span: span.start)
