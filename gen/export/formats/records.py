"""`parquet` and `jsonl`: the records as they are, one file per split.

Both load with `datasets.load_dataset("parquet"|"json", data_files={...})`; the
Parquet files carry the typed record schema. The check reads each file back and
expects the same records, in order, with valid spans.
"""

from __future__ import annotations

import json
from typing import Any

from gen.core.errors import UsageError
from gen.core.files import write_atomic
from gen.core.record_files import read_record_file
from gen.core.store import write_records
from gen.export.base import ExportFormat, ExportJob
from gen.export.checks import span_problems


def write_parquet(job: ExportJob) -> dict[str, Any]:
    for name, records in job.splits.items():
        write_records(job.folder / f"{name}.parquet", records)
    return {"files": {name: f"{name}.parquet" for name in job.splits}}


def write_jsonl(job: ExportJob) -> dict[str, Any]:
    for name, records in job.splits.items():
        lines = "".join(json.dumps(r.to_row(), ensure_ascii=False) + "\n" for r in records)
        write_atomic(job.folder / f"{name}.jsonl", lines.encode())
    return {"files": {name: f"{name}.jsonl" for name in job.splits}}


def check_records(job: ExportJob, details: dict[str, Any]) -> list[str]:
    problems = []
    for name, file in details["files"].items():
        try:
            back = read_record_file(job.folder / file, "exported file", allow_empty=True)
        except UsageError as exc:  # its own output: a malformed export, not bad user input
            problems.append(f"{file}: {exc}")
            continue
        if [r.id for r in back] != [r.id for r in job.splits[name]]:
            problems.append(f"{file}: the records read back are not the ones written")
        for record in back:
            problems += [
                f"{file}: {p}" for p in span_problems(record.id, record.text, record.spans)
            ]
    return problems


PARQUET = ExportFormat(
    name="parquet",
    write=write_parquet,
    check=check_records,
    usage='load_dataset("parquet", data_files={"train": "train.parquet", ...})',
)
JSONL = ExportFormat(
    name="jsonl",
    write=write_jsonl,
    check=check_records,
    usage='load_dataset("json", data_files={"train": "train.jsonl", ...})',
)
