"""Which labels each instance has on each side, and the TP/FP/FN counts from them.

Instances are word tokens (the words of `gen.text.words`, as in every export) or
whole documents; each is a pair (gold labels, predicted labels). Labels listed
as negative (`other`: not sensitive) count as no label at all.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence

from gen.core.records import Span
from gen.evaluate.inputs import DocumentPair
from gen.evaluate.scores import Counts
from gen.text.words import word_spans, words_in

#: Name of the single class of the binary collapse (any non-negative label).
SENSITIVE = "sensitive"

#: (gold labels, predicted labels) of one token or one document.
LabelSetPair = tuple[frozenset[str], frozenset[str]]
LabelSets = Iterable[LabelSetPair]

NONE: frozenset[str] = frozenset()
_SENSITIVE_SET = frozenset({SENSITIVE})


def token_label_sets(
    tokens: Sequence[tuple[int, int]], spans: Iterable[Span], negative: Iterable[str]
) -> list[frozenset[str]]:
    """The labels of each token; a token belongs to every span it overlaps."""
    labels = [NONE] * len(tokens)
    skipped = set(negative)
    for span in spans:
        if span.label in skipped:
            continue
        for index in words_in(tokens, span.start, span.end):
            labels[index] = labels[index] | {span.label}
    return labels


def token_sets(pairs: Iterable[DocumentPair], negative: Sequence[str]) -> Iterator[LabelSetPair]:
    """(gold, predicted) labels of every word token of every pair."""
    for pair in pairs:
        tokens = word_spans(pair.text)
        gold = token_label_sets(tokens, pair.gold, negative)
        pred = token_label_sets(tokens, pair.pred, negative)
        yield from zip(gold, pred, strict=True)


def document_sets(pairs: Iterable[DocumentPair], negative: Sequence[str]) -> list[LabelSetPair]:
    """(gold, predicted) labels of every document: the labels of its spans."""

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
        (_SENSITIVE_SET if gold else NONE, _SENSITIVE_SET if pred else NONE)
        for gold, pred in label_sets
    ]
