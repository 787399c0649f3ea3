"""A pretend translator for the `gen translate` tests: it reads the tagged piece out of the
prompt (prompts/*/translation.yaml rendered with `fakes.SIMPLE_CHAT_TEMPLATE`), translates
it word by word with a small dictionary, keeps the tags, and lets a test change the answer
(`edit`: lose a tag, invent one, repeat one...). A passage asked alone is translated the
same way."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from fakes import ScriptedBackend

from gen.backends.base import GenerationRequest
from gen.core.records import Record, Span

_PIECE = re.compile(r".*\nText:\n(.*)</user>", re.S)
_PHRASE = re.compile(r"\nPassage: (.*)</user>", re.S)

#: English -> Italian, a word at a time; other words are copied.
WORDS = {
    "the": "il",
    "patient": "paziente",
    "has": "ha",
    "asthma": "asma",
    "and": "e",
    "was": "era",
    "seen": "visto",
    "today": "oggi",
    "she": "lei",
    "he": "lui",
    "voted": "votato",
    "for": "per",
    "greens": "verdi",
    "is": "è",
    "a": "un",
    "member": "membro",
    "of": "di",
    "party": "partito",
    "lives": "vive",
    "in": "a",
    "with": "con",
    "her": "sua",
    "wife": "moglie",
    "prays": "prega",
    "every": "ogni",
    "day": "giorno",
    "called": "chiamato",
    "from": "da",
    "diabetes": "diabete",
    "since": "dal",
    "café": "caffè",
    "met": "incontrato",
    "at": "al",
    "works": "lavora",
    "as": "come",
    "nurse": "infermiera",
    "type": "tipo",
    "two": "due",
    "insulin": "insulina",
    "takes": "prende",
    "morning": "mattina",
}
_WORD = re.compile(r"[^\W\d_]+")


def translate_words(text: str) -> str:
    """`text` with each known word replaced, case kept for a capital first letter."""

    def swap(match: re.Match[str]) -> str:
        word = match.group()
        target = WORDS.get(word.lower())
        if target is None:
            return word
        return target.capitalize() if word[0].isupper() else target

    return _WORD.sub(swap, text)


def translate_tagged(tagged: str) -> str:
    """Translate the text between tags, keep the tags as they are."""
    parts = re.split(r"(<[^<>]+>)", tagged)
    return "".join(part if part.startswith("<") else translate_words(part) for part in parts)


class TranslatingBackend(ScriptedBackend):
    """Answers translation prompts; `edit(answer, piece)` may change a piece's answer."""

    model_id = "translator.gguf"

    def __init__(
        self, edit: Callable[[str, str], str] = lambda answer, piece: answer, **kwargs: Any
    ) -> None:
        super().__init__(self.answer, **kwargs)
        self.edit = edit
        self.pieces: list[str] = []
        self.phrases: list[str] = []

    def answer(self, request: GenerationRequest) -> str:
        phrase = _PHRASE.search(request.prompt)
        if phrase:
            self.phrases.append(phrase.group(1))
            return translate_words(phrase.group(1))
        piece = _PIECE.match(request.prompt)
        assert piece, request.prompt
        self.pieces.append(piece.group(1))
        return self.edit(translate_tagged(piece.group(1)), piece.group(1))


def marked(text: str, language: str = "en", record_id: str = "d1", **fields: Any) -> Record:
    """A record written with `[[passage|LABEL]]` or `[[passage|LABEL|source]]` marks."""
    spans: list[Span] = []
    out: list[str] = []
    cursor = 0
    for match in re.finditer(r"\[\[([^\[\]|]+)\|([A-Za-z_]+)(?:\|(\w+))?\]\]", text):
        out.append(text[cursor : match.start()])
        start = sum(map(len, out))
        out.append(match.group(1))
        spans.append(
            Span(start, start + len(match.group(1)), match.group(2), match.group(3) or "gold")
        )
        cursor = match.end()
    out.append(text[cursor:])
    defaults = {"category": "health", "doc_type": "Letter", "source": "gold"}
    return Record(
        id=record_id, text="".join(out), language=language, spans=spans, **{**defaults, **fields}
    )


def span_texts(record: Record) -> list[tuple[str, str]]:
    return [(record.text[s.start : s.end], s.label) for s in record.spans]
