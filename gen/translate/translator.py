"""One record translated piece by piece with one model, its spans carried over.

The record is cut into pieces (`gen.translate.pieces`), each piece is written with its spans
as tags and asked for (`gen.translate.answers`), and the spans of its translation are read
from the tags or found again (`gen.translate.carry`); the text between pieces is copied.
"""

from __future__ import annotations

from typing import Any

from gen.backends.base import Backend
from gen.core.packs import LanguagePack
from gen.core.records import Record, Span
from gen.translate.answers import PieceAsker, PieceFailed, Translation
from gen.translate.carry import COPIED, PieceSpans, Recovery, carry_spans
from gen.translate.pieces import Piece, split_pieces, tag_piece
from gen.translate.tags import markup, read_tags
from labeling.planned import FactFinder


class Translator(PieceAsker):
    """Translates records of any language into one pack's language."""

    def __init__(
        self,
        backend: Backend,
        pack: LanguagePack,
        *,
        piece_words: int | None = None,
        **options: Any,
    ) -> None:
        """`options`: those of `PieceAsker` (prompt format, context, seed, abandon)."""
        super().__init__(backend, pack, **options)
        self.piece_words = piece_words or self.prompts.piece_words
        self.finder = FactFinder(pack.facts.finder, pack.code)

    def translate(self, record: Record) -> Translation:
        result = Translation()
        pieces = split_pieces(record.text, record.spans, record.language, self.piece_words)
        inside = {id(span) for piece in pieces for span in piece.spans}
        for span in record.spans:
            if id(span) not in inside:  # only whitespace around it: never a valid span
                result.dropped.append((span, "outside_pieces"))
                result.fates["outside_pieces"] += 1
        out: list[str] = []
        cursor = 0
        length = 0
        try:
            for index, piece in enumerate(pieces):
                gap = record.text[cursor : piece.start]
                out.append(gap)
                length += len(gap)
                text, carried = self.translate_piece(record, index, piece, result)
                for span, origin in zip(carried.spans, carried.origins, strict=True):
                    result.spans.append(
                        Span(
                            span.start + length,
                            span.end + length,
                            span.label,
                            span.source,
                            span.quality,
                            span.score,
                        )
                    )
                    result.origins.append(origin)
                result.fates.update(carried.fates)
                result.extra.update(carried.extra)
                result.dropped += carried.dropped
                out.append(text)
                length += len(text)
                cursor = piece.end
        except PieceFailed as exc:
            result.failed = exc
            return result
        out.append(record.text[cursor:])
        result.text = "".join(out)
        result.pieces = len(pieces)
        return result

    def translate_piece(
        self, record: Record, index: int, piece: Piece, result: Translation
    ) -> tuple[str, PieceSpans]:
        source = record.text[piece.start : piece.end]
        if not piece.needs_model(record.text):
            copied = PieceSpans()
            for span in piece.spans:
                moved = Span(
                    span.start - piece.start,
                    span.end - piece.start,
                    span.label,
                    span.source,
                    COPIED,
                    None,
                )
                copied.keep(moved, span, COPIED)
            return source, copied
        tagged = tag_piece(record.text, piece)
        answer = self.ask(record, index, tagged.text, source, piece, result)
        read = read_tags(answer, sorted({span.label for span in piece.spans}), markup(source))
        for problem in read.problems:
            result.tag_problems[problem.split(":", 1)[0]] += 1
        local = [
            Span(s.start - piece.start, s.end - piece.start, s.label, s.source, s.quality, s.score)
            for s in (*tagged.tagged, *tagged.crossing)
        ]
        origins = dict(zip(map(id, local), (*tagged.tagged, *tagged.crossing), strict=True))
        recovery = Recovery(
            keeps=self.keeps,
            finder=self.finder,
            phrase=lambda span: self.phrase(record, source, span, result),
        )
        carried = carry_spans(
            source, local[: len(tagged.tagged)], local[len(tagged.tagged) :], read, recovery
        )
        carried.origins = [origins[id(span)] for span in carried.origins]
        carried.dropped = [(origins[id(span)], reason) for span, reason in carried.dropped]
        return read.text, carried
