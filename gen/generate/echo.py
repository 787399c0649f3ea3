"""What of the prompt a written document still holds, which no real document would.

A small writer repeats its instruction ("This document includes the necessary facts about
Gregory Strong, with the words of each fact kept as they are"), answers the request
("Sure! In this document ..."), talks about the document ("This document is fictional"),
counts its words ("[230 words]"), leaves slots in brackets ("[Insert Date]") or makes up a
placeholder person ("Dr. Jane Smith"). The clean-up removes what it can be sure of
(gen.generate.postprocess); this finds the rest, from the pack's language data (`echo` in
generation.yaml) and the pack's own instructions: a run of `instruction_words` words of
their fixed text (the words between their placeholders: the facts and the persona's
details, which the document must hold, are never part of it). `gen documents` writes a
document that holds any of it once more, and keeps the second answer flagged
`prompt_echo` when it holds some too; `gen build` leaves such documents out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from gen.core.pack_generation import EchoWords
from gen.core.packs import LanguagePack
from gen.core.placeholders import template_pieces
from gen.generate.postprocess import template_slots

#: Flag of a kept document that still holds an echo of its prompt (`meta.echo` says what).
PROMPT_ECHO = "prompt_echo"
#: `meta` key of what a document's answer held: kinds and the passages found.
ECHO_KEY = "echo"
INSTRUCTION, OPENING, REMARK, WORD_COUNT, SLOT, PLACEHOLDER_PERSON = (
    "instruction",
    "opening",
    "remark",
    "word_count",
    "slot",
    "placeholder_person",
)
KINDS = (INSTRUCTION, OPENING, REMARK, WORD_COUNT, SLOT, PLACEHOLDER_PERSON)

_WORD = re.compile(r"\w+")
#: Quotes and blanks a reply may open with before its first word.
_OPENING_LEAD = r"[\s\"'«“„]*"


@dataclass(frozen=True)
class Echo:
    """One thing of the prompt found in a document: its kind and the passage."""

    kind: str
    text: str

    def to_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "text": self.text}


def _alternatives(patterns: Sequence[str], lead: str = "") -> re.Pattern[str] | None:
    if not patterns:
        return None
    return re.compile(lead + "(?:" + "|".join(f"(?:{p})" for p in patterns) + ")", re.IGNORECASE)


def _words(text: str) -> list[tuple[int, int, str]]:
    """(start, end, the word case-folded) of each word of `text`."""
    return [(m.start(), m.end(), m.group().casefold()) for m in _WORD.finditer(text)]


class EchoCheck:
    """Finds the echoes of a pack's prompts in a document."""

    def __init__(self, words: EchoWords, instructions: Iterable[str]) -> None:
        self.words = words
        self.size = words.instruction_words
        self._opening = _alternatives(words.openings, _OPENING_LEAD)
        self._remark = _alternatives(words.remarks)
        self._word_count = _alternatives(words.word_counts)
        self._people = [
            (name, re.compile(rf"(?<!\w){re.escape(name)}(?!\w)", re.IGNORECASE))
            for name in words.placeholder_people
        ]
        #: Every run of `size` words of the instructions' fixed text.
        self._runs: set[tuple[str, ...]] = set()
        for template in instructions:
            for literal, _ in template_pieces(template):
                found = [word for _, _, word in _words(literal)]
                for start in range(len(found) - self.size + 1):
                    self._runs.add(tuple(found[start : start + self.size]))

    @classmethod
    def of(cls, pack: LanguagePack, *, facts: bool, shapes: bool) -> EchoCheck:
        """The check of `pack`'s documents: the writer's prompts, and the facts' and the
        shapes' when the documents are written with them."""
        generation = pack.generation
        instructions = [generation.system, generation.instruction, generation.other_instruction]
        if facts:
            writer = pack.facts.writer
            instructions += [writer.instruction, writer.placeholder_instruction]
            instructions.append(writer.non_disclosure_instruction or "")
        if shapes:
            forms = pack.shapes
            instructions += [forms.system, forms.notes_instruction, forms.topic_instruction]
            instructions += [layout.notes for group in forms.layouts.values() for layout in group]
        return cls(generation.echo, instructions)

    def find(self, text: str, prompt: str) -> list[Echo]:
        """What of the prompt `text` holds, in the order of `KINDS`; `prompt`, the prompt it
        was written from, tells a made-up person from one the prompt named."""
        found = [Echo(INSTRUCTION, passage) for passage in self._instruction_runs(text)]
        opening = self._opening.match(text) if self._opening else None
        if opening:
            found.append(Echo(OPENING, opening.group().strip()))
        for kind, pattern in ((REMARK, self._remark), (WORD_COUNT, self._word_count)):
            if pattern is not None:
                found += [Echo(kind, match.group()) for match in pattern.finditer(text)]
        found += [Echo(SLOT, slot) for slot in template_slots(text)]
        folded_prompt = prompt.casefold()
        for name, pattern in self._people:
            match = pattern.search(text)
            if match and name.casefold() not in folded_prompt:
                found.append(Echo(PLACEHOLDER_PERSON, match.group()))
        return found

    def _instruction_runs(self, text: str) -> list[str]:
        """The passages of `text` made of runs of the instructions' words, longest whole."""
        words = _words(text)
        size = self.size
        hits = [
            index
            for index in range(len(words) - size + 1)
            if tuple(word for _, _, word in words[index : index + size]) in self._runs
        ]
        passages: list[tuple[int, int]] = []
        for index in hits:
            start, end = words[index][0], words[index + size - 1][1]
            if passages and start <= passages[-1][1]:
                passages[-1] = (passages[-1][0], end)
            else:
                passages.append((start, end))
        return [text[start:end] for start, end in passages]
