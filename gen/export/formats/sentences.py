"""`sentences` (thesis SC) and `sentences-context` (thesis SCC): one labeled text per row.

`sentences`: each sentence with the label covering most of it (sentences a span
runs across are one row, so no span is cut). `sentences-context`: fixed-width
word chunks, each followed by a separator and the words around it (chunk width,
context width and stride in words, as in the thesis's Table 3.7; here the
stride is the step between chunk starts, so 7/15/6 overlap by one word), so a
classifier sees why a harmless-looking chunk is sensitive.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from gen.core.errors import UsageError
from gen.core.files import write_table_atomic
from gen.core.records import Record
from gen.export.base import ExportFormat, ExportJob, FormatSettings, option
from gen.text.words import word_spans

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


@dataclass(frozen=True)
class ChunkSettings(FormatSettings):
    stride: int = option(6, "words between chunk starts", minimum=1)
    chunk_width: int = option(7, "words per chunk", minimum=1)
    context_width: int = option(15, "words of context around a chunk", minimum=1)
    separator: str = option("[SEP]", "text between chunk and context")

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.context_width < self.chunk_width:
            raise UsageError("--context-width must be at least --chunk-width")


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


def sentence_rows(job: ExportJob, record: Record) -> Iterator[Row]:
    for start, end in job.sentences(record):
        yield _one_line(record.text[start:end]), dominant_label(record, start, end, job.outside)


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


def chunk_rows(job: ExportJob, record: Record) -> Iterator[Row]:
    settings: ChunkSettings = job.settings
    words = word_spans(record.text)
    for start, end in window_bounds(len(words), settings.chunk_width, settings.stride):
        first, last = context_bounds(start, end, len(words), settings.context_width)
        chunk = record.text[words[start][0] : words[end - 1][1]]
        context = record.text[words[first][0] : words[last - 1][1]]
        text = f"{_one_line(chunk)} {settings.separator} {_one_line(context)}"
        yield text, dominant_label(record, words[start][0], words[end - 1][1], job.outside)


def _write_rows(job: ExportJob, rows_of: Callable[[ExportJob, Record], Iterator[Row]]) -> dict:
    counts = {}
    for name in job.splits:
        rows = [
            {
                "id": f"{record.id}#{index}",
                "record_id": record.id,
                "text": text,
                "label": label,
                "category": record.category,
                "doc_type": record.doc_type,
            }
            for record in job.each(name)
            for index, (text, label) in enumerate(rows_of(job, record))
        ]
        write_table_atomic(
            job.folder / f"{name}.parquet", pa.Table.from_pylist(rows, schema=ROW_SCHEMA)
        )
        counts[name] = len(rows)
    labels = [job.outside, *job.label_names]
    return {"files": {n: f"{n}.parquet" for n in job.splits}, "labels": labels, "rows": counts}


def check_rows(job: ExportJob, details: dict[str, Any]) -> list[str]:
    """Each file has the rows counted, every text non-empty, every label a known one."""
    problems = []
    known = set(details["labels"])
    for name, file in details["files"].items():
        rows = pq.read_table(job.folder / file, columns=["text", "label"]).to_pylist()
        if len(rows) != details["rows"][name]:
            problems.append(f"{file}: {len(rows)} rows read back, {details['rows'][name]} written")
        problems += [
            f"{file}: row {index} has no text"
            for index, row in enumerate(rows)
            if not row["text"].strip()
        ]
        unknown = sorted({row["label"] for row in rows} - known)
        problems += [f"{file}: unknown label {label!r}" for label in unknown]
    return problems


def write_sentences(job: ExportJob) -> dict[str, Any]:
    return _write_rows(job, sentence_rows)


def write_sentences_context(job: ExportJob) -> dict[str, Any]:
    return _write_rows(job, chunk_rows)


SENTENCES = ExportFormat(
    name="sentences",
    write=write_sentences,
    check=check_rows,
    usage='load_dataset("parquet", data_files=...); columns text, label',
)
SENTENCES_CONTEXT = ExportFormat(
    name="sentences-context",
    settings=ChunkSettings,
    write=write_sentences_context,
    check=check_rows,
    usage='load_dataset("parquet", data_files=...); text = chunk [SEP] context',
)
