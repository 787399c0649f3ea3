"""Clean-up of a model's document: keep the document, drop the chatter around it.

Pure functions; `clean_document` applies them in order and says what it removed.
The words of the chatter are language data (`chatter` in prompts/<lang>/generation.yaml);
the shapes are here: a preamble is a first line that opens with a phrase and ends with
':', '!' or '.' within 160 characters; a closing remark runs from a line that opens
with a phrase to the end of the text, and only counts in the text's second half.

Chat-tuned models format documents as markdown (`**Diagnosis:**`, `## History`, `---`);
real letters and reports have no such marks, so the marks go and their text stays. Slots
a model left for someone to fill in are filled from the persona where they name one of its
fields (gen.generate.slots); the others (`[Recipient's Name]`, `[Inserisci la data]`) are
not guessed: `template_slots` finds them, and the document is flagged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from gen.core.pack_generation import Chatter

_FENCE = re.compile(r"```[^\n`]*\n(.*?)(?:\n```|\Z)", re.DOTALL)
#: `**bold**` and `__bold__` around text on one line.
_BOLD = re.compile(r"(\*\*|__)(?=\S)([^\n]*?\S)\1")
#: A heading's hashes, or a line that is only a rule (`---`, `***`, `___`).
_HEADING = re.compile(r"^[ \t]*#{1,6}[ \t]+", re.MULTILINE)
_RULE = re.compile(r"^[ \t]*(?:-{3,}|\*{3,}|_{3,})[ \t]*(?:\n|\Z)", re.MULTILINE)
#: A bracketed gap with at least two letters in a row: `[Your Name]`, `[Insert Date]`;
#: not a check box (`[x]`, `[ ]`) nor a reference (`[12]`).
SLOT = re.compile(r"\[(?=[^\]\n]*[^\W\d_]{2})[^\[\]\n]{2,60}\]")
_SENTENCE_END = re.compile(r"[.!?…»\")\]](?=\s|$)|\n")


@dataclass
class CleanedText:
    text: str
    removed: list[str] = field(default_factory=list)


def strip_echo(text: str, echoes: list[str]) -> tuple[str, bool]:
    """Drop a leading copy of the prompt's instruction or response prefix."""
    stripped = text.lstrip()
    for echo in echoes:
        echo = echo.strip()
        if echo and stripped.lower().startswith(echo.lower()):
            return stripped[len(echo) :], True
    return text, False


def strip_fences(text: str) -> tuple[str, bool]:
    """Keep what is inside a markdown code fence, when the document was wrapped in one."""
    match = _FENCE.search(text)
    if not match or len(match.group(1).strip()) < 0.3 * len(text.strip()):
        return text, False
    return match.group(1), True


@lru_cache(maxsize=16)
def _preamble_pattern(phrases: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(
        r"^\s*(?:" + "|".join(phrases) + r")\b[^\n]{0,160}?(?::|!|\.)[ \t]*(?:\n|$)",
        re.IGNORECASE,
    )


@lru_cache(maxsize=16)
def _closing_pattern(phrases: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(
        r"\n[ \t]*(?:" + "|".join(phrases) + r")[^\n]*(?:\n.*)?\Z", re.IGNORECASE | re.DOTALL
    )


def strip_preamble(text: str, chatter: Chatter) -> tuple[str, bool]:
    match = _preamble_pattern(chatter.preamble).match(text) if chatter.preamble else None
    if not match:
        return text, False
    return text[match.end() :], True


def strip_closing(text: str, chatter: Chatter) -> tuple[str, bool]:
    match = _closing_pattern(chatter.closing).search(text) if chatter.closing else None
    if not match or match.start() < len(text) // 2:
        return text, False
    return text[: match.start()], True


def strip_markdown(text: str) -> tuple[str, bool]:
    """Drop bold marks, heading hashes and horizontal rules; keep the words."""
    cleaned = _RULE.sub("", _HEADING.sub("", _BOLD.sub(r"\2", text)))
    return cleaned, cleaned != text


def template_slots(text: str) -> list[str]:
    """The bracketed slots the writer left unfilled, in order, each once."""
    return list(dict.fromkeys(match.group() for match in SLOT.finditer(text)))


def cut_unfinished(text: str) -> tuple[str, bool]:
    """Drop a trailing sentence cut off by the token limit; an answer that is one
    unfinished sentence is kept (and judged by its length), not cut to nothing."""
    ends = [m.end() for m in _SENTENCE_END.finditer(text)]
    if not ends or ends[-1] >= len(text.rstrip()) or not text[: ends[-1]].strip():
        return text, False
    return text[: ends[-1]], True


def clean_document(
    text: str, *, echoes: list[str], truncated: bool, chatter: Chatter
) -> CleanedText:
    """Apply every clean-up rule; `truncated` when the model hit its token limit."""
    removed = []
    text, hit = strip_echo(text, echoes)
    if hit:
        removed.append("echo")
    text, hit = strip_preamble(text, chatter)
    if hit:
        removed.append("preamble")
    text, hit = strip_fences(text)
    if hit:
        removed.append("fence")
    text, hit = strip_closing(text, chatter)
    if hit:
        removed.append("closing")
    text, hit = strip_markdown(text)
    if hit:
        removed.append("markdown")
    if truncated:
        text, hit = cut_unfinished(text)
        if hit:
            removed.append("unfinished")
    return CleanedText(text=text.strip(), removed=removed)
