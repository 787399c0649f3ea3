"""`hf-tokens`: rows already tokenized for a Hugging Face token-classification trainer.

Documents are cut into windows of `length` tokens overlapping by `stride`
(thesis best: 100 and 20). Each word's label goes on its first sub-token;
other sub-tokens and special tokens get -100, which the loss ignores. In BIO
each window starts afresh: a window that begins inside a span begins it with `B-`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from gen.core.errors import UsageError
from gen.core.records import Record, Span
from gen.core.store import write_atomic, write_table_atomic
from gen.export.base import ExportFormat, ExportJob, option, require
from gen.export.checks import headless_inside_tags
from gen.export.formats.conll import TaggingSettings
from gen.text.words import OUTSIDE, tag_names

IGNORED = -100

ROW_SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("record_id", pa.string()),
        ("window", pa.int32()),
        ("category", pa.string()),
        ("doc_type", pa.string()),
        ("input_ids", pa.list_(pa.int32())),
        ("attention_mask", pa.list_(pa.int8())),
        ("labels", pa.list_(pa.int32())),
    ]
)


@dataclass(frozen=True)
class TokenSettings(TaggingSettings):
    tokenizer: Path | None = option(
        None, "a local tokenizer folder or tokenizer.json", must_exist=True
    )
    length: int = option(100, "window length in tokens", minimum=1)
    stride: int = option(20, "token overlap between windows", minimum=0)


def load_tokenizer(path: Path | None) -> Any:
    """A `tokenizers.Tokenizer` from a folder holding tokenizer.json, or from the file itself."""
    tokenizers = require("tokenizers")
    if path is None:
        raise UsageError("--format hf-tokens needs --tokenizer PATH (a folder or tokenizer.json)")
    file = Path(path) / "tokenizer.json" if Path(path).is_dir() else Path(path)
    if not file.is_file():
        raise UsageError(f"tokenizer {file} not found: expected a tokenizer.json file or folder")
    try:
        return tokenizers.Tokenizer.from_file(str(file))
    except Exception as exc:  # the Rust side raises bare Exceptions
        raise UsageError(f"cannot read tokenizer {file}: {exc}") from None


def _span_at(spans: list[Span], start: int, end: int) -> Span | None:
    return next((s for s in spans if s.overlap(start, end)), None)


def window_labels(
    encoding: Any, spans: list[Span], tag_ids: dict[str, int], scheme: str
) -> list[int]:
    """Label ids of one window: first sub-token of a word labeled, the rest -100."""
    labels: list[int] = []
    previous_word: int | None = None
    previous_span: Span | None = None
    for offsets, special, word in zip(
        encoding.offsets, encoding.special_tokens_mask, encoding.word_ids, strict=True
    ):
        if special or offsets[0] == offsets[1]:
            labels.append(IGNORED)
            continue
        if word is not None and word == previous_word:
            labels.append(IGNORED)
            continue
        previous_word = word
        span = _span_at(spans, *offsets)
        if span is None:
            tag = OUTSIDE
        elif scheme == "bio" and span is not previous_span:
            tag = f"B-{span.label}"
        else:
            tag = f"I-{span.label}"
        previous_span = span
        labels.append(tag_ids[tag])
    return labels


def tokenized_rows(
    record: Record, tokenizer: Any, tag_ids: dict[str, int], scheme: str
) -> list[dict[str, Any]]:
    first = tokenizer.encode(record.text)
    windows = [first, *first.overflowing]
    return [
        {
            "id": f"{record.id}#{index}",
            "record_id": record.id,
            "window": index,
            "category": record.category,
            "doc_type": record.doc_type,
            "input_ids": list(window.ids),
            "attention_mask": list(window.attention_mask),
            "labels": window_labels(window, record.spans, tag_ids, scheme),
        }
        for index, window in enumerate(windows)
    ]


def write_hf_tokens(job: ExportJob) -> dict[str, Any]:
    settings: TokenSettings = job.settings
    tokenizer = load_tokenizer(settings.tokenizer)
    special = tokenizer.num_special_tokens_to_add(False)
    if settings.stride >= settings.length - special:
        raise UsageError(
            f"--stride {settings.stride} must be smaller than --length {settings.length} minus "
            f"the {special} special tokens the tokenizer adds"
        )
    tokenizer.enable_truncation(max_length=settings.length, stride=settings.stride)
    tokenizer.no_padding()
    tags = tag_names(job.label_names, settings.scheme)
    tag_ids = {tag: index for index, tag in enumerate(tags)}
    windows = {}
    for name in job.splits:
        rows = [
            row
            for record in job.each(name)
            for row in tokenized_rows(record, tokenizer, tag_ids, settings.scheme)
        ]
        write_table_atomic(
            job.folder / f"{name}.parquet", pa.Table.from_pylist(rows, schema=ROW_SCHEMA)
        )
        windows[name] = len(rows)
    write_atomic(job.folder / "labels.txt", ("\n".join(tags) + "\n").encode())
    return {
        "files": {name: f"{name}.parquet" for name in job.splits},
        "tokenizer": str(settings.tokenizer),
        "length": settings.length,
        "stride": settings.stride,
        "id2label": dict(enumerate(tags)),
        "windows": windows,
    }


def check_hf_tokens(job: ExportJob, details: dict[str, Any]) -> list[str]:
    """Rows of equal-length columns, label ids known, windows of every record, BIO well formed."""
    id2label = details["id2label"]
    problems = []
    for name, file in details["files"].items():
        rows = pq.read_table(job.folder / file).to_pylist()
        if {row["record_id"] for row in rows} != {r.id for r in job.splits[name]}:
            problems.append(f"{file}: the windows do not cover exactly the split's records")
        for row in rows:
            labels = row["labels"]
            if not len(row["input_ids"]) == len(row["attention_mask"]) == len(labels):
                problems.append(f"{file}: row {row['id']}: columns of different lengths")
            unknown = [label for label in labels if label != IGNORED and label not in id2label]
            if unknown:
                problems.append(f"{file}: row {row['id']}: unknown label id {unknown[0]}")
                continue
            tags = [id2label[label] for label in labels if label != IGNORED]
            if job.settings.scheme == "bio":
                problems += [
                    f"{file}: row {row['id']} labeled token {index + 1} "
                    f"is {tags[index]} without a B-"
                    for index in headless_inside_tags(tags)
                ]
    return problems


HF_TOKENS = ExportFormat(
    name="hf-tokens",
    settings=TokenSettings,
    write=write_hf_tokens,
    check=check_hf_tokens,
    usage='load_dataset("parquet", data_files=...); label names in labels.txt',
)
