"""Time `gen build` and each export format on a fictional run of a few thousand records.

Run by hand: `.venv/bin/python bench/build_export.py [documents]`; prints wall and CPU seconds
(on a shared machine the CPU time is the steadier figure) and rates.
Each export's time includes reading its files back for the format's check.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from build_fixtures import make_run
from export_fixtures import trained_tokenizer

from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from gen.dataset.assemble import build_dataset
from gen.dataset.options import BuildOptions
from gen.export.run import ExportOptions, run

FORMATS = ("parquet", "jsonl", "conll", "sentences", "sentences-context", "spacy", "hf-tokens")


def main(documents: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        paths = RunPaths(Path(folder))
        make_run(paths.root, documents=documents, pages=documents // 20, queries=documents // 10)
        started = time.perf_counter()
        report = build_dataset(paths.root, BuildOptions(scheme="categories+pii"))
        seconds = time.perf_counter() - started
        print(
            f"build: {report.records} records in {seconds:.2f}s "
            f"({report.records / seconds:.0f} records/s)"
        )
        texts = [record.text for record in RecordTable(paths.dataset).read()]
        tokenizer = trained_tokenizer(paths.root / "tokenizer", texts)
        for name in FORMATS:
            settings = {"tokenizer": tokenizer} if name == "hf-tokens" else {}
            started, cpu = time.perf_counter(), time.process_time()
            run(paths, ExportOptions(name, settings=settings))
            seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
            print(
                f"export {name}: {seconds:.2f}s, {cpu:.2f}s CPU "
                f"({report.records / seconds:.0f} records/s)"
            )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
