"""Special-category token scores of stored spans against a gold set: what the labeling
benchmark prints for a strategy it ran, for spans that are already there (the writer's
inline tags, planned disclosures, a labeled run folder).

    .venv/bin/python bench/score_spans.py GOLD.jsonl [GOLD2.jsonl ...] --pred RUN/documents ...
        [--source llm_inline] [--prompts DIR]

Only the ids present in both are scored; only special-category labels count (PII is found
by other means), as in bench/bench_label_strategies.py: micro-F1 over the labels (a span of
the wrong category is wrong), binary precision/recall/F1, and F1 per label.
"""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

from gen.core.packs import load_language_pack
from gen.core.record_files import read_record_file
from gen.evaluate.run import evaluate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("gold", type=Path, nargs="+", help="gold JSONL or Parquet files")
    parser.add_argument(
        "--pred", type=Path, nargs="+", required=True, help="records with spans (files, folders)"
    )
    parser.add_argument("--source", default=None, help="keep only the spans of this source")
    parser.add_argument("--prompts", type=Path, default=None, help="prompts folder")
    args = parser.parse_args()

    gold = {r.id: r for path in args.gold for r in read_record_file(path, "GOLD file")}
    predicted = {r.id: r for path in args.pred for r in read_record_file(path, "PRED records")}
    ids = sorted(gold.keys() & predicted.keys())
    packs = {load_language_pack(gold[i].language, args.prompts) for i in ids}
    special = {
        pack.categories.categories[name].label
        for pack in packs
        for name in pack.categories.sensitive
    }

    def kept(record, source: str | None):  # type: ignore[no-untyped-def]
        spans = [s for s in record.spans if s.label in special and source in (None, s.source)]
        return dataclasses.replace(record, spans=spans)

    report = evaluate(
        [kept(gold[i], None) for i in ids], [kept(predicted[i], args.source) for i in ids]
    ).groups["all"]
    binary = report.token_binary
    print(f"{len(ids)} documents scored ({len(gold)} gold, {len(predicted)} predicted)")
    print(f"token micro-F1 {report.token_scores.micro.f1:.3f}")
    print(f"binary P/R/F1 {binary.precision:.3f} / {binary.recall:.3f} / {binary.f1:.3f}")
    for label in sorted(special):
        scores = report.token_scores.per_label.get(label)
        if scores is not None:
            print(
                f"  {label:<12} P {scores.precision:.3f} R {scores.recall:.3f} F1 {scores.f1:.3f}"
            )


if __name__ == "__main__":
    main()
