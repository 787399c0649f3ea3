"""`sentences` (thesis SC) and `sentences-context` (thesis SCC): one labeled text per row.

`sentences`: each sentence with the label covering most of it. `sentences-context`:
fixed-width word chunks, each followed by a separator and the words around it
(chunk width, context width and stride in words, as in the thesis's Table 3.7;
here the stride is the step between chunk starts, so 7/15/6 overlap by one word),
so a classifier sees why a harmless-looking chunk is sensitive.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pyarrow as pa

from gen.core.records import Record
from gen.core.store import write_table_atomic
from gen.export.run import ExportOptions, label_names
from gen.text.sentences import split_sentences
from gen.text.words import word_spans

DEFAULT_WORD_STRIDE = 6

ROW_SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("record_id", pa.string()),
        ("text", pa.string()),
        ("label", pa.string()),
        ("category", pa.string()),
        ("doc_type", pa.string()),
    ]
)

Row = tuple[str, str]  # (text, label)


def dominant_label(record: Record, start: int, end: int, outside: str) -> str:
    """The label of the spans covering most of `text[start:end]`; `outside` (`other`) only
    if no span touches it, so a chunk holding one sensitive phrase is sensitive (thesis
    Table 3.7)."""
    covered: Counter[str] = Counter()
    for span in record.spans:
        if shared := span.overlap(start, end):
            covered[span.label] += shared
    return min(covered, key=lambda label: (-covered[label], label)) if covered else outside


def _one_line(text: str) -> str:
    return " ".join(text.split())


def sentence_rows(record: Record, options: ExportOptions) -> Iterator[Row]:
    for start, end in split_sentences(record.text, record.language):
        yield (
            _one_line(record.text[start:end]),
            dominant_label(record, start, end, options.negative_labels[0]),
        )


def window_bounds(count: int, width: int, step: int) -> Iterator[tuple[int, int]]:
    """[start, end) ranges of `width` words every `step` words; the last reaches the end."""
    start = 0
    while start < count:
        yield start, min(start + width, count)
        if start + width >= count:
            break
        start += step


def context_bounds(start: int, end: int, count: int, width: int) -> tuple[int, int]:
    """`width` words centred on [start, end), shifted inwards at the document's edges."""
    first = max(start - (width - (end - start)) // 2, 0)
    last = min(first + width, count)
    return max(last - width, 0), last


def chunk_rows(record: Record, options: ExportOptions) -> Iterator[Row]:
    words = word_spans(record.text)
    step = DEFAULT_WORD_STRIDE if options.stride is None else max(options.stride, 1)
    for start, end in window_bounds(len(words), options.chunk_width, step):
        first, last = context_bounds(start, end, len(words), options.context_width)
        chunk = record.text[words[start][0] : words[end - 1][1]]
        context = record.text[words[first][0] : words[last - 1][1]]
        text = f"{_one_line(chunk)} {options.separator} {_one_line(context)}"
        outside = options.negative_labels[0]
        yield text, dominant_label(record, words[start][0], words[end - 1][1], outside)


def _export_rows(
    splits: dict[str, list[Record]],
    folder: Path,
    options: ExportOptions,
    rows_of: Callable[[Record, ExportOptions], Iterator[Row]],
) -> dict:
    counts = {}
    for name, records in splits.items():
        rows = [
            {
                "id": f"{record.id}#{index}",
                "record_id": record.id,
                "text": text,
                "label": label,
                "category": record.category,
                "doc_type": record.doc_type,
            }
            for record in records
            for index, (text, label) in enumerate(rows_of(record, options))
        ]
        write_table_atomic(
            folder / f"{name}.parquet", pa.Table.from_pylist(rows, schema=ROW_SCHEMA)
        )
        counts[name] = len(rows)
    labels = [options.negative_labels[0], *label_names([r for rs in splits.values() for r in rs])]
    return {"files": {n: f"{n}.parquet" for n in splits}, "labels": labels, "rows": counts}


def export_sentences(splits: dict[str, list[Record]], folder: Path, options: ExportOptions) -> dict:
    return _export_rows(splits, folder, options, sentence_rows)


def export_sentences_context(
    splits: dict[str, list[Record]], folder: Path, options: ExportOptions
) -> dict:
    return _export_rows(splits, folder, options, chunk_rows)
