"""What training and prediction cost on this machine: seconds to train per 1,000 records
(per epoch, so runs of any length compare) and prediction documents/s.

    .venv/bin/python bench/bench_train.py [--run DIR] [--queries 1000] [--component ner]
        [--trainer spacy|transformers --base-model DIR] [--epochs 5] [--gold FILE]

Without --run it makes a scratch run of Faker queries (`--queries`, seed 0). With --run it
trains on a copy of that run's dataset (the run's own export and models stay as they are).
Prediction is timed on the test split and on long documents made by joining 20 test
records each (several windows per document).
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path

from gen.core.packs import default_prompts_dir
from gen.core.store import RecordTable
from gen.dataset.assemble import build_dataset
from gen.dataset.options import BuildOptions
from gen.predict.detector import Detector
from gen.predict.loader import load_detector
from gen.train import TrainSettings
from gen.train.curve import summarize
from gen.train.run import train_detector
from scraping.queries.generate import generate_queries


def documents_per_second(detector: Detector, texts: list[str]) -> float:
    started = time.perf_counter()
    detector.predict(texts)
    return len(texts) / (time.perf_counter() - started)


def scratch_run(folder: Path, source: Path | None, queries: int) -> Path:
    if source is not None:
        shutil.copytree(source / "dataset", folder / "dataset")
    else:
        prompts = default_prompts_dir()
        generate_queries(folder, locale="en_US", n=queries, seed=0, prompts_dir=prompts)
        build_dataset(folder, BuildOptions())
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", type=Path, default=None)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--trainer", default="spacy")
    parser.add_argument("--component", default="ner")
    parser.add_argument("--base-model", default=None)
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--gold", type=Path, default=None)
    args = parser.parse_args()
    settings = TrainSettings(
        trainer=args.trainer,
        component=args.component,
        base_model=args.base_model,
        epochs=args.epochs,
    )
    with tempfile.TemporaryDirectory(prefix="gen-bench-train-") as scratch:
        run = scratch_run(Path(scratch) / "run", args.run, args.queries)
        report = train_detector(run, settings, gold=args.gold)
        data = json.loads((report.folder / "data.json").read_text())
        records = data["train_records"]
        per_epoch = report.train_seconds / args.epochs
        print(f"{args.trainer} {args.component}: {records} train records, {args.epochs} epochs")
        cpu = report.info["train_cpu_seconds"]
        print(f"training: {report.train_seconds:.1f} s ({cpu:.1f} s CPU)")
        print(f"seconds per 1,000 records per epoch: {1000 * per_epoch / records:.2f}")
        print(f"CPU seconds per 1,000 records per epoch: {1000 * cpu / args.epochs / records:.2f}")
        detector = load_detector(report.folder)
        test_ids = set(data["splits"]["test"])
        texts = [r.text for r in RecordTable(run / "dataset").read() if r.id in test_ids]
        long = ["\n\n".join(texts[i : i + 20]) for i in range(0, len(texts), 20)]
        for name, batch in ((f"{len(texts)} test records", texts), (f"{len(long)} long", long)):
            print(f"prediction, {name}: {documents_per_second(detector, batch):.2f} documents/s")
        for scored in report.scored:
            metrics = ", ".join(f"{k} {v:.3f}" for k, v in summarize(scored.evaluation).items())
            print(f"{scored.name} ({scored.documents} documents): {metrics}")


if __name__ == "__main__":
    main()
