"""What a fuzzy passage must hold to be a planned fact, and how far its span reaches.

**The whole fact or nothing.** A passage that shares most of a fact's characters may still
hold only half of it ("began hormone therapy in 2019" for "is a transgender man and began
hormone therapy in 2019", "takes levothyroxine twice a day" for "... for an underactive
thyroid twice a day"). So the fact's content words (all but the pack's `function_words`)
must be there, in any order, in a form the alignment takes as the same word, in the span
or, the same word, earlier in its sentence (a year put in front: "In 2018, she underwent
..."):

- every number (a word with a digit, equal) and every name (a word the fact writes with a
  capital: facts start at their lowercase verb, so a capital marks a party, a religion, a
  place; in German every noun) is there, and so is the head of a fact that starts with an
  auxiliary or a copula, its first content word (in any form: "has been living" holds
  "has lived"): "accuse di appropriazione indebita" is not "è stata assolta dall'accusa
  di appropriazione indebita";
- every part of the fact, its words between the pack's `joins` ("and"), holds more than
  half of its content words, so a fact of two statements is never found by one of them;
- of a fact with four content words or more one other word may be missing, the writer's
  rewording ("when she was nine" for "at the age of nine"); of a shorter fact none, since
  one word is then its head ("was diagnosed with asthma in 2019" is not the fact "was
  diagnosed with diabetes in 2019").

**The passage a gold labeler marks** (docs/gold.md): from the first word after the subject
to the end of the clause, the subject left out. The alignment finds the words of the fact;
the span then reaches, within its sentence and never into another fact's span:

- back over the verb group the writer put before them: to the leftmost of the pack's
  `auxiliaries` in the words since the subject ("is currently on the waiting list"), or to
  a form of a fact word the alignment left out ("has been taking tamoxifen" for "takes
  tamoxifen"); failing those, to the writer's own word for a verb of the fact the passage
  lacks, right before it ("coming out as bisexual" for "came out as bisexual"), and when a
  subject (a pronoun or relative of the pack's `clause_words`, or a name) stands right
  before a few words that do not start with a function word, to those words, the verb
  group ("she underwent gender-affirming surgery" for "had gender-affirming surgery");
- back over a possessive right before them, which makes the passage the subject of its
  clause: the span then runs to the next punctuation ("his parents came from Mirpur in
  Pakistan", "Her BMI of 41 at the check-up in 2004 indicated that she needed ...", as the
  gold set marks such clauses); after a name's "'s" likewise, the name left out (it is a
  `PERSON` span of its own);
- forward over a complement that follows, from one of the pack's `complements` (a
  preposition: "in 1982", "since 2015 to manage her symptoms"; a relative pronoun right
  after the passage, with no comma) to the end of the clause: the next punctuation or
  `clause_words` word other than the `joins` and `complements`; otherwise, when the fact
  goes on after the last word the passage holds, over as many of the writer's content
  words as the fact has left ("ogni tre settimane" for "ogni tre mesi"), within the clause.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from operator import itemgetter

import numpy as np

from gen.core.pack_facts import FinderSettings
from gen.text.words import word_spans, words_in
from labeling.align.edges import trim_punctuation
from labeling.align.tokens import SourceTokens, is_word, normalise_tokens
from labeling.fact_alignment import alike

#: A fact with fewer content words than this must keep every one of them.
_REWORDING_FROM = 4
#: The most words between a subject and a passage that can be its verb group.
_MAX_LEAD_WORDS = 6


@dataclass(frozen=True)
class FactWords:
    """The tokens of a fact and which of them carry its content."""

    tokens: tuple[str, ...]
    content: tuple[int, ...]
    #: Content words that must be there: numbers (equal) and names.
    numbers: tuple[int, ...]
    names: tuple[int, ...]
    #: The content words of each part of the fact (between its `joins` words).
    parts: tuple[tuple[int, ...], ...]
    #: The first content word of a fact that starts with a function word (an auxiliary or
    #: a copula): the head of its predicate ("acquitted", "delegato"), which must be held.
    head: int | None

    @classmethod
    def of(cls, fact: str, settings: FinderSettings) -> FactWords:
        source = SourceTokens.of(fact)
        lo, hi = trim_punctuation(source.norms, 0, len(source.norms))
        tokens = tuple(source.norms[lo:hi])
        function = frozenset(settings.function_words)
        content = [i for i, token in enumerate(tokens) if is_word(token) and token not in function]
        original = [match.group() for match in source.matches[lo:hi]]
        numbers = tuple(i for i in content if any(c.isdigit() for c in tokens[i]))
        names = tuple(
            i
            for i in content
            if i > 0 and i not in numbers and any(c.isupper() for c in original[i])
        )
        parts: list[list[int]] = [[]]
        for i, token in enumerate(tokens):
            if token in settings.joins:
                parts.append([])
            elif i in content:
                parts[-1].append(i)
        head = content[0] if content and content[0] > 0 else None
        return cls(tokens, tuple(content), numbers, names, tuple(map(tuple, parts)), head)

    def held(
        self,
        similarity: np.ndarray,
        norms: Sequence[str],
        span_from: int,
        first_row: int,
        same: Mapping[str, str],
    ) -> list[bool]:
        """Which fact tokens a stretch of `norms` holds: `similarity` is fact token x those
        tokens (0 where two words never match), the span starts at token `span_from`, and
        the words before it hold a name, or a word after the fact's first one in the span
        (`first_row`) when they are the same word ("In 2018, she ...", "After years of
        transition, Kimberly ..."; never the verb the span lacks). Numbers are equal; the
        head may be any form `alike` takes. Each text word holds one fact word, the most
        alike first, so "sexual" is not "asexual" too."""
        held = [False] * len(self.tokens)
        used: set[int] = set()
        rows, columns = np.nonzero(similarity)
        for at in np.argsort(-similarity[rows, columns], kind="stable"):
            row, column = int(rows[at]), int(columns[at])
            if held[row] or column in used:
                continue
            same_word = similarity[row, column] >= 1.0
            if column < span_from and row not in self.names:
                if not same_word or row < first_row:
                    continue
            elif row in self.numbers and not same_word:
                continue
            held[row] = True
            used.add(column)
        if self.head is not None and not held[self.head]:
            free = (norms[c] for c in range(span_from, len(norms)) if c not in used)
            held[self.head] = any(alike(self.tokens[self.head], word, same) for word in free)
        return held

    def whole(self, held: Sequence[bool]) -> bool:
        """Whether the `held` words are the whole fact (the module docstring)."""
        keys = (*self.numbers, *self.names, *([] if self.head is None else [self.head]))
        if any(not held[i] for i in keys):
            return False
        for part in self.parts:
            if part and sum(held[i] for i in part) * 2 <= len(part):
                return False
        missing = sum(not held[i] for i in self.content)
        return missing <= (1 if len(self.content) >= _REWORDING_FROM else 0)


@dataclass(frozen=True)
class Words:
    """The words of a text (`gen.text.words`) as the edges of a span see them: each with
    its first token, folded as the aligner's ("" for punctuation)."""

    spans: Sequence[tuple[int, int]]
    texts: Sequence[str]
    norms: Sequence[str]

    @classmethod
    def of(cls, text: str) -> Words:
        spans = word_spans(text)
        texts = [text[start:end] for start, end in spans]
        norms = [
            next(iter(normalise_tokens(word)), "") if word[0].isalnum() else "" for word in texts
        ]
        return cls(spans, texts, norms)


class Extent:
    """Widens a passage to the span a gold labeler marks (the module docstring)."""

    def __init__(self, settings: FinderSettings, same: Mapping[str, str]) -> None:
        self.same = same
        self.function = frozenset(settings.function_words)
        self.auxiliaries = frozenset(settings.auxiliaries)
        self.clause_words = frozenset(settings.clause_words)
        self.complements = frozenset(settings.complements)
        self.tail_stops = self.clause_words - frozenset(settings.joins) - self.complements
        self.possessives = frozenset(settings.possessives)

    def widen(
        self,
        words: Words,
        passage: tuple[int, int],
        room: tuple[int, int],
        lead: Sequence[str] = (),
        *,
        lead_missing: bool = False,
        trail: int = 0,
    ) -> tuple[int, int]:
        """The span (character offsets, whole words) of the passage `text[start:end]`, kept
        inside `room` (its sentence, no other fact's span). `lead`: the fact's words before
        the first one the passage holds; `lead_missing`: the fact's first word is not held;
        `trail`: how many content words of the fact follow the last one it holds."""
        touched = words_in(words.spans, *passage)
        floor = bisect.bisect_left(words.spans, room[0], key=_start_of)
        ceiling = bisect.bisect_right(words.spans, room[1], key=_end_of) - 1
        first = self._start(words, touched[0], floor, lead, lead_missing=lead_missing)
        before = touched[0] - 1
        owned = first < touched[0] and words.norms[first] in self.possessives
        if owned or (before >= floor and words.texts[before].endswith(_POSSESSIVE)):
            last = self._clause_end(words, touched[-1], ceiling)
        else:
            last = self._end(words, touched[-1], ceiling, trail)
        return words.spans[first][0], words.spans[last][1]

    def _start(
        self, words: Words, first: int, floor: int, lead: Sequence[str], *, lead_missing: bool
    ) -> int:
        if first > floor and words.norms[first - 1] in self.possessives:
            return first - 1
        stretch: list[int] = []  # the words back to the subject, nearest first
        subject = False
        index = first - 1
        while index >= floor and len(stretch) < _MAX_LEAD_WORDS:
            text, norm = words.texts[index], words.norms[index]
            if not norm:
                break
            if norm in self.clause_words:
                subject = True
                break
            if text[0].isupper() and not (index == floor and norm in self.auxiliaries):
                # a name; not "Alex's", "His", "The"
                subject = not text.endswith(_POSSESSIVE) and norm not in self.function
                break
            stretch.append(index)
            index -= 1
        content_lead = [word for word in lead if word not in self.function]
        start = first
        for index in stretch:
            norm = words.norms[index]
            if norm in self.auxiliaries or any(alike(w, norm, self.same) for w in content_lead):
                start = index
        if start != first or not stretch:
            return start
        if content_lead and self._verb(words.norms[stretch[0]]):
            start = stretch[0]  # the writer's own verb for the fact's
        if (lead_missing or content_lead) and subject and self._verb(words.norms[stretch[-1]]):
            start = stretch[-1]  # the whole verb group after the subject
        return start

    def _verb(self, norm: str) -> bool:
        """Whether a word before a passage may be its verb: no function word or preposition."""
        return norm not in self.function and norm not in self.complements

    def _clause_end(self, words: Words, last: int, ceiling: int) -> int:
        """A passage after a possessive is the subject of its clause ("Her BMI of 41 ...
        indicated that she needed ...", "Lori's pacifist ... status is ..."): the span runs
        to the next punctuation."""
        end = last
        for index in range(last + 1, ceiling + 1):
            if not words.norms[index]:
                break
            if words.norms[index] not in self.function:
                end = index
        return end

    def _end(self, words: Words, last: int, ceiling: int, trail: int) -> int:
        index = last + 1
        if index <= ceiling and words.norms[index] in self.complements:
            index += 1
            while (
                index <= ceiling
                and words.norms[index]
                and words.norms[index] not in self.tail_stops
            ):
                index += 1
            return index - 1
        # The fact goes on: as many of the writer's words as it has content words left.
        end = last
        while index <= ceiling and trail and words.norms[index]:
            if words.norms[index] in self.clause_words:
                break
            if words.norms[index] not in self.function:
                trail -= 1
                end = index
            index += 1
        return end


#: "Alex's parents": a name that is not the subject.
_POSSESSIVE = ("'s", "’s")
_start_of = itemgetter(0)
_end_of = itemgetter(1)
