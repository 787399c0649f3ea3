"""`conll`: one `word<TAB>tag` per line, a blank line after each sentence.

Sentences come from the project's sentence splitter; every word of a document
belongs to exactly one sentence, so no tag is lost between sentences.
"""

from __future__ import annotations

import bisect
from pathlib import Path

from gen.core.records import Record
from gen.core.store import write_atomic
from gen.export.run import ExportOptions, label_names
from gen.text.sentences import split_sentences
from gen.text.words import tag_names, word_spans, word_tags


def sentence_words(record: Record) -> list[list[tuple[int, int]]]:
    """The words of `record`, grouped by sentence (a word belongs to the sentence it starts in)."""
    words = word_spans(record.text)
    starts = [start for start, _ in split_sentences(record.text, record.language)] or [0]
    groups: list[list[tuple[int, int]]] = [[] for _ in starts]
    for word in words:
        groups[max(bisect.bisect_right(starts, word[0]) - 1, 0)].append(word)
    return [group for group in groups if group]


def conll_lines(record: Record, scheme: str) -> list[str]:
    words = word_spans(record.text)
    tag_of = dict(zip(words, word_tags(words, record.spans, scheme), strict=True))
    lines: list[str] = []
    for sentence in sentence_words(record):
        lines.extend(f"{record.text[start:end]}\t{tag_of[(start, end)]}" for start, end in sentence)
        lines.append("")
    return lines


def read_conll(text: str) -> list[list[tuple[str, str]]]:
    """Sentences of (word, tag) pairs; the inverse of the export, for checks and tests."""
    sentences: list[list[tuple[str, str]]] = [[]]
    for line in text.splitlines():
        if not line:
            if sentences[-1]:
                sentences.append([])
            continue
        word, tag = line.split("\t")
        sentences[-1].append((word, tag))
    return [s for s in sentences if s]


def export_conll(splits: dict[str, list[Record]], folder: Path, options: ExportOptions) -> dict:
    for name, records in splits.items():
        lines = [line for record in records for line in conll_lines(record, options.scheme)]
        write_atomic(folder / f"{name}.conll", "\n".join(lines).encode() + b"\n")
    labels = label_names([r for records in splits.values() for r in records])
    return {
        "files": {name: f"{name}.conll" for name in splits},
        "tags": tag_names(labels, options.scheme),
    }
