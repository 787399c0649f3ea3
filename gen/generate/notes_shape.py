"""Whether a layout's notes are prose or only its facts one after another.

The notes of a layout document are the one part the model writes: a clinician's review,
a registrar's remarks, an e-mail's body, carrying the planned clause facts. A small
writer tends to write the facts instead, each a sentence of its own that starts with the
person's name, or a bullet list of them ("Gloria Campbell was elected ... Gloria Campbell
was secretary of ... Gloria Campbell stood as a candidate ..."): no real section reads
like that, and a detector learns that a sentence opening with a name is sensitive.

A sentence (of `MIN_WORDS` words or more; a list item is one) is a *fact sentence* when
it starts with the person's name (after a list marker or a short label: "- Victoria
Kelly carries ...", "1. Origine etnica: Maura Bertoli è ..."; a title may stand before
the surname), or when it is a planned fact with at most `BARE_WORDS` words besides the
fact and the name ("Era iscritta a Unione Popolare dal 2025."). Notes *list the facts*
when at least half of their sentences are fact sentences.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gen.text.sentences import split_sentences
from gen.text.words import alphanumeric_words

#: Shorter sentences (a greeting, a sign-off, a heading) say nothing either way.
MIN_WORDS = 3
#: Words a bare fact may hold besides the fact and the name ("She", "In 2019,").
BARE_WORDS = 3
#: A list marker, then a label of up to four words ending with a colon, before a sentence.
_LEAD = re.compile(r"[\s\"'«“(]*(?:[-*•–·]|\d{1,2}[.)])?\s*(?:[^\W\d_][^:\n]{0,40}:\s+)?")


@dataclass(frozen=True)
class NotesShape:
    """The sentences of one document's notes, and how many of them only carry a fact."""

    sentences: int
    #: Sentences that start with the person's name.
    name_led: int
    #: Other sentences that are a planned fact and little else.
    bare_facts: int

    @property
    def fact_sentences(self) -> int:
        return self.name_led + self.bare_facts

    @property
    def lists_facts(self) -> bool:
        """At least half of the sentences are fact sentences."""
        return self.sentences > 0 and 2 * self.fact_sentences >= self.sentences


def _folded_words(text: str) -> list[str]:
    return [text[start:end].casefold() for start, end in alphanumeric_words(text)]


def _name_led(sentence: str, names: Sequence[str], surname: str) -> bool:
    """`sentence` opens with one of `names`, or with a title and then `surname`."""
    lead = _LEAD.match(sentence)
    words = _folded_words(sentence[lead.end() if lead else 0 :])[:3]
    for name in names:
        parts = _folded_words(name)
        if parts and words[: len(parts)] == parts:
            return True
    return bool(surname) and words[1:2] == [surname.casefold()]


def notes_shape(
    notes: str,
    persona: Mapping[str, str | None],
    facts: Sequence[tuple[int, int]],
    language: str,
) -> NotesShape:
    """The shape of `notes` written about `persona`, with the planned clause facts found
    at `facts` (offsets into `notes`)."""
    surname = persona.get("last_name") or ""
    names = [name for key in ("name", "first_name", "last_name") if (name := persona.get(key))]
    name_words = {word for name in names for word in _folded_words(name)}
    counted = name_led = bare = 0
    for start, end in split_sentences(notes, language):
        sentence = notes[start:end]
        words = alphanumeric_words(sentence)
        if len(words) < MIN_WORDS:
            continue
        counted += 1
        if _name_led(sentence, names, surname):
            name_led += 1
            continue
        inside = [(max(a, start), min(b, end)) for a, b in facts if a < end and b > start]
        if not inside:
            continue
        others = [
            (a, b)
            for a, b in words
            if not any(s <= start + a < e for s, e in inside)
            and sentence[a:b].casefold() not in name_words
        ]
        bare += len(others) <= BARE_WORDS
    return NotesShape(counted, name_led, bare)
