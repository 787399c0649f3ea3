"""The tags of a translated piece read back into passages, and each source span paired
with the passage that carries it.

Only tags named by a label of the piece's spans count (compared as
`labeling.strategies.inline_tags.tag_key` compares them, so `<Health>` and `<health >` are
one tag; a name a suffix or a typo away from one label, `<politics>` for `politic` or
`<ORGANIZAZION>` for `ORGANIZATION`, is read as it). Any other tag the source did not hold
(`<LOCATORE>`) is markup the model made up: it is cut out of the text and counted; one the
source held (`<br>` in a pasted e-mail) stays text. Tags pair
up as brackets do: a closing tag closes the innermost open tag of its label. What does not
pair is not repaired by a guess: a tag left open, a closing tag never opened, an empty tag
give no passage, and are reported.

Passages are paired with the source spans by their order in the text and their labels,
as the longest common subsequence of the two label sequences; a tie goes to the passage
whose words match a `keep` span's words. A source span without a passage is *lost*; a
passage without a source span is *invented* (around text that had no tag), or a
*duplicate* when it repeats the words of a passage already paired.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from rapidfuzz.distance import Levenshtein

from gen.core.records import Span
from gen.text.words import trim_whitespace
from labeling.strategies.inline_tags import tag_key

_TAG = re.compile(r"<\s*(/?)\s*([^\W\d][\w\- ]{0,40}?)\s*(/?)\s*>")
#: How far a tag's name may run past a label's and still be read as it (`politics`).
_SUFFIX_SLACK = 3
#: How alike a misspelt tag name must be to a label's (normalized Levenshtein similarity).
_SPELLING = 0.8

# Why a tag gave no passage.
UNKNOWN = "tag_unknown"
UNCLOSED = "tag_unclosed"
UNOPENED = "tag_unopened"
EMPTY = "tag_empty"


@dataclass(frozen=True)
class Passage:
    """`text[start:end]` of the translation, inside a tag of `label`."""

    start: int
    end: int
    label: str


@dataclass
class ReadTags:
    """The translation without its tags, its passages in text order, and what broke."""

    text: str
    passages: list[Passage]
    problems: list[str] = field(default_factory=list)


def label_resolver(labels: Sequence[str]) -> Callable[[str], str | None]:
    """Tag name -> label, or None when the name is no label's tag."""
    keys = {tag_key(label): label for label in labels}

    def resolve(name: str) -> str | None:
        key = tag_key(name)
        if key in keys:
            return keys[key]
        near = [
            label
            for known, label in keys.items()
            if len(known) >= 4 and key.startswith(known) and len(key) - len(known) <= _SUFFIX_SLACK
        ]
        if not near:
            near = [
                label
                for known, label in keys.items()
                if len(known) >= 5 and Levenshtein.normalized_similarity(key, known) >= _SPELLING
            ]
        return near[0] if len(near) == 1 else None

    return resolve


def markup(text: str) -> frozenset[str]:
    """The tag-shaped strings of a source text, which its translation may hold as text."""
    return frozenset(match.group() for match in _TAG.finditer(text))


def read_tags(
    translated: str, labels: Sequence[str], kept: frozenset[str] = frozenset()
) -> ReadTags:
    """Cut the tags of `labels` out of `translated` and pair them into passages; other tags
    are cut out too unless they are in `kept` (the source's own markup)."""
    resolve = label_resolver(labels)
    pieces: list[str] = []
    events: list[tuple[int, bool, str]] = []  # (position in the clean text, closing, label)
    problems: list[str] = []
    cursor = removed = 0
    for match in _TAG.finditer(translated):
        closing, name, self_closing = match.group(1), match.group(2), match.group(3)
        label = resolve(name)
        if label is None and match.group() in kept:
            continue
        pieces.append(translated[cursor : match.start()])
        position = match.start() - removed
        removed += match.end() - match.start()
        cursor = match.end()
        if label is None:
            problems.append(f"{UNKNOWN}: {match.group()}")
        elif self_closing:
            problems.append(f"{EMPTY}: <{name}/>")
            continue
        events.append((position, bool(closing), label))
    pieces.append(translated[cursor:])
    text = "".join(pieces)
    passages: list[Passage] = []
    stack: list[tuple[int, str]] = []
    for position, closing, label in events:
        if not closing:
            stack.append((position, label))
            continue
        depth = next((i for i in range(len(stack) - 1, -1, -1) if stack[i][1] == label), None)
        if depth is None:
            problems.append(f"{UNOPENED}: </{label}> at {position}")
            continue
        start, _ = stack.pop(depth)
        trimmed = trim_whitespace(text, start, position)
        if trimmed is None:
            problems.append(f"{EMPTY}: <{label}> at {start}")
        else:
            passages.append(Passage(trimmed[0], trimmed[1], label))
    problems += [f"{UNCLOSED}: <{label}> at {start}" for start, label in stack]
    passages.sort(key=lambda p: (p.start, -p.end))
    return ReadTags(text, passages, problems)


def pair_spans(
    source_text: str,
    spans: Sequence[Span],
    read: ReadTags,
    keeps: Callable[[str], bool],
) -> list[int | None]:
    """For each of `spans` (in tag order), the index of its passage in `read.passages`,
    or None when it is lost; `keeps(label)` says whether a label's words are copied."""
    passages = read.passages

    def score(i: int, j: int) -> float:
        span, passage = spans[i], passages[j]
        if span.label != passage.label:
            return 0.0
        same = source_text[span.start : span.end] == read.text[passage.start : passage.end]
        return 1.0 + (0.5 if same and keeps(span.label) else 0.0)

    n, m = len(spans), len(passages)
    best = [[0.0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            paired = score(i, j)
            best[i][j] = max(
                best[i + 1][j], best[i][j + 1], paired + best[i + 1][j + 1] if paired else 0.0
            )
    pairs: list[int | None] = [None] * n
    i = j = 0
    while i < n and j < m:
        paired = score(i, j)
        if paired and best[i][j] == paired + best[i + 1][j + 1]:
            pairs[i] = j
            i, j = i + 1, j + 1
        elif best[i][j] == best[i + 1][j]:
            i += 1
        else:
            j += 1
    return pairs
