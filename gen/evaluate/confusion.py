"""Which label the predictions give the tokens of each gold label."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gen.evaluate.counting import LabelSets

#: Row and column of the confusion matrix for tokens without a label.
NO_LABEL = "none"


@dataclass(frozen=True)
class Confusion:
    """Token counts: `matrix[i][j]` tokens with gold label `labels[i]` predicted `labels[j]`.

    A token with several labels on a side counts once per (gold, predicted) pair."""

    labels: list[str]
    matrix: list[list[int]]


def confusion_matrix(label_sets: LabelSets, labels: Sequence[str]) -> Confusion:
    names = [*labels, NO_LABEL]
    index = {name: i for i, name in enumerate(names)}
    matrix = [[0] * len(names) for _ in names]
    for gold, pred in label_sets:
        for gold_label in gold or {NO_LABEL}:
            for pred_label in pred or {NO_LABEL}:
                matrix[index[gold_label]][index[pred_label]] += 1
    return Confusion(labels=names, matrix=matrix)
