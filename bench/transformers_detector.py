"""What training data is worth to the transformers detector: train on records, score gold files.

    .venv/bin/python bench/transformers_detector.py \
        --base-model "$(../shared/models/fetch-multilingual-e5-small)" \
        --train bench/gold/gold-dev.jsonl | @bench/runs/best.txt | RUN/queries [...] \
        [--sources planned] [--shapes narrative,layout,topic] [--refind] \
        [--dev FILE | --dev-share 0.15] \
        --score bench/gold/gold-dev.jsonl bench/gold/gold-test.jsonl \
        [--labels special|identifiers|all] [--sizes 50,100,200,400] [--seed 0,1,2] \
        [--epochs 20] [--patience 0] [--length 256] [--stride 64] [--batch-size 8] \
        [--learning-rate 5e-5] [--class-weights sqrt] [--train-embeddings] \
        [--no-snap-to-units] [--unit clause] [--unit-cover 0.5] [--threads N] [--device auto] \
        [--work DIR] [--out results.jsonl]

The same trainer as `gen train --trainer transformers` (gen.train.transformers_trainer),
called on records directly, on the footing of bench/encoder_detector.py: the best epoch,
the thresholds and the snapped labels are chosen on `--dev` (a file, or a held-out share of
the training records: no gold file is ever used for them); choose settings on gold `dev`,
report gold `test`. `--seed 0,1,2` trains once per seed (the hold-out and the training
seed) and prints each result, then the mean per size and scored file. Scores (as
bench/encoder_detector.score): token micro-F1 over `--labels` (the six special categories;
`identifiers`: every other label of the gold file; `all`), binary precision and recall,
F1 per label and per language.

`--train` takes record files, record folders (`RUN/labeled`, `RUN/queries`, a shapes run's
`documents`) and `@LIST` files of them (bench/runs/best.txt), as `gen import` reads them;
`FILE#layout,topic` keeps those shapes of that file (as bench/encoder_detector.py).
`--sizes` draws a learning curve: the first N training documents in the seed's order, so
the sizes are nested.

Cost, on every result line: training seconds, seconds per epoch per 100 training
documents (the dev reading included), seconds per document to predict the scored file, and
the peak resident memory of the process so far. With `--work DIR` each training keeps its
checkpoints in `DIR/seed-S-size-N` until it ends, so a killed run resumes where it stopped;
with `--out FILE` each result is appended to FILE as it comes, and a re-run with the same
settings skips the (seed, size) pairs FILE already holds.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import resource
import shutil
import tempfile
import time
from pathlib import Path

from encoder_detector import held_out, mean_of, read, score

from gen.core.packs import negative_labels
from gen.core.records import Record
from gen.importing.inputs import expand_lists
from gen.text.units import UNITS
from gen.train import CLASS_WEIGHTS, DEVICES, TrainSettings
from gen.train.data import TrainingData
from gen.train.transformers_trainer import TransformersTrainer
from gen.train.units import special_labels

LABEL_SETS = ("special", "identifiers", "all")


def scored_labels(which: str, gold: list[Record]) -> set[str]:
    special = set(special_labels())
    every = {s.label for r in gold for s in r.spans} - set(negative_labels())
    return {"special": special, "identifiers": every - special, "all": every}[which]


def fit_and_score(
    chosen: list[Record],
    dev: list[Record],
    golds: dict[str, list[Record]],
    settings: TrainSettings,
    which: str,
    work: Path,
) -> dict[str, dict]:
    """Train on `chosen` (epoch, thresholds and snapping chosen on `dev`), score every gold
    file, and say what it cost."""
    trainer = TransformersTrainer()
    data = TrainingData(
        Path("."), {}, {"train": chosen, "dev": dev, "test": []}, [r.id for r in chosen]
    )
    work.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        started = time.perf_counter()
        info = trainer.fit(data, Path(scratch), settings, work)
        seconds = time.perf_counter() - started
        detector = trainer.load(Path(scratch), info)
        scored = {}
        for name, gold in golds.items():
            started = time.perf_counter()
            scored[name] = score(detector, gold, scored_labels(which, gold))
            scored[name]["predict_s_per_doc"] = round(
                (time.perf_counter() - started) / len(gold), 3
            )
    shutil.rmtree(work, ignore_errors=True)
    epochs = max(1, len(info["dev_f1_by_epoch"]))
    for result in scored.values():
        result.update(
            documents=len(chosen),
            train_s=round(seconds, 1),
            epoch_s_per_100_docs=round(seconds / epochs / len(chosen) * 100, 1),
            peak_rss_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
            best_epoch=info["best_epoch"],
            dev_f1_by_epoch=info["dev_f1_by_epoch"],
            thresholds=info["thresholds"],
            snapped=info["snap"],
        )
    return scored


def settings_of(args: argparse.Namespace, seed: int) -> TrainSettings:
    return TrainSettings(
        trainer="transformers",
        base_model=str(args.base_model),
        epochs=args.epochs,
        patience=args.patience,
        seed=seed,
        batch_size=args.batch_size,
        learning_rate=args.learning_rate,
        length=args.length,
        stride=args.stride,
        class_weights=args.class_weights,
        device=args.device,
        threads=args.threads,
        train_embeddings=args.train_embeddings,
        snap_to_units=args.snap_to_units,
        unit=args.unit,
        unit_cover=args.unit_cover,
    )


def done_results(out: Path | None, key: str) -> list[dict]:
    """The results of an earlier run of the same settings in `out`."""
    if out is None or not out.is_file():
        return []
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines() if line]
    return [row for row in rows if row.get("key") == key]


def train_seed(
    args: argparse.Namespace,
    seed: int,
    records: list[Record],
    golds: dict[str, list[Record]],
    work_root: Path,
    key: str,
    finished: set[tuple[int, int]],
    results: dict[tuple[int, str], list[dict]],
) -> None:
    """Every curve point of one seed not in `finished`, printed and added to `results`."""
    dev, train = held_out(records, seed, args.dev, args.dev_share)
    sizes = [int(n) for n in args.sizes.split(",")] if args.sizes else [len(train)]
    for size in sizes:
        chosen = train[: min(size, len(train))]
        if (seed, len(chosen)) in finished:
            continue
        work = work_root / f"seed-{seed}-size-{len(chosen)}"
        scored = fit_and_score(chosen, dev, golds, settings_of(args, seed), args.labels, work)
        for name, result in scored.items():
            row = {"key": key, "score": name, "seed": seed, **result}
            results.setdefault((len(chosen), name), []).append(row)
            print(json.dumps(row), flush=True)
            if args.out:
                with args.out.open("a", encoding="utf-8") as out:
                    out.write(json.dumps(row) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-model", type=Path, required=True)
    parser.add_argument("--train", nargs="+", required=True)
    parser.add_argument("--sources", default=None, help="span sources kept, comma-separated")
    parser.add_argument("--shapes", default=None, help="documents of these shapes only")
    parser.add_argument("--refind", action="store_true", help="find planned facts again")
    parser.add_argument("--dev", type=Path, nargs="*", default=None)
    parser.add_argument("--dev-share", type=float, default=0.15)
    parser.add_argument("--score", type=Path, nargs="+", required=True)
    parser.add_argument("--labels", choices=LABEL_SETS, default="special")
    parser.add_argument("--sizes", default=None, help="training documents per curve point")
    parser.add_argument("--seed", default="0,1,2", help="seeds, comma-separated")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--patience", type=int, default=0)
    parser.add_argument("--length", type=int, default=256)
    parser.add_argument("--stride", type=int, default=64)
    parser.add_argument("--batch-size", type=int, default=None)
    parser.add_argument("--learning-rate", type=float, default=None)
    parser.add_argument("--class-weights", default="sqrt", help=f"{CLASS_WEIGHTS} or a file")
    parser.add_argument("--train-embeddings", action="store_true")
    parser.add_argument("--snap-to-units", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--unit", choices=UNITS, default="clause")
    parser.add_argument("--unit-cover", type=float, default=0.5)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--device", choices=DEVICES, default="auto")
    parser.add_argument("--work", type=Path, default=None, help="checkpoints, to resume")
    parser.add_argument("--out", type=Path, default=None, help="results appended (JSONL)")
    args = parser.parse_args()

    sources = set(args.sources.split(",")) if args.sources else None
    shapes = set(args.shapes.split(",")) if args.shapes else None
    records = read(expand_lists(args.train), sources, args.refind, None, shapes)
    golds = {path.name: read([path], None) for path in args.score}
    settings = {k: v for k, v in vars(args).items() if k not in ("out", "work", "seed", "sizes")}
    key = hashlib.sha256(json.dumps(settings, default=str).encode()).hexdigest()[:16]
    print(f"train {len(records)} records, scored {list(golds)}, key {key}; {vars(args)}")
    results: dict[tuple[int, str], list[dict]] = {}
    for row in done_results(args.out, key):
        results.setdefault((row["documents"], row["score"]), []).append(row)
    finished = {(row["seed"], row["documents"]) for rows in results.values() for row in rows}
    with tempfile.TemporaryDirectory(prefix="transformers-bench-") as scratch:
        work_root = args.work or Path(scratch)
        for seed in [int(s) for s in args.seed.split(",")]:
            train_seed(args, seed, records, golds, work_root, key, finished, results)
    for (size, name), runs in sorted(results.items()):
        mean = mean_of(size, name, runs)
        cost = ("train_s", "epoch_s_per_100_docs", "predict_s_per_doc")
        mean |= {k: round(sum(r[k] for r in runs) / len(runs), 2) for k in cost}
        mean["peak_rss_mb"] = max(r["peak_rss_mb"] for r in runs)
        print(json.dumps(mean))


if __name__ == "__main__":
    main()
