"""Does a model rank sensitive units above the others, and which threshold turns its scores
into the best labels? The ROC AUC of its scored answers on a gold set, and the token F1 of
the spans each threshold gives, from one pass of the model.

    .venv/bin/python bench/unit_signal.py bench/gold/gold-dev.jsonl
        [--unit sentence|clause] [--categories own|all] [--context unit|document]
        [--ctx 4096] [--model FILE.gguf] [--threads N] [--prompts DIR] [--json FILE]
        [--units FILE]

For every unit of every gold document (own mode: the documents of a sensitive category),
the `sentences` strategy's scored prompt gives the probability that the unit is sensitive
(own: the share of the category's answer; all: one minus the share of the non-sensitive
answer). A unit is sensitive in the gold set when most of its visible characters lie in
special-category gold spans (as for gen.evaluate.ceiling; own mode: spans of the
document's category). The AUC is the chance that a sensitive unit scores above a
non-sensitive one: 0.5 is a coin, and no threshold can make labels better than the floor
of bench/unit_ceiling.py when it is near 0.5. "within documents" averages the AUC of each
document that has both kinds of unit, which ignores how a model's answers drift from one
document to the next.

The threshold table labels a unit when its probability of being sensitive reaches the
threshold, with the most probable sensitive label (own mode: the document's category), and
scores those spans against every special-category gold span with `gen eval`'s token
metrics (micro-F1 counts a wrong category as wrong; own mode cannot find the other
categories of mixed documents). `gen label --answers scored` labels a unit with its most
probable answer: the row 0.5 is what it does for two answers. Tune thresholds on the dev
split only.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
from collections.abc import Sequence
from pathlib import Path

from sklearn.metrics import roc_auc_score

from gen.backends import make_backend
from gen.backends.llama_cpp import LlamaCppOptions
from gen.core.packs import load_language_pack
from gen.core.record_files import read_record_file
from gen.core.records import Record, Span
from gen.evaluate.ceiling import oracle_spans
from gen.evaluate.run import evaluate
from gen.text.units import UNITS, split_units
from labeling.options import CATEGORY_MODES, CONTEXT_MODES, LabelOptions
from labeling.strategies import LabelerSetup, load_labeling, strategy
from labeling.strategies.outcome import OK, StrategyOutcome

THRESHOLDS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)


@dataclasses.dataclass
class ScoredUnit:
    start: int
    end: int
    #: Probability that the unit is sensitive, and its most probable sensitive label.
    sensitive: float
    label: str
    #: Whether the gold set calls it sensitive (of the counted labels).
    truth: bool
    #: Every answer's share of the probability (None: the not-sensitive answer).
    shares: dict[str, float] = dataclasses.field(default_factory=dict)


def auc(pairs: Sequence[tuple[float, bool]]) -> float | None:
    """ROC AUC of (score, is sensitive); None without both kinds of unit."""
    truths = [truth for _, truth in pairs]
    if all(truths) or not any(truths):
        return None
    return float(roc_auc_score(truths, [score for score, _ in pairs]))


def threshold_rows(
    gold: Sequence[Record], units: dict[str, list[ScoredUnit]], labels: set[str]
) -> list[dict[str, float]]:
    """Token scores of the spans each threshold gives, against the special-category spans."""
    truth = [dataclasses.replace(r, spans=[s for s in r.spans if s.label in labels]) for r in gold]
    rows = []
    for threshold in THRESHOLDS:
        predicted = [
            dataclasses.replace(
                r,
                spans=[
                    Span(u.start, u.end, u.label, "pred")
                    for u in units.get(r.id, [])
                    if u.sensitive >= threshold
                ],
            )
            for r in truth
        ]
        report = evaluate(truth, predicted).groups["all"]
        binary = report.token_binary
        rows.append(
            {
                "threshold": threshold,
                "micro_f1": round(report.token_scores.micro.f1, 3),
                "precision": round(binary.precision, 3),
                "recall": round(binary.recall, 3),
                "binary_f1": round(binary.f1, 3),
            }
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("gold", type=Path, help="gold JSONL or Parquet (docs/gold.md)")
    parser.add_argument("--unit", choices=UNITS, default="sentence")
    parser.add_argument("--categories", choices=CATEGORY_MODES, default="own")
    parser.add_argument("--context", choices=CONTEXT_MODES, default="unit")
    parser.add_argument("--ctx", type=int, default=4096)
    parser.add_argument("--model", type=Path, default=None, help="GGUF (default: embedded)")
    parser.add_argument("--threads", type=int, default=None, help="llama.cpp threads")
    parser.add_argument("--prompts", type=Path, default=None, help="prompts folder")
    parser.add_argument("--json", type=Path, default=None, help="write the figures here")
    parser.add_argument(
        "--units", type=Path, default=None, help="write every unit's score here (JSONL)"
    )
    args = parser.parse_args()

    gold = read_record_file(args.gold, "GOLD file")
    backend = make_backend(LlamaCppOptions(model=args.model, n_ctx=args.ctx, threads=args.threads))
    options = LabelOptions(
        strategy="sentences",
        unit=args.unit,
        categories=args.categories,
        answers="scored",
        context=args.context,
        context_tokens=args.ctx,
        backend=backend,
    )
    units: dict[str, list[ScoredUnit]] = {}
    special: set[str] = set()
    for language in sorted({r.language for r in gold}):
        pack = load_language_pack(language, args.prompts)
        special |= {pack.categories.categories[name].label for name in pack.categories.sensitive}
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
            scored = []
            for share, (start, end) in zip(shares, ranges, strict=True):
                best = max((i for i in range(len(share)) if i != negative), key=share.__getitem__)
                label = answers.labels[best]
                assert label is not None
                truth = (start, end) in sensitive
                by_label = {
                    str(answer): round(value, 4)
                    for answer, value in zip(answers.labels, share, strict=True)
                }
                scored.append(ScoredUnit(start, end, 1.0 - share[negative], label, truth, by_label))
            units[record.id] = scored
    pairs = [(u.sensitive, u.truth) for scored in units.values() for u in scored]
    per_document = [
        value
        for scored in units.values()
        if (value := auc([(u.sensitive, u.truth) for u in scored])) is not None
    ]
    overall = auc(pairs)
    print(
        f"{args.gold}: {len(pairs)} units ({sum(t for _, t in pairs)} sensitive), "
        f"model {backend.model_id}, --unit {args.unit} --categories {args.categories} "
        f"--context {args.context}"
    )
    print(f"AUC over all units: {'-' if overall is None else f'{overall:.3f}'}")
    if per_document:
        print(
            f"AUC within documents (mean of {len(per_document)}): "
            f"{statistics.mean(per_document):.3f}"
        )
    rows = threshold_rows(gold, units, special)
    print("\nthreshold  micro-F1  P      R      binary-F1")
    for row in rows:
        print(
            f"{row['threshold']:<10} {row['micro_f1']:<9} {row['precision']:<6} "
            f"{row['recall']:<6} {row['binary_f1']}"
        )
    if args.json:
        figures = {"auc": overall, "auc_within": per_document, "thresholds": rows}
        args.json.write_text(json.dumps(figures, indent=2))
    if args.units:
        texts = {r.id: r.text for r in gold}
        lines = [
            json.dumps({"id": key, **dataclasses.asdict(u), "text": texts[key][u.start : u.end]})
            for key, scored in units.items()
            for u in scored
        ]
        args.units.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
