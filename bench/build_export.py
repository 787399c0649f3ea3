"""Time `gen build` and each export format on a fictional run of a few thousand records.

Run by hand: `.venv/bin/python bench/build_export.py [documents]`; prints seconds and rates.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from build_fixtures import make_run

from gen.dataset.assemble import BuildOptions, build_dataset
from gen.dataset.splits import parse_ratios
from gen.export.run import ExportOptions, export_run


def main(documents: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        run = Path(folder)
        make_run(run, documents=documents, pages=documents // 20, queries=documents // 10)
        started = time.perf_counter()
        report = build_dataset(run, BuildOptions(scheme="categories+pii"))
        seconds = time.perf_counter() - started
        print(
            f"build: {report.records} records in {seconds:.2f}s "
            f"({report.records / seconds:.0f} records/s)"
        )
        for name in ("parquet", "jsonl", "conll", "sentences", "sentences-context", "spacy"):
            started = time.perf_counter()
            export_run(run, name, parse_ratios("0.8,0.1,0.1"), 0, ExportOptions())
            seconds = time.perf_counter() - started
            print(f"export {name}: {seconds:.2f}s ({report.records / seconds:.0f} records/s)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
