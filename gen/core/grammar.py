"""Words that follow a person's gender, and the slash forms that must never replace them.

A prompt that says "è nato/a il ..." gets "nato/a" copied into the document, and a
detector trained on it learns that Italian documents contain "nato/a". So a pack declares
each gendered word once with both forms (`{born}` -> nata / nato, in `language.yaml`), the
persona's gender picks one, and every template and list value is refused on load when it
offers alternatives in writing instead: `nato/a`, `he/she`, `Sig./Sig.ra`, `Podologe /
Podologin`, `nato(a)`, `Lehrer*in`, `Lehrer:innen`, `né·e`, `LehrerInnen`.
"""

from __future__ import annotations

from typing import Annotated, Literal

import regex
from pydantic import AfterValidator, Discriminator, Field, Tag

from gen.core.placeholders import template_pieces
from gen.core.yamlio import StrictModel

Gender = Literal["female", "male"]
GENDERS: tuple[Gender, ...] = ("female", "male")

_LETTER = r"[^\W\d_]"
#: A word, or an abbreviation with inner or final periods ("Sig.", "Sig.ra", "Dott.ssa").
_WORD = rf"{_LETTER}+(?:\.{_LETTER}+)*\.?"
_SLASH_FORM = regex.compile(
    "|".join(
        (
            # two written alternatives: nato/a, o/a, he/she, Sig./Sig.ra, Podologe / Podologin
            rf"(?<![\w/.]){_WORD} ?/ ?{_WORD}(?![\w/])",
            # an ending in brackets: nato(a), Lehrer(in), né(e)
            rf"{_LETTER}+\({_LETTER}{{1,5}}\)",
            # an ending after a gender star, colon, underscore or middle dot: Lehrer*in, né·e
            rf"{_LETTER}+[*:_·]{_LETTER}{{1,6}}(?!\w)",
            # a capital I inside a word: LehrerIn, LehrerInnen
            r"(?<=\p{Ll})I(?:n|nnen)(?!\w)",
        )
    )
)


def slash_form(text: str) -> str | None:
    """The first written gender alternative in `text` (outside `{placeholders}`), or None."""
    try:
        literals = [literal for literal, _ in template_pieces(text)]
    except ValueError:
        literals = [text]
    for literal in literals:
        match = _SLASH_FORM.search(literal)
        if match:
            start = match.start()
            while start and regex.match(_LETTER, literal[start - 1]):
                start -= 1
            return literal[start : match.end()]
    return None


def check_no_slash_form(text: str) -> str:
    """`text` if it offers no gender alternatives in writing, else ValueError saying what to
    write instead."""
    found = slash_form(text)
    if found is not None:
        raise ValueError(
            f"slash form {found!r}: write one form; a word that follows the persona's gender is "
            "declared once with both forms under `gendered:` in language.yaml and used as a "
            "placeholder (e.g. {born} -> nata / nato)"
        )
    return text


#: A word or phrase of a list, checked for slash forms.
Word = Annotated[str, Field(min_length=1), AfterValidator(check_no_slash_form)]


class GenderedForms(StrictModel):
    """One word or phrase in its female and male forms."""

    female: Word
    male: Word

    def form(self, gender: Gender) -> str:
        return self.female if gender == "female" else self.male


def _kind(value: object) -> str:
    return "forms" if isinstance(value, (dict, GenderedForms)) else "word"


#: A list entry that is the same for both genders (a plain string, key `word` in errors) or
#: has two forms (`forms`); only the entry's own kind is validated, so an error is about it.
Gendered = Annotated[
    Annotated[Word, Tag("word")] | Annotated[GenderedForms, Tag("forms")],
    Discriminator(_kind),
]


def gendered_form(value: Gendered, gender: Gender) -> str:
    """The form of `value` for `gender`."""
    return value if isinstance(value, str) else value.form(gender)


def gendered_forms(value: Gendered) -> tuple[str, ...]:
    """Every form of `value`, each once."""
    return (value,) if isinstance(value, str) else tuple(dict.fromkeys((value.female, value.male)))
