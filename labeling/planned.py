"""Where the planned facts are in the document their writer was asked to include them in.

`gen documents --disclosures planned` (`gen.generate.disclosures`) decides what a document
discloses before it is written; this module finds each fact again, so that its span is
known whatever the model wrote (`source = planned`).

- **Exact**: the fact's tokens as a run of the text's tokens. Tokens are the censor
  aligner's (`labeling.align.tokens`): case, quote and dash styles are folded, and
  whitespace, line breaks included, is no token.
- **Fuzzy**: otherwise, the passage of the text closest to the fact, by a semi-global
  alignment of the fact's tokens against the text's (the fact is matched whole, the
  passage may start and end anywhere): skipping a token of either costs its characters,
  and two words whose Indel similarity reaches the aligner's `MIN_WORD_SIMILARITY` match
  at the cost of their difference (another tense or gender, a typo: "iscritta" /
  "iscritto"; words under four characters only when equal, or "he" would be "the").
  Words of one `same_words` group of the pack (`facts.yaml`: "has" / "have", "è" /
  "sono") are the same word, so a fact told in the first person costs nothing more.
  Each row of the alignment table is one numpy pass, as in
  `labeling.align.regions`. The passages that end at the `CANDIDATE_ENDS` cheapest places
  are candidates; one carries the fact when its score, the share of characters it and
  the fact have in common (1 - cost / characters of both), reaches the pack's
  `min_score`, and it holds more than half of the fact's content words (all but the
  pack's `function_words`), so that "is a practising" never passes for "is a practising
  Sikh". A candidate ends at its last content word the fact matched (words the fact did
  not match, function words and punctuation after it are left out), and is scored as
  it then stands. Of those, the one holding the most content words wins, then the best
  score; with none, the fact is missing.

A span is the passage found, trimmed like gold spans: without the punctuation and markup
at its edges (`labeling.align.edges`, shared with the other strategies), widened to whole
words of `gen.text.words`. A passage one fact took is not searched for the next, so the
spans never overlap.

In placeholder style the writer wrote `[[FACT_1]]` where fact 1 belongs; `substitute`
puts the facts in their places and so knows their spans exactly.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from rapidfuzz.distance import Indel
from rapidfuzz.process import cdist

from gen.core.pack_facts import FinderSettings
from gen.text.words import word_spans, words_in
from labeling.align.edges import trim_punctuation
from labeling.align.regions import MIN_WORD_SIMILARITY
from labeling.align.tokens import SourceTokens, is_word, normalise_tokens

#: The span source of planned facts.
SOURCE = "planned"
#: `meta` key of a document written with planned disclosures: its facts and their outcome.
META_KEY = "disclosures"
EXACT = "exact"
FUZZY = "fuzzy"
MISSING = "missing"

_TOLERANCE = 1e-9
#: How many of the cheapest passage ends are scored: a longer passage may cost a little
#: more and hold more of the fact ("... when she was nine" for "... at the age of nine").
CANDIDATE_ENDS = 8
#: Words shorter than this match only their equal (or a `same_words` form).
_SHORT_WORD = 4
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
    """Finds planned facts in texts of one language (its `finder` settings)."""

    def __init__(self, settings: FinderSettings) -> None:
        self.min_score = settings.min_score
        self._same = {word: group[0] for group in settings.same_words for word in group}
        self._function = frozenset(settings.function_words)

    def find(self, text: str, facts: Sequence[str]) -> list[Found | None]:
        """Each fact's passage in `text`, in order; None where it is missing."""
        source = SourceTokens.of(text)
        words = word_spans(text)
        taken = [False] * len(source.norms)
        results: list[Found | None] = []
        for fact in facts:
            found = self._find_one(source, fact, taken)
            if found is not None:
                found = _whole_words(found, words)
                for index, match in enumerate(source.matches):
                    if found.start <= match.start() < found.end:
                        taken[index] = True
            results.append(found)
        return results

    def _find_one(self, source: SourceTokens, fact: str, taken: list[bool]) -> Found | None:
        wanted = normalise_tokens(fact)
        lo, hi = trim_punctuation(wanted, 0, len(wanted))
        wanted = wanted[lo:hi]
        if not wanted:
            return None
        runs = _free_runs(taken)
        for start, end in runs:
            at = _run_at(source.norms, wanted, start, end)
            if at is not None:
                return _found(source, at, at + len(wanted), EXACT, 1.0)
        best: tuple[tuple[float, float], int, int] | None = None
        for start, end in runs:
            passage = self._closest(source.norms[start:end], wanted)
            if passage is not None and (best is None or passage[0] > best[0]):
                best = (passage[0], start + passage[1], start + passage[2])
        if best is None:
            return None
        (_, score), first, last = best
        first, last = trim_punctuation(source.norms, first, last)
        if first == last:
            return None
        return _found(source, first, last, FUZZY, round(float(score), 4))

    def _closest(
        self, norms: Sequence[str], fact: Sequence[str]
    ) -> tuple[tuple[float, float], int, int] | None:
        """((content held, score), first, last token) of the passage of `norms` that best
        carries `fact`; None when none does."""
        if not norms:
            return None
        fact_weights = np.array([len(token) for token in fact], dtype=float)
        weights = np.array([len(token) for token in norms], dtype=float)
        similarity = cdist(
            [self._same.get(token, token) for token in fact],
            [self._same.get(token, token) for token in norms],
            scorer=Indel.normalized_similarity,
            workers=1,
        )
        # Short words are alike by chance ("he" / "the"): they match only when equal.
        short = (fact_weights[:, None] < _SHORT_WORD) | (weights[None, :] < _SHORT_WORD)
        similarity = np.where(short & (similarity < 1.0), 0.0, similarity)
        substitution = np.where(
            similarity >= MIN_WORD_SIMILARITY,
            (fact_weights[:, None] + weights[None, :]) * (1.0 - similarity),
            np.inf,
        )
        table = _fill_table(fact_weights, weights, substitution)
        content = {i for i, token in enumerate(fact) if is_word(token)}
        content = {i for i in content if fact[i] not in self._function}
        best: tuple[tuple[float, float], int, int] | None = None
        for end in np.argsort(table[-1][1:], kind="stable")[:CANDIDATE_ENDS]:
            first, pairs = _walk_back(table, fact_weights, weights, substitution, int(end) + 1)
            last = self._tail(norms, first, int(end) + 1, {column for _, column in pairs})
            if first == last:
                continue
            # The passage's own score: the whole fact aligned with the whole passage.
            cost = _fill_table(
                fact_weights, weights[first:last], substitution[:, first:last], free_start=False
            )[-1][-1]
            score = 1.0 - float(cost) / (fact_weights.sum() + weights[first:last].sum())
            held = sum(row in content for row, _ in pairs) / len(content) if content else 1.0
            if score < self.min_score or held <= 0.5:
                continue
            if best is None or (held, score) > best[0]:
                best = ((held, score), first, last)
        return best

    def _tail(self, norms: Sequence[str], first: int, last: int, matched: set[int]) -> int:
        """Where the passage ends once the words at its end that the fact did not match,
        function words and punctuation are left out ("... e va dalla nonna ogni")."""
        while last > first and (
            last - 1 not in matched
            or norms[last - 1] in self._function
            or not is_word(norms[last - 1])
        ):
            last -= 1
        return last


