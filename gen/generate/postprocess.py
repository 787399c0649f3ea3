"""Clean-up of a model's document: keep the document, drop the chatter around it.

Pure functions; `clean_document` applies them in order and says what it removed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_FENCE = re.compile(r"```[^\n`]*\n(.*?)(?:\n```|\Z)", re.DOTALL)
_PREAMBLE = re.compile(
    r"^\s*(?:sure|certainly|of course|okay|ok|here(?:'s| is| are)|below is|certo|ecco|"
    r"ecco a te|va bene)\b[^\n]{0,160}?(?::|!|\.)[ \t]*(?:\n|$)",
    re.IGNORECASE,
)
_CLOSING = re.compile(
    r"\n[ \t]*(?:i hope (?:this|that)|note:|please note|"
    r"this (?:document|is a) (?:is )?(?:fictional|fictitious)|let me know|"
    r"spero che|nota:|questo documento è (?:fittizio|inventato))"
    r"[^\n]*(?:\n.*)?\Z",
    re.IGNORECASE | re.DOTALL,
)
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


def strip_preamble(text: str) -> tuple[str, bool]:
    match = _PREAMBLE.match(text)
    if not match:
        return text, False
    return text[match.end() :], True


def strip_closing(text: str) -> tuple[str, bool]:
    match = _CLOSING.search(text)
    if not match or match.start() < len(text) // 2:
        return text, False
    return text[: match.start()], True


def cut_unfinished(text: str) -> tuple[str, bool]:
    """Drop a trailing sentence cut off by the token limit."""
    ends = [m.end() for m in _SENTENCE_END.finditer(text)]
    if not ends or ends[-1] >= len(text.rstrip()):
        return text, False
    return text[: ends[-1]], True


def clean_document(text: str, *, echoes: list[str], truncated: bool) -> CleanedText:
    """Apply every clean-up rule; `truncated` when the model hit its token limit."""
    removed = []
    text, hit = strip_echo(text, echoes)
    if hit:
        removed.append("echo")
    for name, rule in (("preamble", strip_preamble), ("fence", strip_fences)):
        text, hit = rule(text)
        if hit:
            removed.append(name)
    text, hit = strip_closing(text)
    if hit:
        removed.append("closing")
    if truncated:
        text, hit = cut_unfinished(text)
        if hit:
            removed.append("unfinished")
    return CleanedText(text=text.strip(), removed=removed)
