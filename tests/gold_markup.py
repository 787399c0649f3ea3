"""Convert the readable gold source (bench/gold/gold.marked.txt) into bench/gold/gold.jsonl.

The source holds one document per `@@@ key=value ...` header; a labeled passage is
written `[[passage|LABEL]]`. Offsets are computed here, never by hand, and the test
suite checks that the committed JSONL is exactly what this converter produces.

    python tests/gold_markup.py     # rewrite bench/gold/gold.jsonl from the source
"""

from __future__ import annotations

import json
import re
import shlex
import sys
from pathlib import Path

GOLD_DIR = Path(__file__).resolve().parents[1] / "bench" / "gold"
SOURCE = GOLD_DIR / "gold.marked.txt"
GOLD = GOLD_DIR / "gold.jsonl"

HEADER = "@@@ "
HEADER_KEYS = ("id", "language", "category", "doc_type")
MARK = re.compile(r"\[\[(?P<passage>[^\[\]|\n]+)\|(?P<label>[A-Za-z_]+)\]\]")


class MarkupError(ValueError):
    """The source is malformed; the message names the document."""


def parse_document(header: str, body: str) -> dict:
    """One gold record from a header line and its marked-up body."""
    fields = dict(item.split("=", 1) for item in shlex.split(header))
    if sorted(fields) != sorted(HEADER_KEYS):
        raise MarkupError(f"header {header!r}: expected the keys {', '.join(HEADER_KEYS)}")
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
    text = "".join(text_parts)
    if "[[" in text or "]]" in text:
        raise MarkupError(f"document {fields['id']}: unbalanced [[ ]] markup")
    return {**{key: fields[key] for key in HEADER_KEYS}, "text": text, "spans": spans}


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


def main() -> None:
    records = parse_source(SOURCE.read_text(encoding="utf-8"))
    GOLD.write_text(to_jsonl(records), encoding="utf-8")
    print(f"{GOLD}: {len(records)} documents", file=sys.stderr)


if __name__ == "__main__":
    main()
