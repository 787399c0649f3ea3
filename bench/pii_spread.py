"""How far a detector's token F1 moves with the choice of gold documents alone, per label.

    .venv/bin/python bench/pii_spread.py GOLD PRED [PRED...] [--draws 1000] [--seed 0]

GOLD and each PRED are record files with the same ids (`gen predict --model M GOLD --out
PRED`). The documents are drawn again with replacement `--draws` times (a bootstrap over
documents, as a PII set of another size or origin would draw them); each draw is scored the
way `gen eval` scores tokens, and the table gives per label the gold tokens, the F1 of the
whole file and the 5th to 95th percentile of the draws' F1. A label with a few dozen gold
tokens moves by tenths from the choice of documents alone: a change of that size between two
detectors on such a set is no evidence by itself.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence
from pathlib import Path

from gen.core.packs import negative_labels
from gen.evaluate.counting import count_labels, token_sets
from gen.evaluate.inputs import DocumentPair, pair_records, read_gold_and_pred
from gen.evaluate.scores import Counts

MICRO = "micro"


def document_counts(pairs: Sequence[DocumentPair]) -> list[dict[str, Counts]]:
    """Each document's token counts per label, with their sum under `micro`."""
    negative = negative_labels()
    counted = []
    for pair in pairs:
        counts = count_labels(list(token_sets([pair], negative)))
        counts[MICRO] = sum(counts.values(), Counts())
        counted.append(counts)
    return counted


def summed(counted: Sequence[dict[str, Counts]]) -> dict[str, Counts]:
    total: dict[str, Counts] = {}
    for counts in counted:
        for label, value in counts.items():
            total[label] = total.get(label, Counts()) + value
    return total


def f1(counts: dict[str, Counts], label: str) -> float:
    return counts.get(label, Counts()).scores().f1


def spread(counted: list[dict[str, Counts]], draws: int, seed: int) -> dict[str, list[float]]:
    """The F1 of every label in each of `draws` resamplings of the documents."""
    rng = random.Random(seed)
    labels = {label for counts in counted for label in counts}
    found: dict[str, list[float]] = {label: [] for label in labels}
    for _ in range(draws):
        total = summed(rng.choices(counted, k=len(counted)))
        for label in labels:
            found[label].append(f1(total, label))
    return found


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("gold", type=Path)
    parser.add_argument("pred", type=Path, nargs="+")
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for pred in args.pred:
        counted = document_counts(pair_records(*read_gold_and_pred(args.gold, pred)))
        whole = summed(counted)
        found = spread(counted, args.draws, args.seed)
        print(f"\n{pred}\nlabel | gold tokens | token F1 | 5th-95th percentile")
        for label in sorted(found, key=lambda name: (name == MICRO, name)):
            low, high = percentile(found[label], 0.05), percentile(found[label], 0.95)
            support = whole[label].support
            print(f"{label} | {support} | {f1(whole, label):.2f} | {low:.2f}-{high:.2f}")


if __name__ == "__main__":
    main()
