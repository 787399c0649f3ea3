"""The tables of `gen stats`, computed from records alone (pure: no run folder)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

import pandas as pd

from gen.core.records import Record, Span
from gen.text.words import word_owners, word_spans


def _union_length(ranges: Iterable[tuple[int, int]]) -> int:
    total, reach = 0, 0
    for start, end in sorted(ranges):
        start = max(start, reach)
        if end > start:
            total += end - start
            reach = end
    return total


def label_table(records: Sequence[Record], outside: str) -> pd.DataFrame:
    """Share of characters and words per label; text outside every span counts as
    `outside` (the non-sensitive label, `other`), listed last."""
    chars: Counter[str] = Counter()
    words: Counter[str] = Counter()
    span_counts: Counter[str] = Counter()
    total_chars = total_words = 0
    for record in records:
        by_label: dict[str, list[Span]] = {}
        for span in record.spans:
            by_label.setdefault(span.label, []).append(span)
            span_counts[span.label] += 1
        for label, spans in by_label.items():
            chars[label] += _union_length((s.start, s.end) for s in spans)
        covered = _union_length((s.start, s.end) for s in record.spans)
        chars[outside] += len(record.text) - covered
        total_chars += len(record.text)
        owners = word_owners(word_spans(record.text), record.spans)
        words.update(outside if o is None else o.label for o in owners)
        total_words += len(owners)
    rows = [
        {
            "label": label,
            "spans": span_counts[label],
            "chars": chars[label],
            "char_share": round(chars[label] / total_chars, 4) if total_chars else 0.0,
            "words": words[label],
            "word_share": round(words[label] / total_words, 4) if total_words else 0.0,
        }
        for label in sorted(chars, key=lambda name: (name == outside, name))
    ]
    return pd.DataFrame(
        rows, columns=["label", "spans", "chars", "char_share", "words", "word_share"]
    )


def document_table(records: Sequence[Record], keys: list[str]) -> pd.DataFrame:
    """Documents and average length (characters) per combination of `keys`."""
    frame = pd.DataFrame(
        [{**{k: getattr(r, k) for k in keys}, "chars": len(r.text)} for r in records],
        columns=[*keys, "chars"],
    )
    table = frame.groupby(keys, sort=True).agg(
        documents=("chars", "size"), avg_chars=("chars", "mean")
    )
    return table.round({"avg_chars": 1}).reset_index()


def split_table(records: Sequence[Record], split_ids: dict[str, list[str]]) -> pd.DataFrame:
    """Documents and average length per split, category and document type."""
    by_id = {r.id: r for r in records}
    members = {split: [by_id[i] for i in ids if i in by_id] for split, ids in split_ids.items()}
    tables = [
        document_table(found, ["category", "doc_type"]).assign(split=split)
        for split, found in members.items()
        if found
    ]
    columns = ["split", "category", "doc_type", "documents", "avg_chars"]
    return pd.concat(tables)[columns] if tables else pd.DataFrame(columns=columns)


def markdown_table(frame: pd.DataFrame) -> str:
    """A GitHub-flavoured Markdown table (pandas needs `tabulate` for this; one table is enough)."""
    header = "| " + " | ".join(map(str, frame.columns)) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    body = ["| " + " | ".join(str(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join([header, rule, *body])
