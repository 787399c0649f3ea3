"""Where the planned facts are in the document their writer was asked to include them in.

`gen documents --disclosures planned` (`gen.generate.disclosures`) decides what a document
discloses before it is written; this module finds each fact again, so that its span is
known whatever the model wrote (`source = planned`).

- **Exact**: the fact's tokens as a run of the text's tokens. Tokens are the censor
  aligner's (`labeling.align.tokens`): case, quote and dash styles are folded, and
  whitespace, line breaks included, is no token.
- **Fuzzy**: otherwise, within one sentence (`gen.text.sentences`; a line that goes on in
  lowercase on the next is one sentence), the passages closest to the fact by a
  semi-global alignment (`labeling.fact_alignment`: another tense, person or gender, a
  typo, the pack's `same_words`). A candidate ends at its last content word the fact
  matched (words the fact did not match, function words and punctuation after it are
  left out) and is scored as it then stands: the share of characters it and the fact have
  in common (1 - cost / characters of both). One carries the fact when its score reaches
  the pack's `min_score` **and** its span holds the whole fact (`labeling.fact_extent`:
  every name and number, every part, all content words but one rewording). Of those, the
  one holding the most content words wins, then the best score; with none, the fact is
  missing, never half found.

The span is the passage widened to what a gold labeler marks (`labeling.fact_extent`: the
verb group before it, a complement after it, within its sentence) and trimmed like gold
spans: no punctuation or markup at its edges (`labeling.align.edges`, shared with the
other strategies), whole words of `gen.text.words`. A passage one fact took is not
searched for the next, so the spans never overlap.

In placeholder style the writer wrote `[[FACT_1]]` where fact 1 belongs; `substitute`
puts the facts in their places and so knows their spans exactly.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass

from gen.core.pack_facts import FinderSettings
from gen.text.sentences import split_sentences
from labeling.align.edges import trim_punctuation
from labeling.align.tokens import SourceTokens, is_word
from labeling.fact_alignment import Alignment, Candidate
from labeling.fact_extent import Extent, FactWords, Words

#: The span source of planned facts.
SOURCE = "planned"
#: `meta` key of a document written with planned disclosures: its facts and their outcome.
META_KEY = "disclosures"
EXACT = "exact"
FUZZY = "fuzzy"
MISSING = "missing"

#: `[[FACT_1]]`, also as the writer may spell it: `[FACT_1]`, `[[fact 1]]`, `[[FACT-1]]`,
#: `[CURRENT_FACT_1]`.
_PLACEHOLDER = re.compile(r"\[\[?\s*(?:\w+[\s_-])?FACT[\s_-]*(\d+)\s*\]?\]", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Found:
    """Where one fact is: `text[start:end]`, how (`exact` / `fuzzy`) and how well (0-1)."""

    start: int
    end: int
    quality: str
    score: float


class FactFinder:
    """Finds planned facts in texts of one language (its pack's `finder` settings)."""

    def __init__(self, settings: FinderSettings, language: str) -> None:
        self.settings = settings
        self.language = language
        self.min_score = settings.min_score
        self._same = {word: group[0] for group in settings.same_words for word in group}
        self._function = frozenset(settings.function_words)
        self._extent = Extent(settings, self._same)

    def find(self, text: str, facts: Sequence[str]) -> list[Found | None]:
        """Each fact's passage in `text`, in order; None where it is missing."""
        document = _Document(text, self.language)
        results: list[Found | None] = []
        for fact in facts:
            found = self._find_one(document, fact)
            if found is not None:
                document.take(found.start, found.end)
            results.append(found)
        return results

    def _find_one(self, document: _Document, fact: str) -> Found | None:
        fact_words = FactWords.of(fact, self.settings)
        wanted = fact_words.tokens
        if not wanted:
            return None
        for start, end in document.runs(sentences=False):
            at = _run_at(document.source.norms, wanted, start, end)
            if at is not None:
                return Found(*self._span(document, at, at + len(wanted)), EXACT, 1.0)
        best: tuple[tuple[int, float], tuple[int, int]] | None = None
        for start, end in document.runs(sentences=True):
            found = self._closest(document, start, end, fact_words)
            if found is not None and (best is None or found[0] > best[0]):
                best = found
        if best is None:
            return None
        (_, score), span = best
        return Found(*span, FUZZY, round(score, 4))

    def _closest(
        self, document: _Document, start: int, end: int, fact: FactWords
    ) -> tuple[tuple[int, float], tuple[int, int]] | None:
        """((content words held, score), span) of the passage of tokens [start, end) that
        best holds the whole fact; None when none does."""
        norms = document.source.norms
        alignment = Alignment(fact.tokens, norms[start:end], self._same)
        best = None
        for candidate in alignment.candidates():
            first, last = candidate.first, self._tail(norms, start, candidate)
            if first == last:
                continue
            score = alignment.score(first, last)
            first, last = trim_punctuation(norms, start + first, start + last)
            if first == last or score < self.min_score:
                continue
            rows = sorted(row for row, _ in candidate.pairs)
            lead = fact.tokens[: rows[0]] if rows else fact.tokens
            trail = sum(i > rows[-1] for i in fact.content) if rows else 0
            span = self._span(document, first, last, lead, lead_missing=0 not in rows, trail=trail)
            within = document.tokens_before(span[1]) - start
            span_from = document.tokens_before(span[0]) - start
            held = fact.held(
                alignment.similarity[:, :within],
                norms[start : start + within],
                span_from,
                rows[0],
                self._same,
            )
            if not fact.whole(held):
                continue
            key = (sum(held[i] for i in fact.content), score)
            if best is None or key > best[0]:
                best = (key, span)
        return best

    def _span(
        self,
        document: _Document,
        first: int,
        last: int,
        lead: Sequence[str] = (),
        *,
        lead_missing: bool = False,
        trail: int = 0,
    ) -> tuple[int, int]:
        """The span of the passage of tokens [first, last), widened within its room."""
        matches = document.source.matches
        return self._extent.widen(
            document.words,
            (matches[first].start(), matches[last - 1].end()),
            document.room(first, last),
            lead,
            lead_missing=lead_missing,
            trail=trail,
        )

    def _tail(self, norms: Sequence[str], start: int, candidate: Candidate) -> int:
        """Where the passage ends once the words at its end that the fact did not match,
        function words and punctuation are left out ("... e va dalla nonna ogni")."""
        matched = {column for _, column in candidate.pairs}
        first, last = candidate.first, candidate.last
        while last > first and (
            last - 1 not in matched
            or norms[start + last - 1] in self._function
            or not is_word(norms[start + last - 1])
        ):
            last -= 1
        return last


class _Document:
    """A text's tokens, words and sentences, and which tokens earlier facts took."""

    def __init__(self, text: str, language: str) -> None:
        self.source = SourceTokens.of(text)
        self.words = Words.of(text)
        self.taken = [False] * len(self.source.norms)
        self.starts = [match.start() for match in self.source.matches]
        begins = [begin for begin, _ in _sentences(text, language)]
        self.sentence = [bisect.bisect_right(begins, start) for start in self.starts]

    def take(self, start: int, end: int) -> None:
        for index, match in enumerate(self.source.matches):
            if start <= match.start() < end:
                self.taken[index] = True

    def runs(self, *, sentences: bool) -> list[tuple[int, int]]:
        """Token ranges no earlier fact took (and, with `sentences`, in one sentence)."""
        runs, start = [], None
        for index in range(len(self.taken) + 1):
            free = index < len(self.taken) and not self.taken[index]
            if start is not None and (
                not free or (sentences and self.sentence[index] != self.sentence[start])
            ):
                runs.append((start, index))
                start = None
            if free and start is None:
                start = index
        return runs

    def room(self, first: int, last: int) -> tuple[int, int]:
        """Character range a span of tokens [first, last) may grow into: its sentence(s),
        up to the nearest tokens an earlier fact took."""
        lo, hi = first, last
        while lo > 0 and not self.taken[lo - 1] and self.sentence[lo - 1] == self.sentence[first]:
            lo -= 1
        while (
            hi < len(self.taken)
            and not self.taken[hi]
            and self.sentence[hi] == self.sentence[last - 1]
        ):
            hi += 1
        matches = self.source.matches
        return matches[lo].start(), matches[hi - 1].end()

    def tokens_before(self, offset: int) -> int:
        """How many tokens start before character `offset`."""
        return bisect.bisect_left(self.starts, offset)


def _sentences(text: str, language: str) -> list[tuple[int, int]]:
    """The sentences of `text`; a line that goes on in lowercase on the next is one."""
    joined: list[tuple[int, int]] = []
    for start, end in split_sentences(text, language):
        if joined and "\n" in text[joined[-1][1] : start] and text[start][:1].islower():
            joined[-1] = (joined[-1][0], end)
        else:
            joined.append((start, end))
    return joined


def _run_at(norms: Sequence[str], wanted: Sequence[str], start: int, end: int) -> int | None:
    """Where `wanted` first occurs whole in norms[start:end]."""
    size = len(wanted)
    for at in range(start, end - size + 1):
        if norms[at] == wanted[0] and list(norms[at : at + size]) == list(wanted):
            return at
    return None


@dataclass(frozen=True)
class Substituted:
    """A text whose fact placeholders were replaced by the facts."""

    text: str
    #: Per fact, in order: the character ranges where it now stands (none: left out).
    places: list[list[tuple[int, int]]]
    #: Placeholders of no planned fact (`[[FACT_7]]` of three facts), removed.
    unknown: list[str]


def substitute(text: str, facts: Sequence[str]) -> Substituted:
    """Replace each `[[FACT_n]]` the writer wrote by fact n (1-based)."""
    pieces: list[str] = []
    places: list[list[tuple[int, int]]] = [[] for _ in facts]
    unknown: list[str] = []
    length = position = 0
    for match in _PLACEHOLDER.finditer(text):
        before = text[position : match.start()]
        pieces.append(before)
        length += len(before)
        number = int(match.group(1))
        if 1 <= number <= len(facts):
            fact = facts[number - 1]
            pieces.append(fact)
            places[number - 1].append((length, length + len(fact)))
            length += len(fact)
        else:
            unknown.append(match.group(0))
        position = match.end()
    pieces.append(text[position:])
    return Substituted("".join(pieces), places, unknown)
