"""`conll`: one `word<TAB>tag` per line, a blank line after each sentence, and a
`-DOCSTART-<TAB>O<TAB>id="..."<TAB>O` line (then a blank line) before each record.

Sentences come from the project's sentence splitter, joined where a span runs
across a boundary; tags are computed per sentence, so in BIO every sentence
starts afresh (an entity never begins with `I-`). Every word of a document
belongs to exactly one sentence, so no tag is lost between sentences.

The document lines follow the CoNLL-2003 convention (the token `-DOCSTART-`, the tag
`O`) and carry the record's id (`id=` and the id as a JSON string, so that any id
survives) between two `O` columns: every line's second column and its last column are
its tag, so a reader that takes the tag from the second column (Flair's `{0: "text", 1:
"ner"}`, with `document_separator_token="-DOCSTART-"`) and one that takes it from the
last column (spaCy's converter, the usual CoNLL-2003 and seqeval scripts) both read `O`
there, and readers that skip lines starting with `-DOCSTART-` skip them. `gen import`
starts a record of that id at each.
"""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass
from typing import Any

from gen.core.files import write_atomic
from gen.core.records import Record
from gen.export.base import ExportFormat, ExportJob, FormatSettings, option
from gen.export.checks import headless_inside_tags, unknown_tags
from gen.text.words import OUTSIDE, TAG_SCHEMES, tag_names, word_spans, word_tags


@dataclass(frozen=True)
class TaggingSettings(FormatSettings):
    scheme: str = option("io", "word tag scheme, IO (as in the thesis) or BIO", choices=TAG_SCHEMES)


def sentence_words(job: ExportJob, record: Record) -> list[list[tuple[int, int]]]:
    """The words of `record`, grouped by sentence (a word belongs to the sentence it starts in)."""
    words = word_spans(record.text)
    starts = [start for start, _ in job.sentences(record, words)] or [0]
    groups: list[list[tuple[int, int]]] = [[] for _ in starts]
    for word in words:
        groups[max(bisect.bisect_right(starts, word[0]) - 1, 0)].append(word)
    return [group for group in groups if group]


#: What starts the line that starts each record.
DOCSTART = f"-DOCSTART-\t{OUTSIDE}"
_ID = re.compile(r'\sid=("(?:[^"\\]|\\.)*")')


def docstart_line(record_id: str) -> str:
    """The document line of a record: `-DOCSTART-<TAB>O<TAB>id="..."<TAB>O`."""
    return f"{DOCSTART}\tid={json.dumps(record_id, ensure_ascii=False)}\t{OUTSIDE}"


def docstart_id(line: str) -> str | None:
    """The record id a `-DOCSTART-` line carries, or None (a line without one, or with one
    that is no JSON string)."""
    found = _ID.search(line)
    if found is None:
        return None
    try:
        record_id = json.loads(found.group(1))
    except json.JSONDecodeError:
        return None
    return record_id if isinstance(record_id, str) and record_id.strip() else None


def conll_lines(job: ExportJob, record: Record) -> list[str]:
    lines: list[str] = [docstart_line(record.id), ""]
    for sentence in sentence_words(job, record):
        tags = word_tags(sentence, record.spans, job.settings.scheme)
        lines.extend(
            f"{record.text[start:end]}\t{tag}"
            for (start, end), tag in zip(sentence, tags, strict=True)
        )
        lines.append("")
    return lines


Sentence = list[tuple[str, str]]


def read_conll_documents(text: str) -> list[list[Sentence]]:
    """Documents of sentences of (word, tag) pairs; the inverse of the export, for checks
    and tests: one per `-DOCSTART-` line (a record without words too), and one more for
    words before the first such line."""
    documents: list[list[Sentence]] = [[[]]]
    for line in text.split("\n"):
        if line == DOCSTART or line.startswith(f"{DOCSTART}\t"):
            documents.append([[]])
        elif not line:
            if documents[-1][-1]:
                documents[-1].append([])
        else:
            word, tag = line.split("\t")
            documents[-1][-1].append((word, tag))
    first, *rest = documents
    return [[s for s in sentences if s] for sentences in ([first] if any(first) else []) + rest]


def read_conll(text: str) -> list[Sentence]:
    """The sentences of every document, in order."""
    return [sentence for document in read_conll_documents(text) for sentence in document]


def write_conll(job: ExportJob) -> dict[str, Any]:
    for name in job.splits:
        lines = [line for record in job.each(name) for line in conll_lines(job, record)]
        write_atomic(job.folder / f"{name}.conll", "\n".join(lines).encode() + b"\n")
    return {
        "files": {name: f"{name}.conll" for name in job.splits},
        "tags": tag_names(job.label_names, job.settings.scheme),
    }


def check_conll(job: ExportJob, details: dict[str, Any]) -> list[str]:
    """Every line a word and a known tag, every word of every record there, BIO well formed."""
    problems = []
    known = set(details["tags"])
    for name, file in details["files"].items():
        text = (job.folder / file).read_text(encoding="utf-8")
        try:
            documents = read_conll_documents(text)
        except ValueError:
            problems.append(f"{file}: a line is not `word<TAB>tag`")
            continue
        if len(documents) != len(job.splits[name]):
            problems.append(
                f"{file}: {len(documents)} documents written, {len(job.splits[name])} records"
            )
        written = [docstart_id(line) for line in text.split("\n") if line.startswith(DOCSTART)]
        if written and written != [record.id for record in job.splits[name]]:
            problems.append(f"{file}: the ids of the -DOCSTART- lines are not the records' ids")
        sentences = [sentence for document in documents for sentence in document]
        words = sum(len(sentence) for sentence in sentences)
        expected = sum(len(word_spans(record.text)) for record in job.splits[name])
        if words != expected:
            problems.append(f"{file}: {words} words written, {expected} in the records")
        tags = [tag for sentence in sentences for _, tag in sentence]
        problems += [f"{file}: unknown tag {tag!r}" for tag in sorted(unknown_tags(tags, known))]
        if job.settings.scheme == "bio":
            for number, sentence in enumerate(sentences, 1):
                for index in headless_inside_tags([tag for _, tag in sentence]):
                    problems.append(
                        f"{file}: sentence {number} word {index + 1} "
                        f"{sentence[index][0]!r} is tagged {sentence[index][1]} without a B-"
                    )
    return problems


CONLL = ExportFormat(
    name="conll",
    settings=TaggingSettings,
    write=write_conll,
    check=check_conll,
    usage="one `word<TAB>tag` per line, blank line between sentences, `-DOCSTART-` line with "
    "the record's id before each document; tags in manifest.json",
)
