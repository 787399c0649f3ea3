"""From a token classifier's windows to spans of words, as `gen eval` counts them.

The model reads a text in overlapping windows of sub-tokens; the words are those of
gen.text.words, each read on its first sub-token (as the `hf-tokens` export labels them).
A word seen by two windows takes the probabilities of the one where it has the more
context (the more tokens on its shorter side). A word becomes its most probable label
when that label's probability reaches the label's threshold (chosen on held-out
documents), else `O`; with units to snap to, a unit takes a snapped label when at least
`cover` of its words have it, and loses it otherwise. Runs of one label are spans; a
span's score is the mean probability of its words' label.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

import numpy as np

from gen.core.records import Span
from gen.text.words import spans_from_tags, words_in

Range = tuple[int, int]


def softmax(logits: np.ndarray) -> np.ndarray:
    """Probabilities over the last axis."""
    shifted = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return shifted / shifted.sum(axis=-1, keepdims=True)


def word_probabilities(
    words: int,
    starts: Sequence[Sequence[int | None]],
    probabilities: Sequence[np.ndarray],
    tags: int,
) -> np.ndarray:
    """(words, tags): each word's tag probabilities from the window (`starts[i]`: the word
    each of its tokens starts; `probabilities[i]`: tokens x tags) where it has the most
    context. A word no window starts (a tokenizer that drops a character) is `O`."""
    found = np.zeros((words, tags))
    found[:, 0] = 1.0
    context = np.full(words, -1)
    for window, scores in zip(starts, probabilities, strict=True):
        last = len(window) - 1
        for position, word in enumerate(window):
            if word is not None and min(position, last - position) > context[word]:
                context[word] = min(position, last - position)
                found[word] = scores[position]
    return found


def decide(probabilities: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    """Each word's class (0: `O`): its most probable label where that probability reaches
    the label's threshold (`thresholds[i]` is that of class i + 1)."""
    if not len(probabilities):
        return np.zeros(0, dtype=np.int64)
    best = probabilities[:, 1:].argmax(axis=1)
    sure = probabilities[np.arange(len(best)), best + 1] >= thresholds[best]
    return np.where(sure, best + 1, 0)


def snap_to_units(
    words: Sequence[Range],
    classes: np.ndarray,
    units: Sequence[Range],
    snapped: Collection[int],
    cover: float,
) -> np.ndarray:
    """`classes` where each unit takes the snapped class most of its words have, when at
    least `cover` of them have it (its `O` words join), and every other snapped class
    leaves it; classes not in `snapped` (identifiers) are kept as they are."""
    result = classes.copy()
    for start, end in units:
        inside = words_in(words, start, end)
        if not inside:
            continue
        segment = result[inside.start : inside.stop]
        shares = {c: float(np.mean(segment == c)) for c in snapped if (segment == c).any()}
        winner = max(shares, key=shares.__getitem__) if shares else None
        if winner is not None and shares[winner] < cover:
            winner = None
        segment[np.isin(segment, [c for c in shares if c != winner])] = 0
        if winner is not None:
            segment[segment == 0] = winner
    return result


def scored_spans(
    words: Sequence[Range],
    classes: np.ndarray,
    probabilities: np.ndarray,
    tags: Sequence[str],
    source: str,
) -> list[Span]:
    """Runs of one class as spans, each scored with the mean probability of its class over
    its words."""
    spans = []
    for span in spans_from_tags(words, [tags[c] for c in classes], source=source):
        inside = words_in(words, span.start, span.end)
        chosen = probabilities[np.arange(inside.start, inside.stop), classes[inside.start]]
        spans.append(
            Span(span.start, span.end, span.label, source, score=round(float(chosen.mean()), 4))
        )
    return spans
