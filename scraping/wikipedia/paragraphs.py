"""Which parts of an encyclopedia page become negative examples.

Negatives must talk about a topic without disclosing anything about an
individual, so pages about people are skipped whole, biography sections are
dropped, and so are sections that are mostly links and notes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from re import Pattern

from pydantic import Field

from gen.core.yamlio import StrictModel

SECTION_SEPARATOR = " > "


class PageFilter(StrictModel):
    """Per-language rules, kept in `prompts/wikipedia/<lang>.yaml`."""

    #: Section titles (any level, case-insensitive) dropped with their subsections.
    skip_sections: list[str] = Field(default_factory=list)
    #: Section titles about a person's life, dropped with their subsections.
    biography_sections: list[str] = Field(default_factory=list)
    #: A page in a category matching one of these is about a person: skipped whole.
    person_categories: list[Pattern[str]] = Field(default_factory=list)
    #: A lead matching one of these (birth/death data) is about a person: skipped whole.
    person_lead: list[Pattern[str]] = Field(default_factory=list)
    #: Citation markers removed from the text, e.g. `[1]`.
    citation_markers: list[Pattern[str]] = Field(default_factory=list)
    #: Shorter paragraphs (after cleaning) are rejected as too short to say anything.
    min_paragraph_chars: int = Field(default=200, ge=1)


@dataclass(frozen=True)
class Block:
    """The text directly under one heading; `path` is empty for the lead."""

    path: tuple[str, ...]
    text: str


@dataclass(frozen=True)
class Paragraph:
    """One line of a page's text; `reason` says why it was rejected, None if kept."""

    index: int
    section: str
    text: str
    reason: str | None = None


def person_reason(categories: Iterable[str], lead: str, rules: PageFilter) -> str | None:
    """Why a page looks like it is about a person, or None."""
    for category in categories:
        for pattern in rules.person_categories:
            if pattern.search(category):
                return f"person_category: {category}"
    for pattern in rules.person_lead:
        if pattern.search(lead):
            return "person_lead: birth/death data"
    return None


def is_person_category(title: str, rules: PageFilter) -> bool:
    return any(pattern.search(title) for pattern in rules.person_categories)


def clean(text: str, rules: PageFilter) -> str:
    for pattern in rules.citation_markers:
        text = pattern.sub("", text)
    return re.sub(r"[ \t]{2,}", " ", text).strip()


def _section_reason(path: Sequence[str], rules: PageFilter) -> str | None:
    titles = {title.casefold() for title in path}
    if titles & {title.casefold() for title in rules.biography_sections}:
        return "biography_section"
    if titles & {title.casefold() for title in rules.skip_sections}:
        return "skipped_section"
    return None


def paragraphs(blocks: Iterable[Block], rules: PageFilter) -> list[Paragraph]:
    """Every non-empty line of a page, numbered in page order, kept or with a reason.

    Numbering counts all lines before filtering, so a paragraph keeps its index
    (and its record id) when the rules change.
    """
    result = []
    index = 0
    for block in blocks:
        section_reason = _section_reason(block.path, rules)
        for line in block.text.splitlines():
            if not line.strip():
                continue
            text = clean(line, rules)
            reason = section_reason
            if reason is None and len(text) < rules.min_paragraph_chars:
                reason = "too_short"
            result.append(Paragraph(index, SECTION_SEPARATOR.join(block.path), text, reason))
            index += 1
    return result
