"""How many stored documents keep an unfilled slot once gen.generate.slots has run.

Applies the slot filler (no model) to the texts of stored runs with their persona and the
pack's slot words, and prints per language the documents flagged `unfilled_slot` before
(as stored) and after, the slots filled by field, and the slots left.

    PYTHONPATH=$PWD .venv/bin/python bench/slot_fill.py \
        bench/runs/qwen2.5-coder-1.5b-planned-{en,it,de,es,fr}.parquet
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq

from gen.core.packs import load_language_pack
from gen.core.records import Span, check_spans
from gen.generate.postprocess import template_slots
from gen.generate.slots import fill_slots
from gen.generate.summary import UNFILLED_SLOT


def measure(path: Path) -> None:
    rows = pq.read_table(path).to_pylist()
    language = rows[0]["language"]
    words = load_language_pack(language).generation.slots
    before = after = 0
    fields: Counter[str] = Counter()
    left: Counter[str] = Counter()
    for row in rows:
        spans = [Span(s["start"], s["end"], s["label"], s["source"]) for s in row["spans"] or []]
        filled = fill_slots(row["text"], row["persona"], words, spans)
        check_spans(filled.text, filled.spans, record_id=row["id"])
        before += UNFILLED_SLOT in (row["flags"] or [])
        remaining = template_slots(filled.text)
        after += bool(remaining)
        fields.update(slot["field"] for slot in filled.filled)
        left.update(remaining)
    share = f"{after / len(rows):.0%}"
    print(f"{path.name} ({language}): {len(rows)} documents; flagged {UNFILLED_SLOT}")
    print(f"  before {before}, after {after} ({share}); filled: {json.dumps(dict(fields))}")
    print(f"  left: {json.dumps(dict(left.most_common()), ensure_ascii=False)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path, help="parquet files of stored documents")
    for path in parser.parse_args().runs:
        measure(path)


if __name__ == "__main__":
    main()
