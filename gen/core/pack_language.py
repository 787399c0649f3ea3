"""`prompts/<language>/language.yaml`: what gen needs to know about a language.

Its name and Faker locale, the words of its prompts that follow the persona's gender, the
abbreviations after which a sentence does not end, and how `gen.text.units` cuts its texts
into clauses: all of it data, so a new language is a new folder of YAML, never a change in
the code. (How its personas are written, dates included, is in `persona.yaml`:
`gen.core.pack_persona`.)
"""

from __future__ import annotations

import re

from pydantic import Field, field_validator

from gen.core.grammar import GenderedForms
from gen.core.pack_generation import GENERATION_FIELDS
from gen.core.yamlio import StrictModel

#: A cue is one word or a few words ("anche se", "il quale"), matched case-insensitively.
_CUE = re.compile(r"\w+(?:['’ ]\w+)*")


class UnitRules(StrictModel):
    """How `gen.text.units` cuts a text of this language into labeling units."""

    #: pysbd's language for sentences; None means the pack's code (English outside a pack).
    sentence_language: str | None = None
    #: A comma followed by one of these words starts a new clause ("..., but ...").
    conjunctions: tuple[str, ...] = ()
    #: Relative pronouns: a comma followed by one of them, or by one word and one of
    #: them ("..., in which ..."), starts a new clause.
    relatives: tuple[str, ...] = ()
    #: A clause of fewer words is merged into its neighbour in the same sentence.
    min_clause_words: int = Field(3, ge=1)
    #: `Name: value` is a form field when the name has at most this many words.
    field_name_max_words: int = Field(6, ge=1)

    @field_validator("conjunctions", "relatives")
    @classmethod
    def _cue_words(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for cue in value:
            if not _CUE.fullmatch(cue):
                raise ValueError(f"{cue!r} is not a word or words separated by spaces")
        return tuple(cue.casefold() for cue in value)


class Language(StrictModel):
    name: str
    faker_locale: str
    #: Placeholder name -> its female and male forms ({born} -> nata / nato), usable in every
    #: template that takes persona fields; the persona's gender picks the form.
    gendered: dict[str, GenderedForms] = Field(default_factory=dict)
    units: UnitRules = UnitRules()
    #: Abbreviations after which a sentence does not end ("Apt.", "C.so"), for gen.text.sentences.
    abbreviations: tuple[str, ...] = ()

    @field_validator("gendered")
    @classmethod
    def _placeholder_names(cls, value: dict[str, GenderedForms]) -> dict[str, GenderedForms]:
        for name in value:
            if not name.isidentifier():
                raise ValueError(f"{name!r} is not a placeholder name (letters, digits, _)")
            if name in GENERATION_FIELDS:
                raise ValueError(f"{name!r} is already a placeholder: choose another name")
        return value

    @field_validator("abbreviations")
    @classmethod
    def _one_word_each(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for item in value:
            if not item or any(ch.isspace() for ch in item) or "." not in item:
                raise ValueError(
                    f"abbreviation {item!r}: expected one word with a period, like 'Apt.' or 'C.so'"
                )
        return value
