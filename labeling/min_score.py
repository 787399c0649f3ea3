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
            return cls(_probability(str(text), text))
        default: float | None = None
        by_label: dict[str, float] = {}
        for item in (piece.strip() for piece in str(text).split(",")):
            label, equals, value = item.partition("=")
            if not equals:
                number = _probability(text, item)
                if default is not None:
                    raise UsageError(
                        f"--min-score {text!r} has two default values; expected {_FORMAT}"
                    )
                default = number
                continue
            label = label.strip()
            if labels is not None and label and label not in labels:
                raise UsageError(
                    f"--min-score {text!r}: {label!r} is no sensitive category; expected one "
                    f"of {', '.join(labels)}"
                )
            if not label or label in by_label:
                raise UsageError(
                    f"--min-score {text!r}: {'a repeated' if label else 'an empty'} label in "
                    f"{item!r}; expected {_FORMAT}"
                )
            by_label[label] = _probability(text, value)
        if default is None:
            raise UsageError(
                f"--min-score {text!r} has no value for every label; expected {_FORMAT}"
            )
        return cls(default, tuple(sorted(by_label.items())))


def _probability(text: str, value: str | float) -> float:
    try:
        number = float(value)
    except ValueError:
        raise UsageError(
            f"--min-score {text!r}: {value!r} is not a number; expected {_FORMAT}"
        ) from None
    if not 0.0 <= number <= 1.0:
        raise UsageError(f"--min-score {text!r}: {value} is not between 0 and 1")
    return number
