"""What `gen translate` stores: one record per translation in `RUN/translated`, and one per
failed translation in `RUN/rejects/translate`.

A translation keeps its source's category, document type, persona and seed, and its group
(the source's group, else its id), so that a document and its translations always land in
one split. Its spans keep their source (`gold`, `planned`, `faker`...), so `gen build`
ranks them as it ranks the source's; their `quality` says how each was carried (`tag`,
`found`, `copied`). `meta.translated_from` names the source record, its language and the
model, holds the source's text (so `gen inspect` shows both side by side wherever the source
came from), pairs each span with the source span it carries (`origins`), and counts what
happened to every source span (`fates`) and to the tags the model wrote (`extra`,
`tag_problems`); the spans that were dropped are listed with their reason (`dropped`).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from gen.core.records import Record, Span
from gen.translate.answers import Translation
from gen.translate.carry import CARRIED

STAGE = "translate"
SOURCE = "translated"
META_KEY = "translated_from"
#: Flag of a translation that lost some of its source's spans.
SPANS_DROPPED = "translation_spans_dropped"


def translated_id(source_id: str, language: str) -> str:
    return f"{source_id}~{language}"


def translated_record(
    source: Record, language: str, translation: Translation, provenance: dict[str, Any]
) -> Record:
    order = sorted(range(len(translation.spans)), key=lambda i: _order(translation.spans[i]))
    spans = [translation.spans[i] for i in order]
    origins = [translation.origins[i] for i in order]
    meta = {
        META_KEY: {
            "id": source.id,
            "language": source.language,
            "text": source.text,
            **provenance,
            "pieces": translation.pieces,
            "spans": len(source.spans),
            "fates": dict(translation.fates),
            "extra": dict(translation.extra),
            "tag_problems": dict(translation.tag_problems),
            "origins": [[o.start, o.end] for o in origins],
            "dropped": [
                {
                    "start": s.start,
                    "end": s.end,
                    "label": s.label,
                    "source": s.source,
                    "reason": reason,
                }
                for s, reason in translation.dropped
            ],
            "seconds": round(translation.seconds, 2),
            "completion_tokens": translation.completion_tokens,
        }
    }
    flags = list(source.flags)
    if translation.dropped:
        flags.append(SPANS_DROPPED)
    return dataclasses.replace(
        source,
        id=translated_id(source.id, language),
        text=translation.text,
        language=language,
        source=SOURCE,
        spans=spans,
        prompt=None,
        model=provenance.get("model"),
        group=source.group or source.id,
        meta=meta,
        flags=flags,
    )


def _order(span: Span) -> tuple[int, int, str]:
    return span.start, span.end, span.source


def reject_record(source: Record, language: str, translation: Translation) -> Record:
    """A failed translation: the source, the reason and the model's answers."""
    failed = translation.failed
    return dataclasses.replace(
        source,
        id=translated_id(source.id, language),
        group=source.group or source.id,
        meta={
            "stage": STAGE,
            "source_id": source.id,
            "language": language,
            "reason": failed.reason if failed else "unknown",
            "detail": failed.detail if failed else "",
            "answers": translation.answers,
        },
    )


def carried_share(record: Record) -> tuple[int, int]:
    """(source spans carried, source spans) of a stored translation."""
    info = record.meta.get(META_KEY, {})
    fates = info.get("fates", {})
    return sum(fates.get(fate, 0) for fate in CARRIED), int(info.get("spans", 0))
