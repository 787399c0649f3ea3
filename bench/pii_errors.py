"""What a PII detector misses and what it invents, per label and per shape of value.

    .venv/bin/python bench/pii_errors.py GOLD PRED [--labels EMAIL,IP_ADDRESS,PERSON,ORGANIZATION]
                                         [--examples 5]

GOLD and PRED are record files with the same ids (e.g. `gen predict --model M GOLD --out PRED`).
A gold span is *found* when a predicted span of its label has exactly its range, *partly found*
when one overlaps it, *missed* otherwise; a predicted span that overlaps no gold span of its
label is *invented*. Each span is put in a shape class (`shape_of`: IPv6 or IPv4, a name after a
title or with initials, an e-mail in brackets or with a plus-tag...), so the table says which
shapes the training data did not teach.
"""

from __future__ import annotations

import argparse
import re
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path

from gen.core.record_files import read_record_file
from gen.core.records import Span

_TITLE_BEFORE = re.compile(r"(?:\b[A-Z][a-z]{0,4}\.?[a-z]{0,3}|\bDr|\bMr|\bMs|\bMrs)\s$")


def shape_of(label: str, value: str, before: str) -> str:
    """A coarse shape class of a value, from the value and the text just before it."""
    if label == "IP_ADDRESS":
        return "ipv6" if ":" in value else "ipv4"
    if label == "EMAIL":
        if before.endswith(("<", "mailto:")):
            return "bracketed"
        if "+" in value.split("@")[0]:
            return "plus-tag"
        return "subdomain" if value.split("@")[-1].count(".") >= 2 else "plain"
    if label == "PERSON":
        if _TITLE_BEFORE.search(before[-12:]):
            return "after title"
        if re.search(r"\b[A-Z]\.", value):
            return "initials"
        if value.isupper():
            return "capitals"
        return "one word" if " " not in value.strip() else "several words"
    if label == "ORGANIZATION":
        return "capitals" if value.isupper() else "mixed case"
    return "-"


def compare(
    gold: list[Span], predicted: list[Span], text: str, labels: set[str]
) -> Iterator[tuple[str, str, str, str]]:
    """(outcome, label, shape, value) for every gold and every invented predicted span."""
    for span in gold:
        if span.label not in labels:
            continue
        same = [p for p in predicted if p.label == span.label]
        if any((p.start, p.end) == (span.start, span.end) for p in same):
            outcome = "found"
        elif any(p.overlap(span.start, span.end) for p in same):
            outcome = "partly found"
        else:
            outcome = "missed"
        value = text[span.start : span.end]
        yield outcome, span.label, shape_of(span.label, value, text[: span.start]), value
    for span in predicted:
        if span.label in labels and not any(
            g.label == span.label and g.overlap(span.start, span.end) for g in gold
        ):
            value = text[span.start : span.end]
            yield "invented", span.label, shape_of(span.label, value, text[: span.start]), value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("gold", type=Path)
    parser.add_argument("pred", type=Path)
    parser.add_argument("--labels", default="EMAIL,IP_ADDRESS,PERSON,ORGANIZATION")
    parser.add_argument("--examples", type=int, default=5)
    args = parser.parse_args()
    labels = set(args.labels.split(","))
    predicted = {r.id: r for r in read_record_file(args.pred, "PRED file")}
    counts: Counter[tuple[str, str, str]] = Counter()
    examples: dict[tuple[str, str], list[str]] = defaultdict(list)
    for record in read_record_file(args.gold, "GOLD file"):
        spans = predicted[record.id].spans if record.id in predicted else []
        for outcome, label, shape, value in compare(record.spans, spans, record.text, labels):
            counts[label, shape, outcome] += 1
            if outcome != "found" and len(examples[label, outcome]) < args.examples:
                examples[label, outcome].append(repr(value))
    outcomes = ("found", "partly found", "missed", "invented")
    print(f"{'label':<14} {'shape':<14} " + " ".join(f"{o:>12}" for o in outcomes))
    for label, shape in sorted({(label, shape) for label, shape, _ in counts}):
        cells = " ".join(f"{counts[label, shape, o]:>12}" for o in outcomes)
        print(f"{label:<14} {shape:<14} {cells}")
    for (label, outcome), values in sorted(examples.items()):
        print(f"\n{label} {outcome}: " + ", ".join(values))


if __name__ == "__main__":
    main()
