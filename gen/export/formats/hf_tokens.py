"""`hf-tokens`: rows already tokenized for a Hugging Face token-classification trainer.

Documents are cut into windows of `length` tokens overlapping by `stride`
(thesis best: 100 and 20). Each word's label goes on its first sub-token;
other sub-tokens and special tokens get -100, which the loss ignores.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa

from gen.core.errors import UsageError
from gen.core.records import Record, Span
from gen.core.store import write_atomic, write_table_atomic
from gen.export.run import ExportOptions, label_names, require
from gen.text.words import OUTSIDE, tag_names

IGNORED = -100
DEFAULT_STRIDE = 20

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


def export_hf_tokens(splits: dict[str, list[Record]], folder: Path, options: ExportOptions) -> dict:
    tokenizer = load_tokenizer(options.tokenizer)
    stride = DEFAULT_STRIDE if options.stride is None else options.stride
    special = tokenizer.num_special_tokens_to_add(False)
    if stride >= options.length - special:
        raise UsageError(
            f"--stride {stride} must be smaller than --length {options.length} minus the "
            f"{special} special tokens the tokenizer adds"
        )
    tokenizer.enable_truncation(max_length=options.length, stride=stride)
    tokenizer.no_padding()
    tags = tag_names(label_names([r for rs in splits.values() for r in rs]), options.scheme)
    tag_ids = {tag: index for index, tag in enumerate(tags)}
    windows = {}
    for name, records in splits.items():
        rows = [
            row for r in records for row in tokenized_rows(r, tokenizer, tag_ids, options.scheme)
        ]
        write_table_atomic(
            folder / f"{name}.parquet", pa.Table.from_pylist(rows, schema=ROW_SCHEMA)
        )
        windows[name] = len(rows)
    write_atomic(folder / "labels.txt", ("\n".join(tags) + "\n").encode())
    return {
        "files": {name: f"{name}.parquet" for name in splits},
        "tokenizer": str(options.tokenizer),
        "length": options.length,
        "stride": stride,
        "id2label": dict(enumerate(tags)),
        "windows": windows,
    }
