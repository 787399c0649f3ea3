"""A document cut into pieces a model translates one at a time, and the tags of each piece.

A piece is a run of whole sentences (`gen.text.sentences`) of about `max_words` words,
cut only where no span runs across the cut, and preferably at a line break; the text
between pieces (line breaks, blank lines, indentation) is not translated but copied, so a
form keeps its layout. Each span of a piece is written into it as a tag named by its
label, `<health>has asthma</health>`; spans of different sources may nest (a name inside
a sensitive passage), and a span that crosses another instead cannot be written as a tag
(it is returned apart, to be found in the translation).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import regex

from gen.core.records import Span
from gen.text.sentences import keep_spans_whole, split_sentences
from gen.text.words import word_spans

#: A piece without a letter in any script (a phone number, a rule, a date in digits) is
#: copied as it is: there is nothing to translate.
_LETTER = regex.compile(r"\p{L}")


@dataclass
class Piece:
    """`text[start:end]` of the source and the spans inside it (offsets into the source)."""

    start: int
    end: int
    spans: list[Span] = field(default_factory=list)

    def needs_model(self, text: str) -> bool:
        return bool(_LETTER.search(text[self.start : self.end]))


def split_pieces(text: str, spans: Sequence[Span], language: str, max_words: int) -> list[Piece]:
    """The pieces of `text`, in order. A span outside every sentence (only whitespace
    around it, which a valid span never is) falls in no piece."""
    sentences = keep_spans_whole(split_sentences(text, language), spans)
    words = word_spans(text)
    pieces: list[Piece] = []
    count = 0
    for start, end in sentences:
        n = sum(1 for a, b in words if a >= start and b <= end)
        if pieces:
            last = pieces[-1]
            at_line_break = "\n" in text[last.end : start]
            full = count + n > max_words or (at_line_break and count >= max_words // 2)
            if not full:
                last.end = end
                count += n
                continue
        pieces.append(Piece(start, end))
        count = n
    for span in sorted(spans, key=lambda s: (s.start, -s.end)):
        for piece in pieces:
            if piece.start <= span.start and span.end <= piece.end:
                piece.spans.append(span)
                break
    return pieces


@dataclass(frozen=True)
class TaggedPiece:
    """A piece written with its spans as tags; `tagged` are the spans in tag order (outer
    first), `crossing` the spans that no tag could hold."""

    text: str
    tagged: list[Span]
    crossing: list[Span]


def tag_piece(text: str, piece: Piece) -> TaggedPiece:
    """`text[piece.start:piece.end]` with `<label>` ... `</label>` around each span."""
    ordered = sorted(piece.spans, key=lambda s: (s.start, -s.end))
    tagged: list[Span] = []
    crossing: list[Span] = []
    open_: list[Span] = []
    for span in ordered:
        while open_ and open_[-1].end <= span.start:
            open_.pop()
        if open_ and span.end > open_[-1].end:
            crossing.append(span)
            continue
        tagged.append(span)
        open_.append(span)
    inserts: list[tuple[int, int, int, str]] = []
    for order, span in enumerate(tagged):
        # At one offset: closing tags first (innermost first), then opening ones (outer first).
        inserts.append((span.start, 1, order, f"<{span.label}>"))
        inserts.append((span.end, 0, -order, f"</{span.label}>"))
    inserts.sort()
    out, cursor = [], piece.start
    for position, *_, tag in inserts:
        out.append(text[cursor:position])
        out.append(tag)
        cursor = position
    out.append(text[cursor : piece.end])
    return TaggedPiece("".join(out), tagged, crossing)
