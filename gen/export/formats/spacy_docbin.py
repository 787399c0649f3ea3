"""`spacy`: one `DocBin` per split (`train.spacy`...), for `spacy train`.

Spans become `doc.ents` snapped to spaCy tokens with `alignment_mode`; a span
that cannot be aligned (or collides with another after snapping) is counted and
listed in the manifest, never dropped silently. `doc.cats` holds the document
category, so the same files also train a text classifier.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from gen.core.records import Record
from gen.core.store import write_atomic
from gen.export.run import ExportOptions, require

#: How many unaligned spans the manifest lists by name (all are counted).
LISTED_UNALIGNED = 50


@cache
def blank_pipeline(language: str) -> Any:
    """A tokenizer-only pipeline (no model download); unknown languages use spaCy's "xx"."""
    spacy = require("spacy")
    try:
        return spacy.blank(language or "xx")
    except ImportError:
        return spacy.blank("xx")


def record_doc(record: Record, categories: list[str], mode: str, unaligned: list[dict]) -> Any:
    from spacy.util import filter_spans

    doc = blank_pipeline(record.language).make_doc(record.text)
    ents = []
    for span in record.spans:
        ent = doc.char_span(span.start, span.end, label=span.label, alignment_mode=mode)
        if ent is None:
            unaligned.append(_unaligned(record, span.start, span.end, span.label, "cuts a token"))
        else:
            ents.append(ent)
    kept = filter_spans(ents)
    unaligned.extend(
        _unaligned(record, ent.start_char, ent.end_char, ent.label_, "overlaps after alignment")
        for ent in ents
        if ent not in kept
    )
    doc.ents = kept
    doc.cats = {category: float(category == record.category) for category in categories}
    doc.user_data["id"] = record.id
    return doc


def _unaligned(record: Record, start: int, end: int, label: str, reason: str) -> dict:
    return {"record": record.id, "start": start, "end": end, "label": label, "reason": reason}


def export_spacy(splits: dict[str, list[Record]], folder: Path, options: ExportOptions) -> dict:
    tokens = require("spacy.tokens")
    categories = sorted({r.category for rs in splits.values() for r in rs})
    unaligned: dict[str, list[dict]] = {}
    for name, records in splits.items():
        docbin = tokens.DocBin(store_user_data=True)
        unaligned[name] = []
        for record in records:
            docbin.add(record_doc(record, categories, options.alignment_mode, unaligned[name]))
        write_atomic(folder / f"{name}.spacy", docbin.to_bytes())
    return {
        "files": {name: f"{name}.spacy" for name in splits},
        "alignment_mode": options.alignment_mode,
        "categories": categories,
        "unaligned_spans": {name: len(items) for name, items in unaligned.items()},
        "unaligned_examples": [item for items in unaligned.values() for item in items][
            :LISTED_UNALIGNED
        ],
    }
