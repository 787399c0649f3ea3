"""Does a model rank sensitive units above the others at all? The ROC AUC of its scored
answers on a gold set, before any threshold is chosen.

    .venv/bin/python bench/unit_signal.py bench/gold/gold-dev.jsonl
        [--unit sentence|clause] [--categories own|all] [--ctx 4096] [--model FILE.gguf]

For every unit of every gold document (own mode: the documents of a sensitive category),
the `sentences` strategy's scored prompt gives the probability that the unit is sensitive
(own: the share of the category's answer; all: one minus the share of the non-sensitive
answer). A unit is sensitive in the gold set when most of its visible characters lie in
special-category gold spans (as for gen.evaluate.ceiling; own mode: spans of the
document's category). The AUC is the chance that a sensitive unit scores above a
non-sensitive one: 0.5 is a coin, and no `--min-score` can make labels better than the
floor of bench/unit_ceiling.py when it is near 0.5. "within documents" averages the AUC
of each document that has both kinds of unit, which ignores how a model's answers drift
from one document to the next.
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Sequence
from pathlib import Path

from sklearn.metrics import roc_auc_score

from gen.backends import make_backend
from gen.backends.llama_cpp import LlamaCppOptions
from gen.core.packs import load_language_pack
from gen.core.record_files import read_record_file
from gen.evaluate.ceiling import oracle_spans
from gen.text.units import UNITS, split_units
from labeling.options import CATEGORY_MODES, LabelOptions
from labeling.strategies import LabelerSetup, load_labeling, strategy
from labeling.strategies.outcome import OK, StrategyOutcome


def auc(pairs: Sequence[tuple[float, bool]]) -> float | None:
    """ROC AUC of (score, is sensitive); None without both kinds of unit."""
    truths = [truth for _, truth in pairs]
    if all(truths) or not any(truths):
        return None
    return float(roc_auc_score(truths, [score for score, _ in pairs]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("gold", type=Path, help="gold JSONL or Parquet (docs/gold.md)")
    parser.add_argument("--unit", choices=UNITS, default="sentence")
    parser.add_argument("--categories", choices=CATEGORY_MODES, default="own")
    parser.add_argument("--ctx", type=int, default=4096)
    parser.add_argument("--model", type=Path, default=None, help="GGUF (default: embedded)")
    parser.add_argument("--threads", type=int, default=None, help="llama.cpp threads")
    args = parser.parse_args()

    gold = read_record_file(args.gold, "GOLD file")
    backend = make_backend(LlamaCppOptions(model=args.model, n_ctx=args.ctx, threads=args.threads))
    options = LabelOptions(
        strategy="sentences",
        unit=args.unit,
        categories=args.categories,
        answers="scored",
        context_tokens=args.ctx,
        backend=backend,
    )
    pairs: list[tuple[float, bool]] = []
    per_document: list[float] = []
    for language in sorted({r.language for r in gold}):
        pack = load_language_pack(language)
        labeler = strategy("sentences").build(
            LabelerSetup(pack, load_labeling(pack, needed=("sentences",)), options)
        )
        categories = pack.categories.categories
        for record in (r for r in gold if r.language == language):
            own = categories[record.category]
            if args.categories == "own" and not own.sensitive:
                continue
            counted = {own.label} if args.categories == "own" else set(pack.categories.sensitive)
            ranges = split_units(record.text, pack.units, args.unit)
            sensitive = {
                (span.start, span.end)
                for span in oracle_spans(record.text, record.spans, ranges, counted)
            }
            answers = labeler.texts.answers(record.category)
            negative = answers.labels.index(None)
            shares = labeler.unit_probabilities(
                record, [record.text[s:e] for s, e in ranges], StrategyOutcome("sentences", OK)
            )
            document = [
                (1.0 - share[negative], unit in sensitive)
                for share, unit in zip(shares, ranges, strict=True)
            ]
            pairs += document
            value = auc(document)
            if value is not None:
                per_document.append(value)
    overall = auc(pairs)
    print(
        f"{args.gold}: {len(pairs)} units ({sum(t for _, t in pairs)} sensitive), "
        f"model {backend.model_id}, --unit {args.unit} --categories {args.categories}"
    )
    print(f"AUC over all units: {'-' if overall is None else f'{overall:.3f}'}")
    if per_document:
        mean = statistics.mean(per_document)
        print(f"AUC within documents (mean of {len(per_document)}): {mean:.3f}")


if __name__ == "__main__":
    main()
