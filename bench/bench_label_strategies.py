"""Labeling strategies on a gold set: token F1, unit ceiling and seconds per document for
each strategy x unit x category mode x answer mode (x context, for scored answers), and a
calibration table for scored answers (precision and recall when spans below a score are
dropped).

    .venv/bin/python bench/bench_label_strategies.py bench/gold/gold-dev.jsonl
        [--limit N] [--ctx 4096] [--model FILE.gguf] [--threads N]
        [--only sentences/clause/all/scored/document ...]
        [--json results.json] [--predictions DIR]

Each configuration runs `gen label` (the real stage, on a scratch run folder holding the
gold texts without their spans) with one model loaded once, the embedded SmolLM2-135M by
default. Only special-category labels are scored (PII comes from other sources), with
gen.evaluate's token metrics: micro-F1 over the labels (a span of the wrong category is
wrong) and binary P/R/F1 (sensitive or not). The unit ceiling is what a perfect
classifier of those units would reach, the floor what labeling every unit of a sensitive
document with its category scores (gen.evaluate.ceiling): a configuration adds something
only above the floor. Run it on an idle machine:
seconds per document are wall-clock times.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gen.backends import make_backend
from gen.backends.llama_cpp import LlamaCppOptions
from gen.core.packs import load_language_pack
from gen.core.record_files import read_record_file
from gen.core.records import Record
from gen.core.runs import RunPaths
from gen.core.store import RecordTable, write_records
from gen.evaluate.ceiling import category_label_map, unit_ceiling, unit_floor, unit_splitter
from gen.evaluate.run import EvalReport, evaluate
from labeling.options import LabelOptions
from labeling.run import run as label_run
from labeling.strategies import strategy

#: (strategy, unit, categories, answers, context); "sentence/own/generated" is the thesis's
#: path. The context (the unit alone or after its document) applies to scored answers.
CONFIGURATIONS = (
    [
        ("sentences", unit, categories, "generated", "-")
        for categories in ("own", "all")
        for unit in ("sentence", "clause")
    ]
    + [
        ("sentences", unit, categories, "scored", context)
        for context in ("unit", "document")
        for categories in ("own", "all")
        for unit in ("sentence", "clause")
    ]
    + [("censor", "-", categories, "generated", "-") for categories in ("own", "all")]
)
#: A share of 0.5 is already high among seven labels (--categories all).
THRESHOLDS = (0.0, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)


def name_of(configuration: Sequence[str]) -> str:
    return "/".join(configuration)


def spread(records: Sequence[Record], limit: int | None) -> list[Record]:
    """`limit` records taken at even steps (every language and kind of document), or all."""
    if not limit or limit >= len(records):
        return list(records)
    return [records[index * len(records) // limit] for index in range(limit)]


def special_only(records: Sequence[Record], labels: set[str]) -> list[Record]:
    return [
        dataclasses.replace(r, spans=[s for s in r.spans if s.label in labels]) for r in records
    ]


def documents(gold: Sequence[Record]) -> list[Record]:
    """The gold texts as `gen documents` would have stored them: no spans, no persona."""
    return [dataclasses.replace(r, spans=[], source="llm", meta={}, flags=[]) for r in gold]


def label(
    gold: Sequence[Record],
    configuration: Sequence[str],
    backend: Any,
    ctx: int,
    prompts: Path | None = None,
) -> tuple[list[Record], float, float]:
    """Labeled records of one configuration, and wall-clock and CPU seconds per document
    (CPU time moves less than wall time on a machine shared with other work)."""
    name, unit, categories, answers, context = configuration
    with tempfile.TemporaryDirectory(prefix="gen-bench-label-") as scratch:
        paths = RunPaths(Path(scratch))
        with RecordTable(paths.documents) as table:
            table.extend(documents(gold))
        options = LabelOptions(
            strategy=name,
            unit="sentence" if unit == "-" else unit,
            categories=categories,
            answers=answers,
            context="unit" if context == "-" else context,
            # every span kept: the calibration table applies each threshold afterwards
            min_score=0.0,
            context_tokens=ctx,
            prompts_dir=prompts,
            backend=backend,
        )
        cpu = time.process_time()
        summary = label_run(paths, options)
        cpu = time.process_time() - cpu
        labeled = RecordTable(paths.labeled).read()
    source = strategy(name).source
    predicted = [
        dataclasses.replace(r, spans=[s for s in r.spans if s.source == source]) for r in labeled
    ]
    count = max(1, len(gold))
    return predicted, summary.wall_seconds / count, cpu / count


def scores(report: EvalReport, labels: Sequence[str]) -> dict[str, Any]:
    binary = report.token_binary
    return {
        "micro_f1": round(report.token_scores.micro.f1, 3),
        "binary": [round(binary.precision, 3), round(binary.recall, 3), round(binary.f1, 3)],
        "per_label": {
            label: round(report.token_scores.per_label[label].f1, 3)
            for label in labels
            if label in report.token_scores.per_label
        },
    }


def calibration(gold: Sequence[Record], predicted: Sequence[Record]) -> list[dict[str, Any]]:
    rows = []
    for threshold in THRESHOLDS:
        kept = [
            dataclasses.replace(
                r, spans=[s for s in r.spans if s.score is None or s.score >= threshold]
            )
            for r in predicted
        ]
        report = evaluate(gold, kept).groups["all"]
        binary = report.token_binary
        rows.append(
            {
                "min_score": threshold,
                "precision": round(binary.precision, 3),
                "recall": round(binary.recall, 3),
                "f1": round(binary.f1, 3),
                "micro_f1": round(report.token_scores.micro.f1, 3),
                "spans": sum(len(r.spans) for r in kept),
            }
        )
    return rows


def print_table(rows: list[list[str]]) -> None:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("gold", type=Path, help="gold JSONL or Parquet (docs/gold.md)")
    parser.add_argument(
        "--limit", type=int, default=None, help="N gold documents, spread evenly over the set"
    )
    parser.add_argument("--ctx", type=int, default=4096)
    parser.add_argument("--model", type=Path, default=None, help="GGUF (default: embedded)")
    parser.add_argument("--threads", type=int, default=None, help="llama.cpp threads")
    parser.add_argument("--only", nargs="*", default=None, help="configurations to run")
    parser.add_argument("--prompts", type=Path, default=None, help="prompts folder")
    parser.add_argument("--json", type=Path, default=None, help="write the results here")
    parser.add_argument(
        "--predictions",
        type=Path,
        default=None,
        help="write each configuration's labeled records here (DIR/<configuration>.parquet, "
        "for gen eval --by language or other thresholds)",
    )
    args = parser.parse_args()

    gold_all = spread(read_record_file(args.gold, "GOLD file"), args.limit)
    packs = {
        code: load_language_pack(code, args.prompts) for code in {r.language for r in gold_all}
    }
    labels = sorted({label for pack in packs.values() for label in pack.categories.sensitive})
    gold = special_only(gold_all, set(labels))
    rules = {code: pack.units for code, pack in packs.items()}
    category_labels = category_label_map(packs.values())
    ceilings = {
        unit: unit_ceiling(gold, unit_splitter(rules, unit), labels).token_scores.micro.f1
        for unit in ("sentence", "clause")
    }
    floors = {
        unit: unit_floor(gold, unit_splitter(rules, unit), labels, category_labels)
        for unit in ("sentence", "clause")
    }
    backend = make_backend(LlamaCppOptions(model=args.model, n_ctx=args.ctx, threads=args.threads))
    chosen = [c for c in CONFIGURATIONS if not args.only or name_of(c) in args.only]
    print(f"{args.gold}: {len(gold)} documents; model {backend.model_id}")

    results: dict[str, Any] = {
        "gold": str(args.gold),
        "documents": len(gold),
        "floors": {unit: scores(report, labels) for unit, report in floors.items()},
        "runs": {},
    }
    table = [
        [
            "strategy/unit/categories/answers/context",
            "s/doc",
            "cpu s/doc",
            "micro-F1",
            "ceiling",
            "P/R/F1",
        ]
    ]
    for unit, floor in results["floors"].items():
        table.append(
            [
                f"floor/{unit} (no model)",
                "-",
                "-",
                f"{floor['micro_f1']:.3f}",
                "-",
                "/".join(f"{value:.2f}" for value in floor["binary"]),
            ]
        )
    for configuration in chosen:
        predicted, seconds, cpu = label(gold, configuration, backend, args.ctx, args.prompts)
        if args.predictions:
            args.predictions.mkdir(parents=True, exist_ok=True)
            write_records(
                args.predictions / f"{name_of(configuration).replace('/', '_')}.parquet", predicted
            )
        report = evaluate(gold, special_only(predicted, set(labels))).groups["all"]
        result = scores(report, labels) | {
            "seconds_per_document": round(seconds, 2),
            "cpu_seconds_per_document": round(cpu, 2),
        }
        if configuration[3] == "scored":
            result["calibration"] = calibration(gold, special_only(predicted, set(labels)))
        results["runs"][name_of(configuration)] = result
        ceiling = ceilings.get(configuration[1])
        table.append(
            [
                name_of(configuration),
                f"{seconds:.2f}",
                f"{cpu:.2f}",
                f"{result['micro_f1']:.3f}",
                "-" if ceiling is None else f"{ceiling:.3f}",
                "/".join(f"{value:.2f}" for value in result["binary"]),
            ]
        )
        print(f"  done: {table[-1]}", flush=True)
    print()
    print_table(table)
    for name, result in results["runs"].items():
        if "calibration" in result:
            print(f"\ncalibration of {name} (token binary P/R/F1 when spans below min-score drop)")
            print_table(
                [["min-score", "P", "R", "F1", "micro-F1", "spans"]]
                + [[str(value) for value in row.values()] for row in result["calibration"]]
            )
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
