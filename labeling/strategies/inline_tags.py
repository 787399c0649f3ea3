"""Labels written with the text: `She <health>has asthma</health>.` -> text and spans.

The text is read once: every tag (`<name>`, `</name>`, `<name/>`, spaces and case
tolerated) is cut out, and the text left is the document; each tag pair becomes a span of
that clean text, labeled with its category. A tag name is a category's tag, its name or
its label, compared without case, accents, spaces, `-` and `_`.

Repaired, because the intent is unambiguous (each repair is reported):
- a tag written with other case or spelling, or with the category's name: `<Health>`;
- a tag left open: closed at the end of its sentence (before its final stop), when no
  other tag comes first;
- a closing tag never opened: opened at the start of its sentence, when no other tag
  comes between;
- a tag opened again inside itself: one passage; a tag inside another: the inner passage
  keeps its label and the outer one is split around it (spans of one source never overlap);
- an empty or self-closing tag: dropped; whitespace at a passage's edges: left out.

Not repaired (the document is flagged with the reason, the text is still clean): an
unknown tag, a closing tag that does not match the open one, and a tag left open or never
opened where another tag makes its extent a guess. Those passages get no span.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field

from gen.core.records import Span
from gen.text.sentences import split_sentences
from gen.text.words import trim_whitespace

SOURCE = "llm_inline"

#: `<name>`, `</name>`, `<name/>`; a name may hold spaces, so `<health data>` is read as a
#: (probably unknown) tag rather than left in the text.
_TAG = re.compile(r"<\s*(/?)\s*([^\W\d][\w\- ]{0,40}?)\s*(/?)\s*>")
_SEPARATORS = re.compile(r"[\s_\-]+")
#: Left out of a passage closed at its sentence end, as writers leave them out of tags.
_SENTENCE_STOPS = ".!?…"

# Problems: the document is flagged with these reasons.
UNKNOWN_TAG = "unknown_tag"
MISMATCHED_TAG = "mismatched_tag"
UNCLOSED_TAG = "unclosed_tag"
UNOPENED_TAG = "unopened_tag"


def tag_key(name: str) -> str:
    """How tag names are compared: `Health-Data` and `health_data` are the same tag, and
    so are `sessualità` and `sessualita`."""
    decomposed = unicodedata.normalize("NFKD", _SEPARATORS.sub("", name))
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


@dataclass(frozen=True)
class _Event:
    position: int
    closing: bool
    label: str | None
    name: str


@dataclass
class InlineParse:
    """The clean text, its spans, and what was repaired or could not be."""

    text: str
    spans: list[Span]
    repairs: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def flags(self) -> list[str]:
        reasons = dict.fromkeys(problem.split(":", 1)[0] for problem in self.problems)
        return [f"inline_{reason}" for reason in reasons]


class _Reader:
    def __init__(self, text: str, events: list[_Event], language: str) -> None:
        self.text = text
        self.events = events
        self.positions = [event.position for event in events]
        self.sentences = split_sentences(text, language)
        self.passages: list[tuple[int, int, str]] = []
        self.repairs: list[str] = []
        self.problems: list[str] = []

    def _no_tag_between(self, start: int, end: int) -> bool:
        """No tag strictly inside (start, end)."""
        low = bisect.bisect_right(self.positions, start)
        high = bisect.bisect_left(self.positions, end)
        return low >= high

    def _sentence_end(self, position: int) -> int:
        """The end of the sentence holding `position` (or of the next one)."""
        for _, end in self.sentences:
            if end > position:
                return end
        return len(self.text)

    def _sentence_start(self, position: int) -> int:
        starts = [start for start, _ in self.sentences if start <= position]
        return starts[-1] if starts else 0

    def close_at_sentence_end(self, opened: _Event) -> None:
        end = self._sentence_end(opened.position)
        while end > opened.position and self.text[end - 1] in _SENTENCE_STOPS:
            end -= 1
        if not self.text[opened.position : end].strip():
            self.repairs.append(f"<{opened.name}> opened at the end: dropped")
        elif self._no_tag_between(opened.position, end):
            self.passages.append((opened.position, end, str(opened.label)))
            self.repairs.append(f"closed <{opened.name}> at the end of its sentence")
        else:
            self.problems.append(f"{UNCLOSED_TAG}: <{opened.name}> at {opened.position}")

    def open_at_sentence_start(self, closed: _Event) -> None:
        start = self._sentence_start(closed.position)
        if self._no_tag_between(start, closed.position):
            self.passages.append((start, closed.position, str(closed.label)))
            self.repairs.append(f"opened </{closed.name}> at the start of its sentence")
        else:
            self.problems.append(f"{UNOPENED_TAG}: </{closed.name}> at {closed.position}")

    def read(self) -> None:
        stack: list[_Event] = []
        for event in self.events:
            if event.label is None:
                self.problems.append(f"{UNKNOWN_TAG}: <{event.name}>")
            elif not event.closing:
                if any(open_.label == event.label for open_ in stack):
                    self.repairs.append(f"<{event.name}> opened inside itself")
                stack.append(event)
            elif stack and stack[-1].label == event.label:
                opened = stack.pop()
                self.passages.append((opened.position, event.position, str(event.label)))
            elif any(open_.label == event.label for open_ in stack):
                while stack[-1].label != event.label:
                    self.close_at_sentence_end(stack.pop())
                opened = stack.pop()
                self.passages.append((opened.position, event.position, str(event.label)))
            elif stack:
                opened = stack.pop()
                self.problems.append(f"{MISMATCHED_TAG}: <{opened.name}> closed by </{event.name}>")
            else:
                self.open_at_sentence_start(event)
        for opened in reversed(stack):
            self.close_at_sentence_end(opened)

    def spans(self) -> list[Span]:
        """Inner passages win over the ones around them; one passage per label run."""
        owner: list[str | None] = [None] * len(self.text)
        by_length = sorted(self.passages, key=lambda p: p[1] - p[0], reverse=True)
        for start, end, label in by_length:
            owner[start:end] = [label] * (end - start)
        nested = any(
            a[0] < b[1] and b[0] < a[1] and a[2] != b[2]
            for i, a in enumerate(self.passages)
            for b in self.passages[i + 1 :]
        )
        if nested:
            self.repairs.append("a passage inside another of another label: the outer split")
        spans, index = [], 0
        while index < len(owner):
            label = owner[index]
            end = index + 1
            while end < len(owner) and owner[end] == label:
                end += 1
            if label is not None:
                spans.extend(_trimmed(self.text, index, end, label))
            index = end
        return spans


def _trimmed(text: str, start: int, end: int, label: str) -> list[Span]:
    trimmed = trim_whitespace(text, start, end)
    return [Span(*trimmed, label, SOURCE)] if trimmed else []


def parse_inline(tagged: str, names: Mapping[str, str], language: str = "en") -> InlineParse:
    """Strip the tags of `tagged` into spans; `names` maps every accepted tag name (compared
    with `tag_key`) to its span label."""
    keys = {tag_key(name): label for name, label in names.items()}
    pieces: list[str] = []
    events: list[_Event] = []
    repairs: list[str] = []
    cursor = removed = 0
    for match in _TAG.finditer(tagged):
        closing, name, self_closing = match.group(1), match.group(2), match.group(3)
        pieces.append(tagged[cursor : match.start()])
        position = match.start() - removed
        removed += match.end() - match.start()
        cursor = match.end()
        label = keys.get(tag_key(name))
        if label is not None and self_closing:
            repairs.append(f"empty tag <{name}/> dropped")
            continue
        if label is not None and name not in names:
            repairs.append(f"<{name}> read as the tag of {label}")
        events.append(_Event(position, bool(closing), label, name))
    pieces.append(tagged[cursor:])
    reader = _Reader("".join(pieces), events, language)
    reader.read()
    spans = reader.spans()
    return InlineParse(reader.text, spans, repairs + reader.repairs, reader.problems)


def accepted_names(tags: Mapping[str, str], labels: Mapping[str, str]) -> dict[str, str]:
    """Tag name -> span label: each category's tag first, then its label and its name
    (`tags`, `labels`: category -> tag, category -> label). ValueError when two categories'
    tags are the same name for the parser (`tag_key`)."""
    names: dict[str, str] = {}
    keys: dict[str, str] = {}
    for category, tag in tags.items():
        if tag_key(tag) in keys:
            raise ValueError(
                f"tags.{category}: <{tag}> is the same tag as <{keys[tag_key(tag)]}> "
                "(case, spaces, - and _ do not count)"
            )
        keys[tag_key(tag)] = tag
        names[tag] = labels[category]
    for category, label in labels.items():
        for name in (label, category):
            if tag_key(name) not in keys:
                keys[tag_key(name)] = name
                names[name] = label
    return names
