"""Values composed from parts, and the two halves of every list.

A form's field value is seldom one of a few phrases: a medication line is a drug, a dose and
a frequency; a diagnosis an ICD-10 code and its title; a conviction an offence, a court and a
disposal. A detector that sees the same dozen values in every document learns the list, not
the field. So the packs write values as templates whose `{name}` slots are drawn from named
lists of parts (which may hold slots of their own), and the program composes them: the
rules are language data, this code only expands them.

To show that a detector learns the form of a field and not its list, every list splits
into two halves that do not depend on the order of the list nor on anything but its
entries: documents drawn from the `first` half share no literal entry of any list with
those of the `second` (`--value-half`); templates, the forms values take, are in both.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping, Sequence
from typing import Literal, TypeVar

from gen.core.placeholders import placeholders, template_pieces

#: Which half of each list values are drawn from; None: the whole list.
Half = Literal["first", "second"]
HALVES: tuple[Half, ...] = ("first", "second")

Entry = TypeVar("Entry")


def _rank(entry: object) -> bytes:
    return hashlib.blake2b(repr(entry).encode("utf-8"), digest_size=8).digest()


def half_of(entries: Sequence[Entry], half: Half | None) -> Sequence[Entry]:
    """`entries`, or one half of them: the literal entries ranked by a hash of their text,
    the first half (rounded up) or the rest. A template (an entry with slots) is a form, not
    a value: it is in both halves, its slots drawn from halves of their own lists; so is the
    literal entry of a list that has one."""
    literal = [entry for entry in entries if not _is_template(entry)]
    if half is None or len(literal) < 2:
        return entries
    ranked = sorted(literal, key=_rank)
    cut = (len(ranked) + 1) // 2
    dropped = set(map(_rank, ranked[cut:] if half == "first" else ranked[:cut]))
    return [entry for entry in entries if _is_template(entry) or _rank(entry) not in dropped]


def _is_template(entry: object) -> bool:
    return isinstance(entry, str) and bool(placeholders(entry))


def compose(
    template: str,
    parts: Mapping[str, Sequence[str]],
    rng: random.Random,
    half: Half | None = None,
) -> str:
    """`template` with each slot replaced by an entry drawn from its part list (from
    `half` of it), itself composed; slots are drawn left to right, so a seeded `rng` gives
    the same value every time."""
    out = []
    for literal, name in template_pieces(template):
        out.append(literal)
        if name is not None:
            out.append(compose(rng.choice(half_of(parts[name], half)), parts, rng, half))
    return "".join(out)


def count_values(
    templates: Sequence[str], parts: Mapping[str, Sequence[str]], half: Half | None = None
) -> int:
    """How many values `templates` compose: each template the product of its slots' counts,
    a part list the sum of its entries' (slots must be known and free of cycles:
    `part_problems`)."""
    known: dict[str, int] = {}

    def of_list(entries: Sequence[str]) -> int:
        return sum(of_template(entry) for entry in half_of(entries, half))

    def of_template(text: str) -> int:
        total = 1
        for _, name in template_pieces(text):
            if name is not None:
                if name not in known:
                    known[name] = of_list(parts[name])
                total *= known[name]
        return total

    return of_list(templates)


def part_problems(parts: Mapping[str, Sequence[str]]) -> list[tuple[str, str]]:
    """(part name, problem) for every part that names an unknown part or refers to itself,
    through others."""
    problems = []
    for name, entries in parts.items():
        for entry in entries:
            unknown = sorted(placeholders(entry) - set(parts))
            if unknown:
                problems.append((name, f"unknown part {{{unknown[0]}}}"))
                break
    if problems:
        return problems
    for name in parts:
        if _reaches(name, name, parts, set()):
            problems.append((name, f"{{{name}}} holds itself through its parts"))
    return problems


def _reaches(target: str, name: str, parts: Mapping[str, Sequence[str]], seen: set[str]) -> bool:
    for entry in parts[name]:
        for slot in placeholders(entry):
            if slot == target:
                return True
            if slot not in seen:
                seen.add(slot)
                if _reaches(target, slot, parts, seen):
                    return True
    return False
