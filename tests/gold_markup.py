"""Convert the readable gold sources (bench/gold/<set>.marked.txt) into their JSONL splits.

Each source holds one document per `@@@ key=value ...` header; a labeled passage is
written `[[passage|LABEL]]`, and may run over several lines (a postal address whose
street, city and country stand on lines of their own). Offsets are computed here, never
by hand, and the test suite checks that the committed JSONL files are exactly what this
converter produces. Every document names its split (`split=dev` or `split=test`), fixed
when the document is added: prompts, examples, units and thresholds are tuned on `dev`,
figures are reported on `test`. A source `<set>.marked.txt` becomes `<set>-dev.jsonl`
and `<set>-test.jsonl`. The blank lines around a document are not part of its text; a
text that ends in line breaks (a model's output may) gives their number in its header
(`trailing_newlines=2`). A document added to `dev` alone, outside the alternation of dev
and test within each (language, category), says so (`dev_only=yes`), so that `test`
never has to grow with it.

    python tests/gold_markup.py     # rewrite every bench/gold/<set>-<split>.jsonl
"""

from __future__ import annotations

import json
import re
import shlex
import sys
from pathlib import Path

GOLD_DIR = Path(__file__).resolve().parents[1] / "bench" / "gold"
SUFFIX = ".marked.txt"
SPLITS = ("dev", "test")

HEADER = "@@@ "
HEADER_KEYS = ("id", "language", "category", "doc_type", "split")
OPTIONAL_KEYS = ("trailing_newlines", "dev_only")
MARK = re.compile(r"\[\[(?P<passage>[^\[\]|]+)\|(?P<label>[A-Za-z_]+)\]\]")


class MarkupError(ValueError):
    """The source is malformed; the message names the document."""


def sources() -> list[Path]:
    """Every readable gold source, by name."""
    return sorted(GOLD_DIR.glob(f"*{SUFFIX}"))


def split_file(source: Path, split: str) -> Path:
    """The JSONL file of one split of a source: gold.marked.txt -> gold-test.jsonl."""
    return source.with_name(f"{source.name.removesuffix(SUFFIX)}-{split}.jsonl")


def parse_document(header: str, body: str) -> dict:
    """One gold record from a header line and its marked-up body."""
    fields = dict(item.split("=", 1) for item in shlex.split(header))
    if not set(HEADER_KEYS) <= fields.keys() <= set(HEADER_KEYS + OPTIONAL_KEYS):
        raise MarkupError(
            f"header {header!r}: expected the keys {', '.join(HEADER_KEYS)}"
            f" (and optionally {', '.join(OPTIONAL_KEYS)})"
        )
    if fields["split"] not in SPLITS:
        raise MarkupError(f"document {fields['id']}: split must be one of {', '.join(SPLITS)}")
    dev_only = "dev_only" in fields
    if dev_only and (fields["dev_only"] != "yes" or fields["split"] != "dev"):
        raise MarkupError(
            f"document {fields['id']}: dev_only=yes is the only value, with split=dev"
        )
    trailing = fields.get("trailing_newlines", "0")
    if not trailing.isdecimal():
        raise MarkupError(f"document {fields['id']}: trailing_newlines must be a whole number")
    text_parts: list[str] = []
    spans: list[dict] = []
    length = 0
    cursor = 0
    for match in MARK.finditer(body):
        before = body[cursor : match.start()]
        text_parts.append(before)
        length += len(before)
        passage = match.group("passage")
        spans.append({"start": length, "end": length + len(passage), "label": match["label"]})
        text_parts.append(passage)
        length += len(passage)
        cursor = match.end()
    text_parts.append(body[cursor:])
    text = "".join(text_parts) + "\n" * int(trailing)
    if "[[" in text or "]]" in text:
        raise MarkupError(f"document {fields['id']}: unbalanced [[ ]] markup")
    record = {key: fields[key] for key in HEADER_KEYS}
    return {**record, "dev_only": dev_only, "text": text, "spans": spans}


def parse_source(source: str) -> list[dict]:
    """All documents of the source, in order."""
    chunks = re.split(r"^@@@ ", source, flags=re.MULTILINE)[1:]
    records = []
    for chunk in chunks:
        header, _, body = chunk.partition("\n")
        records.append(parse_document(header, body.strip("\n")))
    return records


def to_jsonl(records: list[dict]) -> str:
    keys = ("id", "text", "language", "doc_type", "category", "spans")
    lines = [json.dumps({key: r[key] for key in keys}, ensure_ascii=False) for r in records]
    return "\n".join(lines) + "\n"


def converted(source: Path) -> dict[Path, str]:
    """The JSONL text of each split of `source`, by file."""
    records = parse_source(source.read_text(encoding="utf-8"))
    return {
        split_file(source, split): to_jsonl([r for r in records if r["split"] == split])
        for split in SPLITS
    }


def main() -> None:
    for source in sources():
        for path, text in converted(source).items():
            path.write_text(text, encoding="utf-8")
            print(f"{path}: {text.count(chr(10))} documents", file=sys.stderr)


if __name__ == "__main__":
    main()
