"""Identifiers on their own kind of data: a spaCy detector trained on `gen queries` of one seed,
scored on queries of another seed and on the PII gold set.

    .venv/bin/python bench/ids_holdout.py OUT [--locale en_US] [--n 1500] [--seeds 1]
        [--train-seeds 0] [--held-seed 2] [--held-n 300] [--gold bench/gold/pii-test.jsonl]

For each query seed of `--seeds` and each `gen train --seed` of `--train-seeds`: `--n` queries
in `OUT/run-<seed>-<train seed>`, `gen build`, `gen train` (spaCy `ner`, default settings: the
export splits 80/10/10, so 0.8 n queries train); then `--held-n` queries of `--held-seed`
(never a training seed) in `OUT/held`, predicted and scored with `gen eval`, and the gold file
the same way. Prints strict entity F1 and token micro F1 on both for each training (`seeds`:
queries / train), and their mean and range with several; the scores stay in
`OUT/run-<seed>-<train seed>.<name>.json`. A model that exists is not trained again, so a
stopped run goes on. Everything is seeded: the same checkout gives the same figures, and
several training seeds show how far one training is from another on the same queries.

To measure another checkout, run this script from that checkout's folder with its code first
on the path (the queries are then written by that checkout too):

    cd OTHER && PYTHONPATH=. .venv/bin/python /path/to/bench/ids_holdout.py OUT_OTHER

Run it niced and one at a time: each training keeps the two cores busy for minutes.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from pii_curve import _gen, score


def held_out(out: Path, locale: str, n: int, seed: int) -> Path:
    """The queries the detectors are scored on, as a record folder."""
    run = out / "held"
    _gen("queries", "--run", str(run), "--n", str(n), "--locale", locale, "--seed", str(seed))
    return run / "queries"


def train(run: Path, locale: str, n: int, seed: int, train_seed: int) -> Path:
    model = run / "models" / "spacy"
    if not (model / "detector.json").exists():
        _gen("queries", "--run", str(run), "--n", str(n), "--locale", locale, "--seed", str(seed))
        _gen("build", "--run", str(run))
        _gen("train", "--run", str(run), "--seed", str(train_seed))
    return model


def figures(report: dict) -> tuple[float, float]:
    """(strict entity F1, token micro F1) of a `gen eval --format json` group."""
    return report["entities"]["strict"]["overall"]["f1"], report["token_scores"]["micro"]["f1"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--locale", default="en_US")
    parser.add_argument("--n", type=int, default=1500, help="queries per training")
    parser.add_argument("--seeds", default="1", help="gen queries seeds of the trainings")
    parser.add_argument("--train-seeds", default="0", help="gen train seeds")
    parser.add_argument("--held-seed", type=int, default=2)
    parser.add_argument("--held-n", type=int, default=300)
    parser.add_argument("--gold", type=Path, default=Path("bench/gold/pii-test.jsonl"))
    args = parser.parse_args()
    seeds = [int(seed) for seed in args.seeds.split(",")]
    if args.held_seed in seeds:
        parser.error(f"--held-seed {args.held_seed} is also a training seed")
    held = held_out(args.out, args.locale, args.held_n, args.held_seed)
    rows = []
    for seed in seeds:
        for train_seed in (int(value) for value in args.train_seeds.split(",")):
            name = f"run-{seed}-{train_seed}"
            model = train(args.out / name, args.locale, args.n, seed, train_seed)
            queries = score(model, held, args.out / f"{name}.held.json")
            gold = score(model, args.gold, args.out / f"{name}.{args.gold.stem}.json")
            rows.append((f"{seed} / {train_seed}", *figures(queries), *figures(gold)))
    print("seeds | held-out strict F1 | held-out token F1 | gold strict F1 | gold token F1")
    for name, *values in rows:
        print(f"{name} | " + " | ".join(f"{value:.3f}" for value in values))
    if len(rows) > 1:
        columns = list(zip(*(values for _, *values in rows), strict=True))
        print("mean | " + " | ".join(f"{sum(c) / len(c):.3f}" for c in columns))
        print("range | " + " | ".join(f"{min(c):.3f}-{max(c):.3f}" for c in columns))


if __name__ == "__main__":
    main()
