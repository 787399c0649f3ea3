"""`parquet` and `jsonl`: the records as they are, one file per split.

Both load with `datasets.load_dataset("parquet"|"json", data_files={...})`; the
Parquet files carry the typed record schema.
"""

from __future__ import annotations

import json
from pathlib import Path

from gen.core.records import Record
from gen.core.store import write_atomic, write_records


def export_parquet(splits: dict[str, list[Record]], folder: Path, options: object) -> dict:
    for name, records in splits.items():
        write_records(folder / f"{name}.parquet", records)
    return {"files": {name: f"{name}.parquet" for name in splits}}


def export_jsonl(splits: dict[str, list[Record]], folder: Path, options: object) -> dict:
    for name, records in splits.items():
        lines = "".join(json.dumps(r.to_row(), ensure_ascii=False) + "\n" for r in records)
        write_atomic(folder / f"{name}.jsonl", lines.encode())
    return {"files": {name: f"{name}.jsonl" for name in splits}}
