"""`--min-score`: the label probability a scored unit needs to become a span, one value for
every label or one per label.

Written `0.8` (every label) or `0.8,sexuality=0.4` (every label 0.8, sexuality 0.4). Why per
label: a model can score one category low across the board while still ranking its units
well. Qwen2.5-Coder-1.5B gives sexuality and gender-identity units lower probabilities than
the other categories' units, so one threshold that suits the others drops most of them (on
the gold dev split sexuality F1 0.12 at 0.8, 0.56 at 0.4; docs/labeling.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gen.core.errors import UsageError
from gen.core.thresholds import parse_thresholds, probability

_OPTION = "--min-score"
_FORMAT = (
    "a probability such as 0.8, optionally followed by label=probability pairs (0.8,sexuality=0.4)"
)


@dataclass(frozen=True)
class MinScore:
    default: float = 0.0
    #: (label, probability) pairs, sorted by label: the labels that differ from `default`.
    by_label: tuple[tuple[str, float], ...] = ()

    def of(self, label: str) -> float:
        return dict(self.by_label).get(label, self.default)

    def labels(self) -> set[str]:
        return {label for label, _ in self.by_label}

    def __str__(self) -> str:
        return ",".join(
            [f"{self.default:g}", *(f"{label}={value:g}" for label, value in self.by_label)]
        )

    @classmethod
    def parse(cls, text: str | float, labels: Sequence[str] | None = None) -> MinScore:
        """A MinScore from `0.8` or `0.8,label=0.4,...`; a usage error names what is wrong,
        a label that is none of `labels` (when given) first of all."""
        if isinstance(text, int | float):
            return cls(probability(str(text), text, _OPTION, _FORMAT))
        default, by_label = parse_thresholds(
            text, _OPTION, _FORMAT, labels, unknown="no sensitive category"
        )
        if default is None:
            raise UsageError(f"{_OPTION} {text!r} has no value for every label; expected {_FORMAT}")
        return cls(default, tuple(sorted(by_label.items())))
