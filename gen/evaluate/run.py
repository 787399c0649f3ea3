"""Measure predicted spans against a gold set before anyone trains on them.

Three views of the same pairs of records, because each hides what another shows:
token overlap per label (how much text is labeled right, as in the thesis),
documents per label (would a document be flagged at all), and the SemEval-2013
entity schemes (are the span edges right), plus a token confusion matrix
between labels. Labels listed as negative (by default the non-sensitive
categories of `categories.yaml`: `other`) count as no label at all.

The steps live next door: `inputs` (reading and pairing the files), `counting`
(token and document label sets), `entities`, `confusion`, `scores` (P/R/F1).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Literal

from gen.core.errors import UsageError
from gen.core.packs import negative_labels
from gen.core.records import Record
from gen.evaluate.confusion import Confusion, confusion_matrix
from gen.evaluate.counting import SENSITIVE, collapse, count_labels, document_sets, token_sets
from gen.evaluate.entities import EntityScheme, entity_schemes
from gen.evaluate.inputs import DocumentPair, pair_records, read_gold_and_pred
from gen.evaluate.scores import Counts, Scores, ScoreTable, score_table

Grouping = Literal["label", "category", "source"]
GROUPINGS: tuple[Grouping, ...] = ("label", "category", "source")

#: Group holding every document, present whatever the grouping.
ALL = "all"


@dataclass(frozen=True)
class EvalReport:
    documents: int
    tokens: int
    labels: list[str]
    token_scores: ScoreTable
    token_binary: Scores
    document_scores: ScoreTable
    document_binary: Scores
    entities: dict[str, EntityScheme]
    confusion: Confusion


@dataclass(frozen=True)
class Evaluation:
    """Reports per group; group `all` always holds every document."""

    by: Grouping
    negative_labels: tuple[str, ...]
    groups: dict[str, EvalReport]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def evaluate_pairs(pairs: Sequence[DocumentPair], negative: Sequence[str]) -> EvalReport:
    tokens = list(token_sets(pairs, negative))
    documents = document_sets(pairs, negative)
    token_counts = count_labels(tokens)
    document_counts = count_labels(documents)
    labels = sorted(token_counts.keys() | document_counts.keys())
    return EvalReport(
        documents=len(pairs),
        tokens=len(tokens),
        labels=labels,
        token_scores=score_table({label: token_counts.get(label, Counts()) for label in labels}),
        token_binary=count_labels(collapse(tokens), [SENSITIVE])[SENSITIVE].scores(),
        document_scores=score_table(
            {label: document_counts.get(label, Counts()) for label in labels}
        ),
        document_binary=count_labels(collapse(documents), [SENSITIVE])[SENSITIVE].scores(),
        entities=entity_schemes(pairs, labels, negative),
        confusion=confusion_matrix(tokens, labels),
    )


def group_pairs(pairs: Sequence[DocumentPair], by: Grouping) -> dict[str, list[DocumentPair]]:
    """`all`, then one group per gold category, or per predicted span source (that
    source's spans only: one labeling strategy against the gold set)."""
    groups: dict[str, list[DocumentPair]] = {ALL: list(pairs)}
    if by == "category":
        for category in sorted({pair.category for pair in pairs}):
            groups[category] = [pair for pair in pairs if pair.category == category]
    elif by == "source":
        for source in sorted({span.source for pair in pairs for span in pair.pred}):
            groups[source] = [
                replace(pair, pred=tuple(s for s in pair.pred if s.source == source))
                for pair in pairs
            ]
    elif by != "label":
        raise UsageError(f"unknown grouping {by!r}; expected one of {', '.join(GROUPINGS)}")
    return groups


def evaluate(
    gold: Sequence[Record],
    pred: Sequence[Record],
    *,
    by: Grouping = "label",
    negative: Sequence[str] | None = None,
) -> Evaluation:
    """Every view, for all documents and per group; `negative` defaults to the labels of
    the non-sensitive categories of this checkout's `prompts/categories.yaml`."""
    negative = negative_labels() if negative is None else tuple(negative)
    pairs = pair_records(gold, pred)
    groups = {
        name: evaluate_pairs(group, negative) for name, group in group_pairs(pairs, by).items()
    }
    return Evaluation(by=by, negative_labels=negative, groups=groups)


def evaluate_files(
    gold_path: Path,
    pred_path: Path,
    *,
    by: Grouping = "label",
    negative: Sequence[str] | None = None,
) -> Evaluation:
    gold, pred = read_gold_and_pred(gold_path, pred_path)
    return evaluate(gold, pred, by=by, negative=negative)
