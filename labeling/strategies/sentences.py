"""Strategy `sentences`: the model labels each sentence of a document of category C
as C or NON_C, and every C sentence becomes a span.

Sentences are numbered and sent in groups that fit the context window; the model
answers with numbered labels only (`1: HEALTH`), never by repeating the text, and a
grammar generated for exactly K lines makes any other answer impossible on backends
that support grammars. The few-shot part of the prompt depends only on the category,
so it comes first and llama.cpp keeps it cached from one document to the next.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cached_property, partial

from gen.backends.prompting import PromptParts
from gen.core.errors import UsageError
from gen.core.records import Record, Span
from gen.text.sentences import split_sentences
from labeling.config import SentencesPrompts
from labeling.strategies.attempts import (
    FAILED,
    OK,
    AnswerError,
    LlmLabeler,
    StrategyOutcome,
    ask,
)

STRATEGY = "sentences"
SOURCE = "llm_sentences"
#: Tokens kept free besides the prompt and the answer (BOS/EOS, rounding of estimates).
_CONTEXT_MARGIN = 16

_ANSWER_LINE = re.compile(r"^\s*(\d+)\s*[:.)\-]?\s*([^\W\d][\w\- ]*?)\s*$")
_NOT_WORD = re.compile(r"[\W_]+")


def answer_words(label: str) -> tuple[str, str]:
    """The two answers for a category label: ("HEALTH", "NON_HEALTH")."""
    word = _NOT_WORD.sub("_", label).strip("_").upper()
    return word, f"NON_{word}"


def numbered(sentences: Sequence[str]) -> str:
    return "\n".join(f"{number}. {text}" for number, text in enumerate(sentences, 1))


def answer_lines(labels: Sequence[str]) -> str:
    return "\n".join(f"{number}: {label}" for number, label in enumerate(labels, 1))


def labels_grammar(count: int, positive: str, negative: str) -> str:
    """GBNF that accepts exactly `count` lines `n: LABEL`, numbered from 1."""
    lines = " ".join(f'"{number}: " label "\\n"' for number in range(1, count + 1))
    return f'root ::= {lines}\nlabel ::= "{positive}" | "{negative}"\n'


def parse_labels(answer: str, count: int, positive: str, negative: str) -> list[bool]:
    """One flag per sentence (True = sensitive) from an answer of numbered labels.

    Lenient on spelling (`1. health`, `2) non-health`), strict on what matters: the
    numbers run 1..count in order and every label is one of the two answers."""
    lines = [line for line in answer.splitlines() if line.strip()]
    if not lines:
        raise AnswerError("empty_answer")
    flags = []
    for expected, line in enumerate(lines, 1):
        match = _ANSWER_LINE.match(line)
        if not match:
            raise AnswerError("unparseable_answer", f"line {expected}: {line.strip()[:80]!r}")
        if int(match.group(1)) != expected:
            raise AnswerError("wrong_numbering", f"line {expected} is numbered {match.group(1)}")
        word = _NOT_WORD.sub("_", match.group(2)).strip("_").upper()
        if word not in (positive, negative):
            raise AnswerError(
                "unknown_label",
                f"line {expected}: {match.group(2)!r}, expected {positive} or {negative}",
            )
        flags.append(word == positive)
    if len(flags) != count:
        raise AnswerError("wrong_count", f"{len(flags)} labels for {count} sentences")
    return flags


def group_sentences(costs: Sequence[int], budget: int, max_per_group: int) -> list[range]:
    """Consecutive groups whose summed costs stay within `budget` (a sentence costing
    more than the budget gets a group of its own)."""
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


def sentence_spans(
    text: str,
    ranges: Sequence[tuple[int, int]],
    sensitive: Sequence[bool],
    label: str,
    *,
    merge_adjacent: bool = False,
) -> list[Span]:
    """A span per sensitive sentence; with `merge_adjacent`, neighbours separated only by
    whitespace become one span."""
    spans: list[Span] = []
    for (start, end), flag in zip(ranges, sensitive, strict=True):
        if not flag:
            continue
        previous = spans[-1] if spans else None
        if merge_adjacent and previous and not text[previous.end : start].strip():
            spans[-1] = Span(previous.start, end, label, SOURCE)
        else:
            spans.append(Span(start, end, label, SOURCE))
    return spans


class SentenceLabeler(LlmLabeler):
    """Labels the documents of one language pack with the `sentences` strategy."""

    strategy = STRATEGY

    @property
    def config(self) -> SentencesPrompts:
        return self.prompts.sentences

    @cached_property
    def _budgets(self) -> dict[str, tuple[int, int]]:
        return {}

    def parts(self, category: str, sentences: Sequence[str]) -> PromptParts:
        """The prompt for some sentences of a `category` document; everything before the
        sentences is the same for every document of the category."""
        info = self.prompts.categories[category]
        positive, negative = answer_words(self.pack.categories.categories[category].label)
        values = {
            "category": category,
            "description": info.description,
            "positive": positive,
            "negative": negative,
        }
        examples = self.config.example.format(
            sentences=numbered([example.text for example in info.sentence_examples]),
            labels=answer_lines(
                [positive if example.sensitive else negative for example in info.sentence_examples]
            ),
        )
        return PromptParts(
            system=self.config.system.format(**values),
            instruction=self.config.instruction.format(
                **values, examples=examples, sentences=numbered(sentences)
            ),
            response_prefix=self.config.response_prefix,
        )

    def budget(self, category: str) -> tuple[int, int]:
        """(tokens left for sentences and answers, tokens of one answer line)."""
        if category not in self._budgets:
            fixed = self.count_tokens(self.renderer.render(self.parts(category, [])).text)
            _, negative = answer_words(self.pack.categories.categories[category].label)
            line = self.count_tokens(f"99: {negative}\n") + 1
            left = self.context_tokens - fixed - _CONTEXT_MARGIN
            if left < 4 * line:
                raise UsageError(
                    f"the sentences prompt for category {category!r} takes {fixed} tokens, too "
                    f"many for a context of {self.context_tokens}; raise --ctx or shorten the "
                    f"examples in {self.pack.folder / 'labeling.yaml'}"
                )
            self._budgets[category] = (left, line)
        return self._budgets[category]

    def label(self, document: Record) -> StrategyOutcome:
        outcome = StrategyOutcome(STRATEGY, OK)
        ranges = split_sentences(document.text, document.language)
        texts = [document.text[start:end] for start, end in ranges]
        left, line = self.budget(document.category)
        costs = [self.count_tokens(f"{n}. {text}\n") + line for n, text in enumerate(texts, 1)]
        groups = group_sentences(costs, left, self.config.max_sentences_per_group)
        outcome.details = {"sentences": len(ranges), "groups": len(groups)}
        too_long = [n for n, cost in enumerate(costs, 1) if cost > left]
        if too_long:
            outcome.status, outcome.reason = FAILED, "sentence_too_long"
            outcome.detail = (
                f"sentence {too_long[0]} does not fit a context of {self.context_tokens}"
            )
            return outcome
        positive, negative = answer_words(self.pack.categories.categories[document.category].label)
        flags: list[bool] = []
        for index, group in enumerate(groups):
            rendered = self.renderer.render(
                self.parts(document.category, texts[group.start : group.stop])
            )
            try:
                flags += ask(
                    self.backend,
                    self.prompts,
                    rendered,
                    max_tokens=line * len(group) + 8,
                    seed_parts=(self.seed, document.id, STRATEGY, index),
                    outcome=outcome,
                    accept=partial(
                        parse_labels, count=len(group), positive=positive, negative=negative
                    ),
                    grammar=labels_grammar(len(group), positive, negative),
                )
            except AnswerError as exc:
                outcome.status, outcome.reason = FAILED, exc.reason
                outcome.detail = f"group {index + 1} of {len(groups)}: {exc.detail or exc.reason}"
                return outcome
        label = self.pack.categories.categories[document.category].label
        outcome.spans = sentence_spans(
            document.text, ranges, flags, label, merge_adjacent=self.config.merge_adjacent
        )
        outcome.details["sensitive_sentences"] = sum(flags)
        return outcome
