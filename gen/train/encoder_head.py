"""The encoder detector's head: standardized features -> multinomial logistic regression.

Stored as plain arrays (no pickle), so a detector folder loads without scikit-learn and
cannot run code; fitted with scikit-learn's solver (balanced class weights: nearly every
unit is `none`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gen.train import require

#: Inverse regularization strength (the prototype's, kept on the gold dev split).
REGULARIZATION = 0.5
#: Thresholds tried per label on dev; a label with fewer dev units keeps the default.
THRESHOLDS = np.round(np.arange(0.2, 0.96, 0.05), 2)
DEFAULT_THRESHOLD = 0.5
MIN_DEV_UNITS = 3


@dataclass
class LinearHead:
    mean: np.ndarray
    scale: np.ndarray
    #: (classes, features) and (classes,): one row per class, class 0 is "none".
    coef: np.ndarray
    intercept: np.ndarray

    @classmethod
    def fit(cls, features: np.ndarray, targets: np.ndarray, classes: int) -> LinearHead:
        """A head over `classes` classes; a class absent from `targets` never wins."""
        preprocessing = require("sklearn.preprocessing", "train")
        linear_model = require("sklearn.linear_model", "train")
        scaler = preprocessing.StandardScaler().fit(features)
        scale = np.where(scaler.scale_ > 0, scaler.scale_, 1.0)
        model = linear_model.LogisticRegression(
            C=REGULARIZATION, class_weight="balanced", max_iter=2000
        ).fit((features - scaler.mean_) / scale, targets)
        coef = np.zeros((classes, features.shape[1]))
        intercept = np.full(classes, -1e9)
        if len(model.classes_) == 2:  # scikit-learn keeps one row for two classes
            negative, positive = model.classes_
            coef[positive], intercept[positive] = model.coef_[0], model.intercept_[0]
            coef[negative], intercept[negative] = 0.0, 0.0
        else:
            for row, label in enumerate(model.classes_):
                coef[label], intercept[label] = model.coef_[row], model.intercept_[row]
        return cls(scaler.mean_, scale, coef, intercept)

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, Any]) -> LinearHead:
        """The head stored by `arrays`; ValueError when their shapes do not fit together."""
        head = cls(*(np.asarray(arrays[name]) for name in ("mean", "scale", "coef", "intercept")))
        features = head.mean.shape
        shapes = {name: value.shape for name, value in head.arrays().items()}
        if (
            len(features) != 1
            or head.scale.shape != features
            or head.coef.shape != (len(head.intercept), *features)
            or head.intercept.ndim != 1
            or len(head.intercept) < 2
        ):
            raise ValueError(
                f"array shapes {shapes} do not fit: expected mean and scale (features,), "
                "coef (classes, features), intercept (classes,), at least 2 classes"
            )
        if any(value.dtype.kind != "f" for value in head.arrays().values()) or not all(
            np.isfinite(value).all() for value in head.arrays().values()
        ):
            raise ValueError("expected finite floating-point arrays")
        if not (head.scale > 0).all():
            raise ValueError("scale must be positive")
        return head

    def arrays(self) -> dict[str, np.ndarray]:
        return {
            "mean": self.mean,
            "scale": self.scale,
            "coef": self.coef,
            "intercept": self.intercept,
        }

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        """(units, classes) class probabilities."""
        logits = ((features - self.mean) / self.scale) @ self.coef.T + self.intercept
        logits -= logits.max(axis=1, keepdims=True)
        exp = np.exp(logits)
        return exp / exp.sum(axis=1, keepdims=True)


def best_thresholds(
    probabilities: np.ndarray,
    gold: np.ndarray,
    weights: np.ndarray,
    labels: Sequence[str],
    candidates: np.ndarray = THRESHOLDS,
) -> np.ndarray:
    """Per label, the threshold (of `candidates`) of the best length-weighted F1 on dev
    (`gold`: class index of each unit, 0 for none)."""
    best_label = probabilities[:, 1:].argmax(axis=1)
    best_score = probabilities[:, 1:].max(axis=1)
    thresholds = np.full(len(labels), DEFAULT_THRESHOLD)
    for index in range(len(labels)):
        truth = gold == index + 1
        if truth.sum() < MIN_DEV_UNITS:
            continue
        scores = []
        for threshold in candidates:
            predicted = (best_label == index) & (best_score >= threshold)
            tp = weights[predicted & truth].sum()
            denominator = weights[predicted].sum() + weights[truth].sum()
            scores.append(2 * tp / denominator if denominator else 0.0)
        thresholds[index] = candidates[int(np.argmax(scores))]
    return thresholds
