"""Slots a writer left in brackets, filled instead of thrown away.

Small models write a letter as a template: `[Your Name]`, `[Company Name]`. A slot that
names a persona field (the pack's `slots.fields`) is replaced by the persona's value, and
the value gets an exact span with the label `labeling.persona_pii` gives that field; a
slot holding a value the writer wrote but left in brackets (`[Tammy Ward]`, `[30 days]`:
a digit, or two or three capitalised words, and no gap word) loses its brackets. Any
other slot stays for `template_slots` to flag. Filling runs on the text the checks and the
fact placer then see, so every span is computed on the final text; spans already in the
record (inline labels) are moved with the edits, and a slot inside one is left alone.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gen.core.pack_generation import SlotWords
from gen.core.records import Span
from gen.generate.postprocess import SLOT
from labeling.persona_pii import FIELD_LABELS, SOURCE, without_title

#: `meta.slots_filled` entry of a slot that only lost its brackets.
UNBRACKETED = "unbracketed"


@dataclass(frozen=True)
class FilledSlots:
    text: str
    spans: list[Span]
    #: One {slot, field} per slot replaced, field `UNBRACKETED` for brackets dropped.
    filled: list[dict[str, str]]


def _placeholder(text: str, start: int, end: int) -> bool:
    """A slot in double brackets: a planned fact's placeholder (`[[FACT_1]]`), the placer's."""
    return text[start - 1 : start] == "[" or text[end : end + 1] == "]"


def _is_value(content: str, words: SlotWords) -> bool:
    """A value left in brackets: a digit, or a name of two or three capitalised words."""
    if words.is_gap(content):
        return False
    if any(char.isdigit() for char in content):
        return True
    names = content.split()
    return 2 <= len(names) <= 3 and all(
        name[0].isupper() and name.replace("-", "").replace("'", "").isalpha() for name in names
    )


def _replacement(
    content: str, persona: Mapping[str, str | None], words: SlotWords
) -> tuple[str, str, str | None] | None:
    """(new text, field or UNBRACKETED, label of the new text) for one slot, or None."""
    field = words.field_of(content)
    if field:
        value = (persona.get(field) or "").strip()
        return (value, field, FIELD_LABELS.get(field)) if value else None
    return (content.strip(), UNBRACKETED, None) if _is_value(content, words) else None


def _labeled(start: int, value: str, field: str, label: str) -> Span:
    """The span of a filled value; a doctor's title stays outside, as persona_pii has it."""
    name = (without_title(value, ()) if field == "doctor" else value) or value
    begin = start + value.rindex(name)
    return Span(begin, begin + len(name), label, SOURCE)


def fill_slots(
    text: str,
    persona: Mapping[str, str | None] | None,
    words: SlotWords,
    spans: Sequence[Span] = (),
) -> FilledSlots:
    """`text` with its slots filled from `persona`, `spans` moved to match, the filled
    values' spans added, and what was filled."""
    pieces: list[str] = []
    added: list[Span] = []
    filled: list[dict[str, str]] = []
    #: (end of a replaced slot in `text`, characters added there).
    edits: list[tuple[int, int]] = []
    cursor, shift = 0, 0
    for match in SLOT.finditer(text):
        start, end = match.span()
        if _placeholder(text, start, end) or any(span.overlap(start, end) for span in spans):
            continue
        found = _replacement(match.group()[1:-1], persona or {}, words)
        if found is None:
            continue
        value, field, label = found
        pieces += [text[cursor:start], value]
        if label:
            added.append(_labeled(start + shift, value, field, label))
        filled.append({"slot": match.group(), "field": field})
        shift += len(value) - (end - start)
        edits.append((end, shift))
        cursor = end
    if not filled:
        return FilledSlots(text, list(spans), [])
    pieces.append(text[cursor:])

    def moved(position: int) -> int:
        return position + next((s for end, s in reversed(edits) if end <= position), 0)

    kept = [dataclasses.replace(s, start=moved(s.start), end=moved(s.end)) for s in spans]
    ordered = sorted([*kept, *added], key=lambda span: (span.start, span.end))
    return FilledSlots("".join(pieces), ordered, filled)
