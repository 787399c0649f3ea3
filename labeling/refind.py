"""The planned facts of a stored document found again by today's finder.

A run keeps the spans its finder gave when it was written; the finder has improved since
(`labeling.planned`). Finding the facts of `meta.disclosures` again makes a kept run follow
the better finder without writing it again: `gen import --as records --refind` and
`bench/encoder_detector.py --refind` both do it with this function.

Only documents of the inline style are searched (a placeholder document's spans are exact
by construction); a layout's field values (`"form": "field"` or any form but `clause`) are
exact by construction too and keep their stored offsets.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from gen.core.errors import InvalidSpanError, UsageError
from gen.core.packs import load_language_pack
from gen.core.records import Record, Span, check_spans
from labeling.planned import META_KEY, SOURCE, FactFinder

#: The form of a fact told in running prose, which the finder looks for.
CLAUSE = "clause"


def refound(record: Record, prompts_dir: Path | None = None) -> Record:
    """The record with its inline-style planned facts found again by today's finder (the
    spans of other sources as they are); UsageError naming the record for a fact of a
    category its pack does not know or stored offsets that do not fit its text."""
    planned = (record.meta or {}).get(META_KEY) or {}
    facts = planned.get("planned") or []
    if planned.get("style") != "inline" or not facts:
        return record
    pack = load_language_pack(record.language, prompts_dir)
    labels = {name: info.label for name, info in pack.categories.categories.items()}
    unknown = sorted({str(f.get("category")) for f in facts} - set(labels))
    if unknown:
        raise UsageError(
            f"record {record.id}: planned facts of unknown category {', '.join(unknown)}; "
            f"expected one of: {', '.join(labels)}"
        )
    finder = FactFinder(pack.facts.finder, record.language)
    spans = [span for span in record.spans if span.source != SOURCE]
    clauses = [fact for fact in facts if fact.get("form", CLAUSE) == CLAUSE]
    for fact in facts:  # a layout's field values: exact by construction, kept as stored
        if fact.get("form", CLAUSE) != CLAUSE and "start" in fact:
            label = labels[fact["category"]]
            spans.append(Span(fact["start"], fact["end"], label, SOURCE, "exact", 1.0))
    for fact, found in zip(
        clauses, finder.find(record.text, [f["text"] for f in clauses]), strict=True
    ):
        if found:
            score, label = float(found.score), labels[fact["category"]]
            spans.append(Span(found.start, found.end, label, SOURCE, found.quality, score))
    spans.sort(key=lambda span: (span.start, span.end, span.source))
    try:
        check_spans(record.text, spans, record_id=record.id)
    except InvalidSpanError as exc:
        raise UsageError(f"{exc} (planned facts found again)") from None
    return dataclasses.replace(record, spans=spans)
