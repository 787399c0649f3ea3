"""Generated answers of the `sentences` strategy: numbered units, one `n: label` line each.

The model answers with numbered labels only (`1: HEALTH`), never by repeating the text, and
a grammar generated for exactly K lines makes any other answer impossible on backends that
take a grammar; elsewhere the answer is parsed leniently and retried when unusable.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from labeling.strategies.attempts import AnswerError

_ANSWER_LINE = re.compile(r"^\s*(\d+)\s*[:.)\-]?\s*([^\W\d][\w\- ]*?)\s*$")
_NOT_WORD = re.compile(r"[\W_]+")


def answer_word(label: str) -> str:
    """A label as an answer word: HEALTH for `health`, also how a model's answer is read
    back (`Non-Health` is NON_HEALTH)."""
    return _NOT_WORD.sub("_", label).strip("_").upper()


def labels_grammar(count: int, words: Sequence[str]) -> str:
    """GBNF that accepts exactly `count` lines `n: WORD`, numbered from 1."""
    lines = " ".join(f'"{number}: " label "\\n"' for number in range(1, count + 1))
    choices = " | ".join(f'"{word}"' for word in words)
    return f"root ::= {lines}\nlabel ::= {choices}\n"


def parse_labels(answer: str, count: int, words: Sequence[str]) -> list[str]:
    """One answer word per unit from an answer of numbered labels.

    Lenient on spelling (`1. health`, `2) non-health`), strict on what matters: the
    numbers run 1..count in order and every label is one of `words`."""
    lines = [line for line in answer.splitlines() if line.strip()]
    if not lines:
        raise AnswerError("empty_answer")
    known = {answer_word(word): word for word in words}
    found = []
    for expected, line in enumerate(lines, 1):
        match = _ANSWER_LINE.match(line)
        if not match:
            raise AnswerError("unparseable_answer", f"line {expected}: {line.strip()[:80]!r}")
        if int(match.group(1)) != expected:
            raise AnswerError("wrong_numbering", f"line {expected} is numbered {match.group(1)}")
        word = known.get(answer_word(match.group(2)))
        if word is None:
            raise AnswerError(
                "unknown_label",
                f"line {expected}: {match.group(2)!r}, expected one of {', '.join(words)}",
            )
        found.append(word)
    if len(found) != count:
        raise AnswerError("wrong_count", f"{len(found)} labels for {count} units")
    return found


def group_units(costs: Sequence[int], budget: int, max_per_group: int) -> list[range]:
    """Consecutive groups whose summed costs stay within `budget` (a unit costing more
    than the budget gets a group of its own)."""
    groups = []
    start, used = 0, 0
    for index, cost in enumerate(costs):
        if index > start and (used + cost > budget or index - start >= max_per_group):
            groups.append(range(start, index))
            start, used = index, 0
        used += cost
    if start < len(costs):
        groups.append(range(start, len(costs)))
    return groups
