"""What training data is worth to the encoder detector: train on records, score a gold file.

    .venv/bin/python bench/encoder_detector.py --encoder MODEL.gguf \
        --train bench/runs/qwen2.5-coder-1.5b-planned-en.parquet [...] [--sources planned] \
        [--fact-source pack|model] [--dev FILE | --dev-share 0.15] \
        --score bench/gold/gold-dev.jsonl \
        [--sizes 50,100,200] [--unit clause] [--unit-cover 0.5] [--fill-unplanned 0.7] \
        [--seed 0,1,2] [--refind] [--shapes narrative,layout,topic]

The same trainer as `gen train --trainer encoder` (gen.train.encoder_trainer), called on
records directly, so a learning curve over many training sets takes seconds once the token
vectors are cached. Thresholds are chosen on `--dev` (a file, or a held-out share of the
training records: the gold set is never used for them). Scores: special categories only,
token micro-F1, binary precision/recall, F1 per label (as bench/score_spans.py). Tune on
gold `dev`; report gold `test`. `--refind` finds the planned facts of the records again with
today's finder (`labeling.planned`, from `meta.disclosures`) instead of the spans their run
stored, so stored runs follow a better finder without being written again.

`--fact-source pack` (or `model`) trains only on the documents none of whose planned facts
came from the other source: a run of `gen documents --facts mixed` holds both, so what each
source's documents teach the detector compares within one run (a document with facts of
both sources is left out of either; one without planned facts, `other`, stays in both).

A `--train` path written `RUN#layout,topic` keeps those shapes of that file only (the stored
runs before shapes are all `narrative`).

`--seed 0,1,2` trains once per hold-out seed and prints each, then the mean per scored file
(one training scores every `--score` file: pass gold dev and test together). `--shapes`
keeps the documents of those shapes (`meta.shape`: a layout's field facts keep their stored
spans under `--refind`). Each score also splits the gold documents by whether their type has
a layout skeleton in the pack (`by_skeleton`): the ones without are the check that layouts
cannot have been fitted to.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import tempfile
import time
from collections import Counter
from pathlib import Path

from gen.core.errors import UsageError
from gen.core.packs import load_language_pack
from gen.core.record_files import read_record_file
from gen.core.records import Record
from gen.evaluate.run import evaluate
from gen.generate.disclosures import FACT_SOURCES
from gen.generate.placed_facts import no_fact_from_another_source
from gen.predict.detector import Detector
from gen.train import TrainSettings
from gen.train.data import TrainingData
from gen.train.encoder_trainer import EncoderTrainer
from gen.train.units import special_labels
from labeling.refind import refound


def held_out(
    records: list[Record], seed: int, dev_files: list[Path] | None, dev_share: float
) -> tuple[list[Record], list[Record]]:
    """(dev, train): the records shuffled by `seed`, and `dev_files` for choosing thresholds
    and epochs, or else a held-out `dev_share` of the records (never the gold set)."""
    train = list(records)
    random.Random(seed).shuffle(train)
    if dev_files:
        return read(dev_files, None), train
    count = max(1, round(dev_share * len(train)))
    return train[:count], train[count:]


def read(
    paths: list[Path],
    sources: set[str] | None,
    refind: bool = False,
    fact_source: str | None = None,
    shapes: set[str] | None = None,
) -> list[Record]:
    """The records of `paths`; a path written `FILE#layout,topic` keeps those shapes of that
    file alone (`shapes` applies to every file)."""
    records = []
    for path in paths:
        path, _, own = str(path).partition("#")
        wanted = set(own.split(",")) if own else shapes
        for record in read_record_file(Path(path), "records"):
            if fact_source and not no_fact_from_another_source(record, fact_source):
                continue
            if wanted and (record.meta or {}).get("shape", "narrative") not in wanted:
                continue
            record = refound(record) if refind else record
            spans = [s for s in record.spans if sources is None or s.source in sources]
            records.append(dataclasses.replace(record, spans=spans))
    return records


def has_skeleton(record: Record) -> bool:
    """Whether the record's document type has a layout skeleton in its language's pack: the
    gold documents without one are the check that layouts cannot have been fitted to."""
    pack = load_language_pack(record.language)
    try:
        layouts = pack.shapes.layouts
    except UsageError:  # a pack without shapes.yaml
        return False
    return (record.doc_type or "").lower() in {name.lower() for name in layouts}


def score(detector: Detector, gold: list[Record], labels: set[str] | None = None) -> dict:
    """Token scores of the gold spans of `labels` (the special categories by default): the
    detector's spans of other labels count as nothing."""
    special = set(special_labels()) if labels is None else labels
    predicted = detector.predict([r.text for r in gold])
    keep = [dataclasses.replace(r, spans=[s for s in r.spans if s.label in special]) for r in gold]
    pred = [
        dataclasses.replace(r, spans=[s for s in spans if s.label in special])
        for r, spans in zip(gold, predicted, strict=True)
    ]
    report = evaluate(keep, pred).groups["all"]
    per_label = report.token_scores.per_label
    languages = sorted({r.language for r in gold})
    by_language = {
        language: round(
            evaluate(
                [r for r in keep if r.language == language],
                [r for r in pred if r.language == language],
            )
            .groups["all"]
            .token_scores.micro.f1,
            3,
        )
        for language in languages
    }
    with_skeleton = [has_skeleton(r) for r in gold]
    by_skeleton = {
        name: round(
            evaluate(
                [r for r, has in zip(keep, with_skeleton, strict=True) if has == wanted],
                [r for r, has in zip(pred, with_skeleton, strict=True) if has == wanted],
            )
            .groups["all"]
            .token_scores.micro.f1,
            3,
        )
        for name, wanted in (("with", True), ("without", False))
        if wanted in with_skeleton
    }
    return {
        "by_language": by_language,
        "by_skeleton": by_skeleton,
        "micro_f1": round(report.token_scores.micro.f1, 3),
        "binary_p": round(report.token_binary.precision, 3),
        "binary_r": round(report.token_binary.recall, 3),
        "per_label": {k: round(v.f1, 3) for k, v in sorted(per_label.items()) if k in special},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--encoder", type=Path, required=True)
    parser.add_argument("--train", type=Path, nargs="+", required=True)
    parser.add_argument("--sources", default=None, help="span sources kept, comma-separated")
    parser.add_argument(
        "--fact-source",
        choices=FACT_SOURCES,
        default=None,
        help="train on the documents whose planned facts all came from this source",
    )
    parser.add_argument(
        "--shapes", default=None, help="train on documents of these shapes (narrative,layout,topic)"
    )
    parser.add_argument("--dev", type=Path, nargs="*", default=None)
    parser.add_argument("--dev-share", type=float, default=0.15)
    parser.add_argument("--score", type=Path, nargs="+", required=True)
    parser.add_argument("--sizes", default=None, help="training documents per curve point")
    parser.add_argument("--unit", default="clause")
    parser.add_argument("--unit-cover", type=float, default=0.5)
    parser.add_argument("--fill-unplanned", type=float, default=0.7)
    parser.add_argument(
        "--seed", default="0", help="hold-out seeds, comma-separated: one line each, then the mean"
    )
    parser.add_argument("--refind", action="store_true", help="find planned facts again")
    args = parser.parse_args()

    sources = set(args.sources.split(",")) if args.sources else None
    shapes = set(args.shapes.split(",")) if args.shapes else None
    records = read(args.train, sources, args.refind, args.fact_source, shapes)
    golds = {path.name: read([path], None) for path in args.score}
    settings = TrainSettings(
        trainer="encoder",
        encoder=str(args.encoder),
        unit=args.unit,
        unit_cover=args.unit_cover,
        fill_unplanned=args.fill_unplanned,
        identifiers="none",
    )
    counts = Counter((r.meta or {}).get("shape", "narrative") for r in records)
    print(f"train {len(records)} records {dict(counts)}, scored {list(golds)}; {vars(args)}")
    results: dict[tuple[int, str], list[dict]] = {}
    for seed in [int(s) for s in args.seed.split(",")]:
        dev, train = held_out(records, seed, args.dev, args.dev_share)
        sizes = [int(n) for n in args.sizes.split(",")] if args.sizes else [len(train)]
        for size in sizes:
            chosen = train[: min(size, len(train))]
            for name, result in fit_and_score(chosen, dev, golds, settings).items():
                result["seed"] = seed
                results.setdefault((len(chosen), name), []).append(result)
                print(json.dumps({"score": name, **result}))
    for (size, name), runs in results.items():
        print(json.dumps(mean_of(size, name, runs)))


def fit_and_score(
    chosen: list[Record], dev: list[Record], golds: dict[str, list[Record]], settings: TrainSettings
) -> dict[str, dict]:
    """Train on `chosen` (thresholds on `dev`), score every gold file."""
    trainer = EncoderTrainer()
    data = TrainingData(
        Path("."), {}, {"train": chosen, "dev": dev, "test": []}, [r.id for r in chosen]
    )
    with tempfile.TemporaryDirectory() as scratch:
        started = time.perf_counter()
        info = trainer.fit(data, Path(scratch), settings, Path(scratch))
        seconds = time.perf_counter() - started
        detector = trainer.load(Path(scratch), info)
        scored = {name: score(detector, gold) for name, gold in golds.items()}
    for result in scored.values():
        result.update(
            documents=len(chosen),
            positive_units=info["train_positive_units"],
            filled_units=info["filled_unplanned_units"],
            thresholds=info["thresholds"],
            seconds=round(seconds, 1),
        )
    return scored


def mean_of(size: int, name: str, runs: list[dict]) -> dict:
    """The mean over hold-out seeds of the headline figures."""
    keys = ("micro_f1", "binary_p", "binary_r")
    mean = {key: round(sum(r[key] for r in runs) / len(runs), 3) for key in keys}
    labels = runs[0]["per_label"]
    per_label = {
        k: round(sum(r["per_label"].get(k, 0.0) for r in runs) / len(runs), 3) for k in labels
    }
    languages = runs[0]["by_language"]
    by_language = {
        k: round(sum(r["by_language"].get(k, 0.0) for r in runs) / len(runs), 3) for k in languages
    }
    spread = [r["micro_f1"] for r in runs]
    return {
        "mean_of_seeds": [r["seed"] for r in runs],
        "score": name,
        "documents": size,
        **mean,
        "range": [min(spread), max(spread)],
        "per_label": per_label,
        "by_language": by_language,
    }


if __name__ == "__main__":
    main()
