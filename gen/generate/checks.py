"""Quality checks a generated document must pass before it is accepted.

A document that fails is not dropped: the caller stores it with the reason.
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache
from typing import NamedTuple

from rapidfuzz import fuzz, process

from gen.core.pack_generation import Chatter
from gen.text.language import detect_language

#: Below this length the language guess is too unreliable to reject on.
_MIN_CHARS_FOR_LANGUAGE = 120
_MIN_LANGUAGE_CONFIDENCE = 0.95


def _normalize(text: str) -> str:
    return re.sub(r"\s+", " ", text.casefold()).strip()


class DuplicateIndex:
    """Exact (normalized hash) and near (rapidfuzz ratio) duplicates of accepted texts."""

    def __init__(self, near_ratio: float) -> None:
        self.near_ratio = near_ratio
        self._hashes: set[str] = set()
        self._texts: list[str] = []

    def add(self, text: str) -> None:
        normalized = _normalize(text)
        self._hashes.add(hashlib.sha256(normalized.encode()).hexdigest())
        self._texts.append(normalized)

    def match(self, text: str) -> str | None:
        """ "exact_duplicate", "near_duplicate" or None."""
        normalized = _normalize(text)
        if hashlib.sha256(normalized.encode()).hexdigest() in self._hashes:
            return "exact_duplicate"
        if self._texts and process.extractOne(
            normalized, self._texts, scorer=fuzz.ratio, score_cutoff=self.near_ratio
        ):
            return "near_duplicate"
        return None


class Rejection(NamedTuple):
    reason: str
    detail: str = ""


@lru_cache(maxsize=16)
def _refusal_pattern(phrases: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{phrase})" for phrase in phrases), re.IGNORECASE)


def refusal(text: str, chatter: Chatter) -> str | None:
    """The refusal phrase the writer used instead of (or inside) the document, if any."""
    if not chatter.refusal:
        return None
    match = _refusal_pattern(chatter.refusal).search(text)
    return match.group() if match else None


def rejection(
    text: str, *, language: str, min_chars: int, duplicates: DuplicateIndex, chatter: Chatter
) -> Rejection | None:
    """Why `text` cannot be accepted, or None when it passes every check."""
    if not text.strip():
        return Rejection("empty")
    refused = refusal(text, chatter)
    if refused:
        return Rejection("refusal", refused)
    if len(text) < min_chars:
        return Rejection("too_short", f"{len(text)} characters, min_chars {min_chars}")
    if len(text) >= _MIN_CHARS_FOR_LANGUAGE:
        detected, confidence = detect_language(text)
        if detected != language and confidence >= _MIN_LANGUAGE_CONFIDENCE:
            return Rejection("wrong_language", f"detected {detected} ({confidence:.2f})")
    duplicate = duplicates.match(text)
    return Rejection(duplicate) if duplicate else None
