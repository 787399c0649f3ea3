"""How much two labeling strategies agree: a label-quality signal without a gold set.

Every pair of strategies that labeled the same documents is compared; every word token
of a document is "sensitive" for a strategy when one of its category spans touches it.
Over all tokens of a category's documents, Cohen's kappa corrects the raw agreement for
chance (most tokens are often negative for both) and F1 measures the overlap of the
positives. Where one strategy marked no token there is nothing to compare (kappa and F1
would be 0, read as total disagreement): both are None, and the report says so.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from gen.core.records import Span
from gen.text.words import word_owners, word_spans


def token_labels(text: str, spans: Iterable[Span]) -> list[str | None]:
    """Per word of `text` (the words of eval and the exports): the label of the span that
    owns it (`word_owners`), None outside every span."""
    owners = word_owners(word_spans(text), list(spans))
    return [None if owner is None else owner.label for owner in owners]


def token_flags(text: str, spans: Iterable[Span]) -> list[bool]:
    """Per word of `text`: does any span overlap it?"""
    return [label is not None for label in token_labels(text, spans)]


def cohen_kappa(first: Sequence[bool], second: Sequence[bool]) -> float | None:
    """Cohen's kappa of two binary labelings; None when chance agreement is total
    (both constant and equal), where kappa is undefined."""
    total = len(first)
    if total == 0 or total != len(second):
        return None
    observed = sum(a == b for a, b in zip(first, second, strict=True)) / total
    p_first = sum(first) / total
    p_second = sum(second) / total
    expected = p_first * p_second + (1 - p_first) * (1 - p_second)
    if expected == 1:
        return None
    return (observed - expected) / (1 - expected)


def f1(first: Sequence[bool], second: Sequence[bool]) -> float | None:
    """Symmetric F1 (Dice) of the positives; None when neither has any."""
    both = sum(a and b for a, b in zip(first, second, strict=True))
    positives = sum(first) + sum(second)
    return 2 * both / positives if positives else None


@dataclass
class Agreement:
    documents: int = 0
    tokens: int = 0
    #: Tokens each strategy marked sensitive.
    first_positive: int = 0
    second_positive: int = 0
    kappa: float | None = None
    f1: float | None = None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for key in ("kappa", "f1"):
            if data[key] is not None:
                data[key] = round(data[key], 4)
        return data


def agreement(documents: Iterable[tuple[str, Sequence[Span], Sequence[Span]]]) -> Agreement:
    """Token-level agreement over (text, first strategy's spans, second's spans)."""
    first: list[bool] = []
    second: list[bool] = []
    count = 0
    for text, first_spans, second_spans in documents:
        first += token_flags(text, first_spans)
        second += token_flags(text, second_spans)
        count += 1
    compared = any(first) and any(second)
    return Agreement(
        documents=count,
        tokens=len(first),
        first_positive=sum(first),
        second_positive=sum(second),
        kappa=cohen_kappa(first, second) if compared else None,
        f1=f1(first, second) if compared else None,
    )
