"""Measure predicted spans against a gold set before anyone trains on them.

Three views of the same pairs of records, because each hides what another shows:
token overlap per label (how much text is labeled right, as in the thesis),
documents per label (would a document be flagged at all), and the SemEval-2013
entity schemes (are the span edges right), plus a token confusion matrix
between labels. Labels listed as negative (`other`: not sensitive) count as
no label at all.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from nervaluate import Evaluator

from gen.core.errors import UsageError
from gen.core.records import Record, Span
from gen.evaluate.inputs import DocumentPair, pair_records, read_gold_and_pred
from gen.evaluate.scores import Counts, Scores, ScoreTable, score_table
from gen.text.words import word_spans

#: Labels that mean "nothing sensitive here"; spans of them count as unlabeled text.
NEGATIVE_LABELS = ("other",)

#: Name of the single class of the binary collapse (any non-negative label).
SENSITIVE = "sensitive"

#: Row and column of the confusion matrix for tokens without a label.
NO_LABEL = "none"

#: SemEval-2013 scheme names and nervaluate's names for them.
SCHEMES = {"strict": "strict", "exact": "exact", "partial": "partial", "type": "ent_type"}

Grouping = Literal["label", "category", "source"]
GROUPINGS: tuple[Grouping, ...] = ("label", "category", "source")

#: Group holding every document, present whatever the grouping.
ALL = "all"


@dataclass(frozen=True)
class EntityScores:
    """SemEval-2013 counts: correct, incorrect, partial, missing, spurious."""

    cor: int
    inc: int
    par: int
    mis: int
    spu: int
    precision: float
    recall: float
    f1: float


@dataclass(frozen=True)
class EntityScheme:
    overall: EntityScores
    per_label: dict[str, EntityScores] = field(default_factory=dict)


@dataclass(frozen=True)
class Confusion:
    """Token counts: `matrix[i][j]` tokens with gold label `labels[i]` predicted `labels[j]`.

    A token with several labels on a side counts once per (gold, predicted) pair."""

    labels: list[str]
    matrix: list[list[int]]


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


# -- counting ---------------------------------------------------------------------------

#: (gold labels, predicted labels) of one token or one document.
LabelSetPair = tuple[frozenset[str], frozenset[str]]
LabelSets = Iterable[LabelSetPair]


_NONE: frozenset[str] = frozenset()
_SENSITIVE_SET = frozenset({SENSITIVE})


def token_label_sets(
    tokens: Sequence[tuple[int, int]],
    spans: Iterable[Span],
    negative: Iterable[str] = NEGATIVE_LABELS,
) -> list[frozenset[str]]:
    """The labels of each token (`word_spans`: the words of the exports); a token belongs
    to every span it overlaps."""
    starts = [start for start, _ in tokens]
    ends = [end for _, end in tokens]
    labels = [_NONE] * len(tokens)
    skipped = set(negative)
    for span in spans:
        if span.label in skipped:
            continue
        first = bisect.bisect_right(ends, span.start)
        last = bisect.bisect_left(starts, span.end)
        for index in range(first, last):
            labels[index] = labels[index] | {span.label}
    return labels


def _token_sets(pairs: Iterable[DocumentPair], negative: Sequence[str]) -> Iterator[LabelSetPair]:
    for pair in pairs:
        tokens = word_spans(pair.text)
        gold = token_label_sets(tokens, pair.gold, negative)
        pred = token_label_sets(tokens, pair.pred, negative)
        yield from zip(gold, pred, strict=True)


def _document_sets(pairs: Iterable[DocumentPair], negative: Sequence[str]) -> list[LabelSetPair]:
    def labels(spans: Iterable[Span]) -> frozenset[str]:
        return frozenset(span.label for span in spans if span.label not in negative)

    return [(labels(pair.gold), labels(pair.pred)) for pair in pairs]


def count_labels(label_sets: LabelSets, labels: Iterable[str] = ()) -> dict[str, Counts]:
    """TP = |P ∩ GT|, FP = |P − GT|, FN = |GT − P| per label, over the instances
    (tokens or documents) given as (gold labels, predicted labels)."""
    tp: Counter[str] = Counter()
    fp: Counter[str] = Counter()
    fn: Counter[str] = Counter()
    for gold, pred in label_sets:
        if gold == pred:
            tp.update(gold)
            continue
        tp.update(gold & pred)
        fn.update(gold - pred)
        fp.update(pred - gold)
    names = set(labels) | tp.keys() | fp.keys() | fn.keys()
    return {label: Counts(tp=tp[label], fp=fp[label], fn=fn[label]) for label in names}


def collapse(label_sets: LabelSets) -> list[LabelSetPair]:
    """Any label becomes `sensitive`: the binary view (sensitive or not)."""
    return [
        (_SENSITIVE_SET if gold else _NONE, _SENSITIVE_SET if pred else _NONE)
        for gold, pred in label_sets
    ]


def confusion_matrix(label_sets: LabelSets, labels: Sequence[str]) -> Confusion:
    names = [*labels, NO_LABEL]
    index = {name: i for i, name in enumerate(names)}
    matrix = [[0] * len(names) for _ in names]
    for gold, pred in label_sets:
        for gold_label in gold or {NO_LABEL}:
            for pred_label in pred or {NO_LABEL}:
                matrix[index[gold_label]][index[pred_label]] += 1
    return Confusion(labels=names, matrix=matrix)


def _entities(spans: Iterable[Span], negative: Sequence[str]) -> list[dict[str, Any]]:
    # nervaluate's entity ends are inclusive.
    return [
        {"label": s.label, "start": s.start, "end": s.end - 1}
        for s in spans
        if s.label not in negative
    ]


def _entity_scores(result: Any) -> EntityScores:
    return EntityScores(
        cor=result.correct,
        inc=result.incorrect,
        par=result.partial,
        mis=result.missed,
        spu=result.spurious,
        precision=result.precision,
        recall=result.recall,
        f1=result.f1,
    )


_NO_ENTITIES = EntityScores(0, 0, 0, 0, 0, 0.0, 0.0, 0.0)


def entity_schemes(
    pairs: Sequence[DocumentPair], labels: Sequence[str], negative: Sequence[str] = NEGATIVE_LABELS
) -> dict[str, EntityScheme]:
    """Strict, exact, partial and type schemes (SemEval-2013), computed by nervaluate."""
    gold = [_entities(pair.gold, negative) for pair in pairs]
    pred = [_entities(pair.pred, negative) for pair in pairs]
    results = Evaluator(gold, pred, tags=list(labels), loader="dict").evaluate() if pairs else {}
    overall = results.get("overall", {})
    per_label = results.get("entities", {})
    return {
        scheme: EntityScheme(
            overall=_entity_scores(overall[name]) if name in overall else _NO_ENTITIES,
            per_label={
                label: _entity_scores(per_label[label][name])
                for label in labels
                if name in per_label.get(label, {})
            },
        )
        for scheme, name in SCHEMES.items()
    }


# -- reports ----------------------------------------------------------------------------


def evaluate_pairs(
    pairs: Sequence[DocumentPair], negative: Sequence[str] = NEGATIVE_LABELS
) -> EvalReport:
    tokens = list(_token_sets(pairs, negative))
    documents = _document_sets(pairs, negative)
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
    negative: Sequence[str] = NEGATIVE_LABELS,
) -> Evaluation:
    pairs = pair_records(gold, pred)
    groups = {
        name: evaluate_pairs(group, negative) for name, group in group_pairs(pairs, by).items()
    }
    return Evaluation(by=by, negative_labels=tuple(negative), groups=groups)


def evaluate_files(
    gold_path: Path,
    pred_path: Path,
    *,
    by: Grouping = "label",
    negative: Sequence[str] = NEGATIVE_LABELS,
) -> Evaluation:
    gold, pred = read_gold_and_pred(gold_path, pred_path)
    return evaluate(gold, pred, by=by, negative=negative)
