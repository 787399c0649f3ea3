"""The spans of one translated piece: read from their tags, or found again, or dropped
with a reason; never guessed.

A span whose tag came back is carried at the tag (quality `tag`). A span whose tag was
lost, broken, or could not be written (it crossed another) is looked for in the
translation: a `keep` span by its own words, which the translation copies; a `translate`
span by the translation of its words alone (one short model call, `phrase`), found with
the whole-fact finder of `labeling.planned` (every name, number and part of it, or
nothing). Found spans have quality `found`. A span found nowhere, or only where another
span of its source already is, is dropped and counted. Tags around text that had none
(`invented`) or repeating a passage already carried (`duplicate`) give no span, and are
counted too.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from gen.core.records import Span
from gen.translate.tags import ReadTags, pair_spans
from labeling.planned import FactFinder

# The fate of a source span, counted per record and in the manifest.
TAG = "tag"
FOUND = "found"
COPIED = "copied"
NOT_FOUND = "not_found"
OVERLAP = "overlap"
# Passages of the translation that carry no source span.
INVENTED = "invented"
DUPLICATE = "duplicate"

CARRIED = (TAG, FOUND, COPIED)


@dataclass
class PieceSpans:
    """The spans of a translated piece (offsets into its translation) and what happened to
    each source span; `origins` pairs each kept span with its source span."""

    spans: list[Span] = field(default_factory=list)
    origins: list[Span] = field(default_factory=list)
    fates: Counter[str] = field(default_factory=Counter)
    #: Source spans dropped, with their reason: (span, reason).
    dropped: list[tuple[Span, str]] = field(default_factory=list)
    extra: Counter[str] = field(default_factory=Counter)

    def keep(self, span: Span, origin: Span, fate: str) -> None:
        clash = any(s.source == span.source and s.overlap(span.start, span.end) for s in self.spans)
        if clash:
            self.drop(origin, OVERLAP)
            return
        self.spans.append(span)
        self.origins.append(origin)
        self.fates[fate] += 1

    def drop(self, origin: Span, reason: str) -> None:
        self.dropped.append((origin, reason))
        self.fates[reason] += 1


@dataclass(frozen=True)
class Recovery:
    """How lost spans are looked for: `keeps(label)`, the finder of the target language,
    and `phrase(span)`, the translation of a span's words alone (None when the model gave
    none)."""

    keeps: Callable[[str], bool]
    finder: FactFinder
    phrase: Callable[[Span], str | None]


def carry_spans(
    source_text: str,
    tagged: Sequence[Span],
    crossing: Sequence[Span],
    read: ReadTags,
    recovery: Recovery,
) -> PieceSpans:
    """The spans of `read.text` for the source spans `tagged` (written as tags, in tag
    order) and `crossing` (not written)."""
    result = PieceSpans()
    pairs = pair_spans(source_text, tagged, read, recovery.keeps)
    lost: list[Span] = []
    for span, index in zip(tagged, pairs, strict=True):
        if index is None:
            lost.append(span)
            continue
        passage = read.passages[index]
        result.keep(replace(span, start=passage.start, end=passage.end, quality=TAG), span, TAG)
    paired = {index for index in pairs if index is not None}
    carried_words = {
        (p.label, read.text[p.start : p.end]) for i, p in enumerate(read.passages) if i in paired
    }
    for index, passage in enumerate(read.passages):
        if index not in paired:
            words = (passage.label, read.text[passage.start : passage.end])
            result.extra[DUPLICATE if words in carried_words else INVENTED] += 1
    for span in sorted([*lost, *crossing], key=lambda s: (s.start, -s.end)):
        found = _find(source_text, span, read.text, result.spans, recovery)
        if found is None:
            result.drop(span, NOT_FOUND)
        else:
            result.keep(found, span, FOUND)
    return result


def _find(
    source_text: str, span: Span, text: str, taken: Sequence[Span], recovery: Recovery
) -> Span | None:
    words = source_text[span.start : span.end]
    if recovery.keeps(span.label):
        return _free_occurrence(text, words, span, taken)
    phrase = recovery.phrase(span)
    if not phrase:
        return None
    exact = _free_occurrence(text, phrase, span, taken)
    if exact is not None:
        return exact
    found = recovery.finder.find(text, [phrase])[0]
    if found is None:
        return None
    candidate = replace(span, start=found.start, end=found.end, quality=FOUND, score=found.score)
    return None if _clashes(candidate, taken) else candidate


def _free_occurrence(text: str, words: str, span: Span, taken: Sequence[Span]) -> Span | None:
    """The first place `words` stand in `text`, exactly (then ignoring case), where no
    span of the same source is."""
    for haystack, needle in ((text, words), (text.casefold(), words.casefold())):
        if len(haystack) != len(text):  # case folding changed the length: offsets unsafe
            continue
        at = haystack.find(needle)
        while at >= 0 and needle:
            candidate = replace(span, start=at, end=at + len(needle), quality=FOUND, score=None)
            if not _clashes(candidate, taken):
                return candidate
            at = haystack.find(needle, at + 1)
    return None


def _clashes(span: Span, taken: Sequence[Span]) -> bool:
    return any(s.source == span.source and s.overlap(span.start, span.end) for s in taken)
