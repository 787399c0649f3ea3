"""A text's labeling units by its language's rules, for the detectors that label or snap
whole units (the encoder detector; the transformers detector's `--snap-to-units`), and the
labels that come in units: the special categories (an identifier is a few words).

A text given without its language (`gen predict` on a folder of .txt files) is cut by the
rules of the language the language identifier finds among the detector's training
languages, and by the first of them when the text is short or in none of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from gen.core.pack_language import UnitRules
from gen.core.packs import load_categories, load_language_pack, pack_codes, prompts_root
from gen.text.language import detect_language
from gen.text.units import split_units

Range = tuple[int, int]
#: Below this many characters the language guess is not trusted.
MIN_CHARS_FOR_LANGUAGE = 40


def special_labels() -> list[str]:
    """The labels of the sensitive categories (health, politic...), in the packs' order."""
    categories = load_categories()
    return [categories.categories[name].label for name in categories.sensitive]


@cache
def unit_rules(language: str) -> UnitRules:
    """The unit rules of a language's pack; English rules for a language without one."""
    codes = pack_codes(prompts_root())
    return load_language_pack(language if language in codes else "en").units


def text_units(text: str, language: str, unit: str) -> list[Range]:
    return split_units(text, unit_rules(language), unit)


def text_language(text: str, languages: Sequence[str]) -> str:
    """The language of `text` among `languages` (the first one when unsure)."""
    if len(languages) > 1 and len(text) >= MIN_CHARS_FOR_LANGUAGE:
        guess, _ = detect_language(text)
        if guess in languages:
            return guess
    return languages[0]
