"""spaCy `DocBin` files (`.spacy`): the text is the Doc's own; spans come from the
entities (or, without entities, from the span groups), already at exact character
offsets, trimmed of the invisible characters a token may start or end with (counted, as
`gen.importing.annotated.gold_span` does). Record ids are the `id` the spacy export
stores in `user_data`, when present."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, ClassVar

from gen.core.errors import GenError, UsageError
from gen.core.records import Record, check_spans
from gen.importing import ImportFileError, RecordDefaults
from gen.importing.annotated import NOTES, gold_span


class DocBinReader:
    name: ClassVar[str] = "spacy"
    suffixes: ClassVar[tuple[str, ...]] = (".spacy",)
    labeled: ClassVar[bool] = True

    def sniff(self, path: Path) -> bool:
        return False

    def read(self, path: Path, defaults: RecordDefaults) -> list[Record]:
        try:
            import spacy
            from spacy.tokens import DocBin
        except ImportError:
            raise UsageError(
                "reading .spacy files needs spaCy: pip install 'gen[export]'"
            ) from None
        try:
            docs = list(DocBin().from_disk(path).get_docs(spacy.blank("xx").vocab))
        except (ValueError, KeyError, OSError) as exc:
            raise ImportFileError(path, f"not a spaCy DocBin file ({exc})") from None
        records = []
        for index, doc in enumerate(docs):
            record_id = str(doc.user_data.get("id") or f"{defaults.record_id(path)}-{index}")
            notes: Counter[str] = Counter()
            spans = [
                gold_span(doc.text, s.start_char, s.end_char, s.label_, notes) for s in _spans(doc)
            ]
            try:  # each span alone: overlaps are refused or resolved record by record
                for span in spans:
                    check_spans(doc.text, [span], record_id=record_id)
            except GenError as exc:
                raise ImportFileError(path, f"document {index}: {exc}") from None
            category = max(doc.cats, key=doc.cats.get) if doc.cats else defaults.category
            records.append(
                Record(
                    id=record_id,
                    text=doc.text,
                    category=category,
                    doc_type=defaults.doc_type,
                    language=defaults.language,
                    source="gold",
                    spans=spans,
                    meta={"imported_from": path.name, "doc": index}
                    | ({NOTES: dict(notes)} if notes else {}),
                )
            )
        return records


def _spans(doc: Any) -> list[Any]:
    if doc.ents:
        return list(doc.ents)
    return [span for group in doc.spans.values() for span in group]
