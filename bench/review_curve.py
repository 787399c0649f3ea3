"""What a few reviewed documents add to a detector trained on generated data, per selection
rule of `gen review push --select`: a team's pool stands in as a gold file whose hand
labels play the reviewer.

    .venv/bin/python bench/review_curve.py --encoder MODEL.gguf \
        --train bench/runs/qwen2.5-coder-1.5b-planned-en.parquet [--sources planned] \
        --pool bench/gold/gold-dev.jsonl --score bench/gold/gold-test.jsonl \
        [--counts 5,10,20] [--seeds 0,1,2]

1. The encoder detector is trained on the generated records (thresholds on a held-out 15%
   of them, as bench/encoder_detector.py).
2. For each rule and count N: `select_ids` picks N pool documents with that detector
   (`random` once per seed); `disagreement` compares the detector with the pool's spans of
   `--pool-sources` (the labels a team would have, e.g. a prompted labeler's; without them
   the rule is skipped).
3. The detector is trained again on the generated records plus the N picked documents with
   their hand labels, and scored on `--score` (special categories, token micro-F1).
The reference rows: generated only, and generated plus the whole pool.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import statistics
import tempfile
from pathlib import Path

from encoder_detector import read, score  # the sibling benchmark

from gen.core.records import Record
from gen.review.select import select_ids
from gen.train import TrainSettings
from gen.train.data import TrainingData
from gen.train.encoder_trainer import EncoderTrainer


def train_and_score(
    settings: TrainSettings, train: list[Record], dev: list[Record], gold: list[Record]
) -> tuple[dict, object]:
    trainer = EncoderTrainer()
    data = TrainingData(
        Path("."), {}, {"train": train, "dev": dev, "test": []}, [r.id for r in train]
    )
    with tempfile.TemporaryDirectory() as scratch:
        info = trainer.fit(data, Path(scratch), settings, Path(scratch))
        detector = trainer.load(Path(scratch), info)
        return score(detector, gold), detector


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--encoder", type=Path, required=True)
    parser.add_argument("--train", type=Path, nargs="+", required=True)
    parser.add_argument("--sources", default=None)
    parser.add_argument("--pool", type=Path, nargs="+", required=True)
    parser.add_argument("--pool-sources", default=None)
    parser.add_argument("--score", type=Path, nargs="+", required=True)
    parser.add_argument("--counts", default="5,10,20")
    parser.add_argument("--seeds", default="0,1,2")
    args = parser.parse_args()

    settings = TrainSettings(trainer="encoder", encoder=str(args.encoder), identifiers="none")
    train = read(args.train, set(args.sources.split(",")) if args.sources else None)
    random.Random(0).shuffle(train)
    held = max(1, round(0.15 * len(train)))
    dev, train = train[:held], train[held:]
    pool = read(args.pool, None)
    gold = read(args.score, None)
    labeled = {r.id: r for r in pool}
    pool_spans = set(args.pool_sources.split(",")) if args.pool_sources else None
    unlabeled = [
        dataclasses.replace(r, spans=[s for s in r.spans if pool_spans and s.source in pool_spans])
        for r in pool
    ]
    base, detector = train_and_score(settings, train, dev, gold)
    print(json.dumps({"rule": "generated only", "documents": 0, **base}), flush=True)
    everything, _ = train_and_score(settings, train + pool, dev, gold)
    print(json.dumps({"rule": "generated + whole pool", "documents": len(pool), **everything}))
    seeds = [int(s) for s in args.seeds.split(",")]
    rules = ["uncertain", "random"] + (["disagreement"] if pool_spans else [])
    for count in (int(n) for n in args.counts.split(",")):
        for rule in rules:
            results = []
            for seed in seeds if rule == "random" else seeds[:1]:
                used = None if rule == "random" else detector
                chosen = select_ids(unlabeled, rule, count, detector=used, seed=seed).ids
                added = [labeled[i] for i in chosen]
                result, _ = train_and_score(settings, train + added, dev, gold)
                results.append(result["micro_f1"])
            print(
                json.dumps(
                    {
                        "rule": rule,
                        "documents": count,
                        "micro_f1": round(statistics.mean(results), 3),
                        "runs": results,
                    }
                ),
                flush=True,
            )


if __name__ == "__main__":
    main()
