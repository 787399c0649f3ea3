"""Scoring a fixed set of answers instead of generating one (`LabelScorer.label_logprobs`).

A label's probability is read from the distribution of the first answer token, after one
forward pass over the prompt: P(answer starts with " health") = P(first token = " health").
Labels must start with different tokens, so their probabilities are those of disjoint
events and sum to at most 1. The first token of a label is found by tokenizing the end of
the prompt with and without the label, so a tokenizer that adds a space marker or merges
characters across the boundary is handled the way it will really see the text.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from gen.backends.base import LabelScorer
from gen.core.errors import ModelError

#: Characters of the prompt's end tokenized with each label; enough for any token boundary.
_TAIL_CHARS = 48


def answer_shares(scorer: LabelScorer, prompt: str, answers: Sequence[str]) -> list[float] | None:
    """Each answer's probability after `prompt` as a share of the answers' total (one
    forward pass; a space goes before each answer unless the prompt ends in one), or None
    when the model gives none of them any probability. Raises the backend's GenError."""
    space = "" if prompt[-1:].isspace() else " "
    logprobs = scorer.label_logprobs(prompt, [space + answer for answer in answers])
    probabilities = [math.exp(value) for value in logprobs]
    total = sum(probabilities)
    if total <= 0:
        return None
    return [probability / total for probability in probabilities]


def label_first_tokens(
    tokenize: Callable[[str], Sequence[int]], prompt: str, labels: Sequence[str]
) -> list[int]:
    """The token id each label's answer starts with; ModelError when two labels share it
    or a label merges with the end of the prompt."""
    tail = prompt[-_TAIL_CHARS:]
    before = list(tokenize(tail))
    firsts = []
    for label in labels:
        after = list(tokenize(tail + label))
        if after[: len(before)] != before or len(after) == len(before):
            raise ModelError(
                f"the label {label!r} merges with the end of the prompt into one token; "
                "end the response prefix with a space, a colon or a newline"
            )
        firsts.append(after[len(before)])
    for index, token in enumerate(firsts):
        other = firsts.index(token)
        if other != index:
            raise ModelError(
                f"the labels {labels[other]!r} and {labels[index]!r} start with the same token "
                "for this model, so their probabilities cannot be told apart; choose answers "
                "that differ in their first word"
            )
    return firsts


def logprobs_of(logits: np.ndarray, tokens: Sequence[int]) -> list[float]:
    """log softmax of one row of logits, at `tokens`."""
    row = logits.astype(np.float64)
    shifted = row - row.max()
    log_total = math.log(float(np.exp(shifted).sum()))
    return [float(shifted[token]) - log_total for token in tokens]


def logprobs_from_top(top: Mapping[str, float], labels: Sequence[str]) -> list[float]:
    """Label log-probabilities from a server's top first tokens (text -> logprob), where the
    tokenizer is unknown: a token counts for the one label it begins; a token that begins
    several labels (a bare space) tells them apart from none and is left out."""
    totals = [0.0] * len(labels)
    for token, logprob in top.items():
        if not token.strip():
            continue
        owners = [i for i, label in enumerate(labels) if label.startswith(token)]
        if len(owners) == 1:
            totals[owners[0]] += math.exp(logprob)
    return [math.log(total) if total > 0 else -math.inf for total in totals]
