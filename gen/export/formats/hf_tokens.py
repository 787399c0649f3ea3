"""`hf-tokens`: rows already tokenized for a Hugging Face token-classification trainer.

Documents are cut into windows of `length` tokens overlapping by `stride`
(thesis best: 100 and 20). The words are those of gen.text.words, not the
tokenizer's own word ids, so a trainer learns the tags every other export shows
(an NFD accent or an emoji's second byte is no word of its own, a Chinese
character is one). Each word's tag goes on its first sub-token in the window
(`word_starts`); other sub-tokens, tokens that start no word (a lone `▁`) and
special tokens get -100, which the loss ignores. In BIO each window starts
afresh: a window that begins inside a span begins it with `B-`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from gen.core.errors import UsageError
from gen.core.files import write_atomic, write_table_atomic
from gen.core.records import Record, Span
from gen.export.base import ExportFormat, ExportJob, option, require
from gen.export.checks import headless_inside_tags
from gen.export.formats.conll import TaggingSettings
from gen.text.words import tag_names, word_spans, word_starts, word_tags

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
        None,
        "a local tokenizer folder or tokenizer.json",
        must_exist=True,
        unset="none; hf-tokens needs one",
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


def cut_into_windows(tokenizer: Any, length: int, stride: int) -> None:
    """Make `tokenizer` encode a text as windows of `length` tokens (special tokens
    included) overlapping by `stride`: the first window, then its `overflowing` ones."""
    special = tokenizer.num_special_tokens_to_add(False)
    if stride >= length - special:
        raise UsageError(
            f"--stride {stride} must be smaller than --length {length} minus "
            f"the {special} special tokens the tokenizer adds"
        )
    tokenizer.enable_truncation(max_length=length, stride=stride)
    tokenizer.no_padding()


def encode_windows(tokenizer: Any, text: str) -> list[Any]:
    """The windows of `text` (a tokenizer set up by `cut_into_windows`), in order."""
    first = tokenizer.encode(text)
    return [first, *first.overflowing]


def window_word_starts(encoding: Any, words: Sequence[tuple[int, int]]) -> list[int | None]:
    """For each token of one window, the index of the word (of `words`) it is the first
    sub-token of, else None (special tokens, a word's other pieces)."""
    offsets = [
        (0, 0) if special else offset  # an empty token starts no word
        for offset, special in zip(encoding.offsets, encoding.special_tokens_mask, strict=True)
    ]
    return word_starts(words, offsets)


def window_labels(
    encoding: Any,
    words: list[tuple[int, int]],
    spans: list[Span],
    tag_ids: dict[str, int],
    scheme: str,
) -> list[int]:
    """Label ids of one window of a text whose words are `words`: the tag of each word
    (of the words this window reaches) on its first sub-token, -100 everywhere else."""
    starts = window_word_starts(encoding, words)
    started = [word for word in starts if word is not None]
    tags = word_tags([words[word] for word in started], spans, scheme)
    tag_of = dict(zip(started, tags, strict=True))
    return [IGNORED if word is None else tag_ids[tag_of[word]] for word in starts]


def tokenized_rows(
    record: Record, tokenizer: Any, tag_ids: dict[str, int], scheme: str
) -> list[dict[str, Any]]:
    windows = encode_windows(tokenizer, record.text)
    words = word_spans(record.text)
    return [
        {
            "id": f"{record.id}#{index}",
            "record_id": record.id,
            "window": index,
            "category": record.category,
            "doc_type": record.doc_type,
            "input_ids": list(window.ids),
            "attention_mask": list(window.attention_mask),
            "labels": window_labels(window, words, record.spans, tag_ids, scheme),
        }
        for index, window in enumerate(windows)
    ]


def write_hf_tokens(job: ExportJob) -> dict[str, Any]:
    settings: TokenSettings = job.settings
    tokenizer = load_tokenizer(settings.tokenizer)
    cut_into_windows(tokenizer, settings.length, settings.stride)
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
