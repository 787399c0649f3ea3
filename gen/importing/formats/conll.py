"""CoNLL: `token<TAB>tag` (or space-separated, tag in the last column) per line, a
blank line between sentences, `-DOCSTART-` lines between documents (without them,
each file is one document). A document line that carries an id (`id="..."`, as `gen
export --format conll` writes it) names its record; the others are `<file>-<n>`.

A CoNLL file does not keep the original spacing, so the text is rebuilt: tokens
joined by one space, sentences by a newline. Spans are then exact on that text:
IO runs of one label, or BIO (B- starts a span) become spans over whole tokens,
through the same `spans_from_tags` the exports use, without the invisible characters at
their edges (a token that starts with a zero-width space), counted as the tools' readers
count them (`gen.importing.annotated.gold_span`).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import ClassVar

from gen.core.encodings import read_utf8
from gen.core.record_files import BOM
from gen.core.records import Record
from gen.export.formats.conll import docstart_id
from gen.importing import ImportFileError, RecordDefaults
from gen.importing.annotated import NOTES, gold_span
from gen.text.words import OUTSIDE, spans_from_tags

DOCSTART = "-DOCSTART-"

Token = tuple[str, str, int]  # token, tag, line number
#: A document: the id its `-DOCSTART-` line names (None: none), and its sentences.
Document = tuple[str | None, list[list[Token]]]


class ConllReader:
    name: ClassVar[str] = "conll"
    suffixes: ClassVar[tuple[str, ...]] = (".conll", ".conllu", ".iob", ".bio", ".tsv")
    labeled: ClassVar[bool] = True

    def sniff(self, path: Path) -> bool:
        return False

    def read(self, path: Path, defaults: RecordDefaults) -> list[Record]:
        documents = self._documents(path)
        records = []
        for index, (record_id, sentences) in enumerate(documents):
            text, words, tags = _rebuild(sentences)
            notes: Counter[str] = Counter()
            spans = [
                gold_span(text, span.start, span.end, span.label, notes)
                for span in spans_from_tags(words, tags, source="gold")
            ]
            records.append(
                Record(
                    id=record_id or f"{defaults.record_id(path)}-{index}",
                    text=text,
                    category=defaults.category,
                    doc_type=defaults.doc_type,
                    language=defaults.language,
                    source="gold",
                    spans=spans,
                    meta={"imported_from": path.name, "line": sentences[0][0][2]}
                    | ({NOTES: dict(notes)} if notes else {}),
                )
            )
        if not records:
            raise ImportFileError(path, "no tokens found")
        return records

    def _documents(self, path: Path) -> list[Document]:
        lines = read_utf8(path, "a CoNLL file").removeprefix(BOM).splitlines()
        documents: list[Document] = [(None, [[]])]
        for number, line in enumerate(lines, 1):
            if line.startswith(DOCSTART):
                documents.append((docstart_id(line), [[]]))
                continue
            sentences = documents[-1][1]
            if not line.strip():
                if sentences[-1]:
                    sentences.append([])
                continue
            parts = line.split("\t") if "\t" in line else line.split()
            if len(parts) < 2 or not parts[0].strip():
                raise ImportFileError(path, f"expected a token and a tag, got {line!r}", number)
            token, tag = parts[0].strip(), parts[-1].strip()
            if any(c.isspace() for c in token):
                raise ImportFileError(path, f"token {token!r} contains whitespace", number)
            _check_tag(path, tag, number)
            sentences[-1].append((token, tag, number))
        return [
            (record_id, [s for s in sentences if s])
            for record_id, sentences in documents
            if any(s for s in sentences)
        ]


def _check_tag(path: Path, tag: str, number: int) -> None:
    if tag == OUTSIDE:
        return
    prefix, dash, label = tag.partition("-")
    if not dash or prefix not in ("B", "I") or not label:
        raise ImportFileError(path, f"tag {tag!r}: expected O, I-LABEL or B-LABEL", number)


def _rebuild(sentences: list[list[Token]]) -> tuple[str, list[tuple[int, int]], list[str]]:
    """The text (tokens joined by spaces, sentences by newlines), token offsets and tags."""
    parts: list[str] = []
    words: list[tuple[int, int]] = []
    tags: list[str] = []
    position = 0
    for s_index, sentence in enumerate(sentences):
        for t_index, (token, tag, _) in enumerate(sentence):
            if t_index or s_index:
                separator = " " if t_index else "\n"
                parts.append(separator)
                position += 1
            words.append((position, position + len(token)))
            tags.append(tag)
            parts.append(token)
            position += len(token)
    return "".join(parts), words, tags
