"""The ceiling of each labeling unit on a gold set: the token micro-F1 that a perfect
classifier of sentences, or of clauses, would reach; and the floor: what labeling every
unit of a sensitive document with its category scores (gen.evaluate.ceiling).

    .venv/bin/python bench/unit_ceiling.py bench/gold/gold-dev.jsonl [--prompts DIR]

Only special-category labels count (PII is found by other means). "plain sentences" is
gen.text.sentences alone, the unit of the thesis's sentence strategy, for reference.
"""

from __future__ import annotations

import argparse
from functools import cache
from pathlib import Path

from gen.core.packs import load_language_pack
from gen.core.record_files import read_record_file
from gen.evaluate.ceiling import (
    Splitter,
    category_label_map,
    unit_ceiling,
    unit_floor,
    unit_splitter,
)
from gen.evaluate.run import EvalReport
from gen.text.sentences import split_sentences
from gen.text.units import UNITS


def _cells(name: str, units: int, report: EvalReport, labels: list[str]) -> list[str]:
    binary = report.token_binary
    cells = [name, str(units), f"{binary.precision:.3f}/{binary.recall:.3f}/{binary.f1:.3f}"]
    cells.append(f"{report.token_scores.micro.f1:.3f}")
    return cells + [f"{report.token_scores.per_label[label].f1:.3f}" for label in labels]


def _print_table(rows: list[list[str]]) -> None:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("gold", type=Path, help="gold JSONL or Parquet (docs/gold.md)")
    parser.add_argument("--prompts", type=Path, default=None, help="prompts folder")
    args = parser.parse_args()
    gold = read_record_file(args.gold, "GOLD file")
    packs = {code: load_language_pack(code, args.prompts) for code in {r.language for r in gold}}
    labels = sorted({label for pack in packs.values() for label in pack.categories.sensitive})
    rules = {code: pack.units for code, pack in packs.items()}
    splitters: dict[str, Splitter] = {"plain sentences": split_sentences}
    splitters |= {unit: unit_splitter(rules, unit) for unit in UNITS}

    spans = sum(1 for r in gold for s in r.spans if s.label in labels)
    print(f"{args.gold}: {len(gold)} documents, {spans} special-category spans")
    category_labels = category_label_map(packs.values())
    rows = [["unit", "units", "binary P/R/F1", "micro-F1", *labels]]
    floors = [rows[0]]
    for name, split in splitters.items():
        split = cache(split)  # each text is cut once, for the count and for the scores
        units = sum(len(split(r.text, r.language)) for r in gold)
        rows.append(_cells(name, units, unit_ceiling(gold, split, labels), labels))
        floor = unit_floor(gold, split, labels, category_labels)
        floors.append(_cells(name, units, floor, labels))
    print("\nceiling: a perfect classifier of the units")
    _print_table(rows)
    print("\nfloor: every unit of a sensitive document gets the document's category")
    _print_table(floors)


if __name__ == "__main__":
    main()
