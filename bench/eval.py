"""How long `gen eval` takes on a large gold set: every view, all documents, and per
predicted span source.

    .venv/bin/python bench/eval.py [DOCUMENTS]
"""

from __future__ import annotations

import random
import sys
import time
from dataclasses import replace

from inspect_page import synthetic_record  # the synthetic letters of the sibling benchmark

from gen.core.records import Record
from gen.evaluate.run import evaluate


def noisy_copy(record: Record, rng: random.Random) -> Record:
    """The record as a weak labeler would see it: spans dropped, cut short or relabeled."""
    spans = []
    for span in record.spans:
        if rng.random() < 0.2:
            continue
        label = span.label if rng.random() < 0.8 else "health"
        shorter = replace(span, end=max(span.start + 1, span.end - rng.randint(0, 5)), label=label)
        if record.text[shorter.start : shorter.end].strip():
            spans.append(shorter)
    return replace(record, spans=spans)


def main(documents: int = 2000) -> None:
    rng = random.Random(0)
    gold = [synthetic_record(i, rng) for i in range(documents)]
    pred = [noisy_copy(record, rng) for record in gold]
    spans = sum(len(record.spans) for record in gold)
    print(f"documents: {documents}, gold spans: {spans}")
    for by in ("label", "source"):
        start = time.perf_counter()
        evaluation = evaluate(gold, pred, by=by)
        elapsed = time.perf_counter() - start
        tokens = evaluation.groups["all"].tokens
        print(f"--by {by}: {elapsed:.2f} s ({tokens / elapsed:,.0f} tokens/s over all groups)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