def _fill_table(
    fact_weights: np.ndarray,
    weights: np.ndarray,
    substitution: np.ndarray,
    *,
    free_start: bool = True,
) -> np.ndarray:
    """Rows: the fact's tokens; columns: the text's. With `free_start` row 0 costs nothing
    (the passage may start anywhere); skipping a fact token costs its characters, matching
    costs `substitution`, and a text token inside the passage left unmatched costs its
    characters: a running minimum of `cost - characters so far`, one numpy pass per row."""
    before = np.concatenate(([0.0], np.cumsum(weights)))
    table = np.empty((len(fact_weights) + 1, len(weights) + 1))
    table[0] = 0.0 if free_start else before
    for row, weight in enumerate(fact_weights):
        previous = table[row]
        step = previous + weight
        step[1:] = np.minimum(step[1:], previous[:-1] + substitution[row])
        table[row + 1] = before + np.minimum.accumulate(step - before)
    return table


def _walk_back(
    table: np.ndarray,
    fact_weights: np.ndarray,
    weights: np.ndarray,
    substitution: np.ndarray,
    last: int,
) -> tuple[int, list[tuple[int, int]]]:
    """The first text token of the passage that ends before token `last`, and the
    (fact token, text token) pairs matched in it."""
    row, column = len(fact_weights), last
    matched: list[tuple[int, int]] = []
    while row > 0:
        here = table[row][column]
        if column > 0 and table[row - 1][column - 1] + substitution[row - 1][column - 1] <= (
            here + _TOLERANCE
        ):
            row, column = row - 1, column - 1
            matched.append((row, column))
        elif table[row - 1][column] + fact_weights[row - 1] <= here + _TOLERANCE:
            row -= 1
        else:
            column -= 1
            assert table[row][column] + weights[column] <= here + _TOLERANCE
    return column, matched


def _free_runs(taken: Sequence[bool]) -> list[tuple[int, int]]:
    """Token ranges no earlier fact of the document took."""
    runs, start = [], None
    for index, used in enumerate([*taken, True]):
        if not used and start is None:
            start = index
        elif used and start is not None:
            runs.append((start, index))
            start = None
    return runs


def _run_at(norms: Sequence[str], wanted: Sequence[str], start: int, end: int) -> int | None:
    """Where `wanted` first occurs whole in norms[start:end]."""
    size = len(wanted)
    for at in range(start, end - size + 1):
        if norms[at] == wanted[0] and list(norms[at : at + size]) == list(wanted):
            return at
    return None


def _found(source: SourceTokens, first: int, last: int, quality: str, score: float) -> Found:
    return Found(source.matches[first].start(), source.matches[last - 1].end(), quality, score)


def _whole_words(found: Found, words: Sequence[tuple[int, int]]) -> Found:
    """The passage widened to the words of `gen.text.words` it cuts ("l'|anno")."""
    covered = words_in(words, found.start, found.end)
    if not covered:
        return found
    start = min(found.start, words[covered[0]][0])
    end = max(found.end, words[covered[-1]][1])
    return Found(start, end, found.quality, found.score)


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
