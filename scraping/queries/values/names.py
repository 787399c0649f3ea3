"""Names in the shapes people write them: first and last, a middle name or initial,
"Last, First", all capitals, double surnames, a title, initials. Every form is labeled
PERSON; a title is written but left out of the span ("Dr [Rossi]"), as in the gold set.
"""

from __future__ import annotations

from scraping.queries.values.identity import Identity, Value


def _initial(name: str) -> str:
    return name[0].upper() + "."


def full_name(person: Identity) -> str:
    """The person's whole name, in one of the shapes of forms, letters and signatures."""
    first, last = person.first_name, person.last_name
    roll = person.random.random()
    if roll < 0.55:
        return f"{first} {last}"
    if roll < 0.65:
        return f"{first} {_initial(person.middle_name)} {last}"
    if roll < 0.72:
        return f"{first} {person.middle_name} {last}"
    if roll < 0.80:
        return f"{last}, {first}"
    if roll < 0.86:
        return f"{first} {last}".upper()
    if roll < 0.92:
        return f"{last.upper()} {first}"
    other = person.fake.last_name()
    if other == last or " " in last or "-" in last:
        return f"{first} {last}"
    return f"{first} {last}-{other}"


def first_name(person: Identity) -> str:
    return person.first_name


def last_name(person: Identity) -> str:
    return person.last_name


def title_name(person: Identity) -> Value:
    """ "Dr Rossi", "Sig.ra Anna Bianchi": the span covers the name only."""
    titles = person.wording.titles_female if person.female else person.wording.titles_male
    name = (
        person.last_name
        if person.random.random() < 0.7
        else f"{person.first_name} {person.last_name}"
    )
    if not titles:
        return Value(name)
    title = person.random.choice(titles)
    text = f"{title} {name}"
    return Value(text, len(title) + 1, len(text))


def initials_name(person: Identity) -> str:
    """ "A. Rossi", "A.M. Rossi", "Rossi A.", "A Rossi"."""
    first, last = person.first_name, person.last_name
    roll = person.random.random()
    if roll < 0.5:
        return f"{_initial(first)} {last}"
    if roll < 0.7:
        return f"{_initial(first)}{_initial(person.middle_name)} {last}"
    if roll < 0.85:
        return f"{last} {_initial(first)}"
    return f"{first[0].upper()} {last}"


def organization(person: Identity) -> str:
    """The person's employer, sometimes in capitals as on a letterhead."""
    return person.employer.upper() if person.random.random() < 0.15 else person.employer
