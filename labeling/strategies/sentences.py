"""Strategy `sentences`: the model labels each unit of a document (a sentence, or a finer
unit: `--unit`), and every sensitive unit becomes a span of its label.

Scored answers (`--answers scored`, chosen by `auto` where the backend can score): one
prompt per unit that ends where the label would start; the probabilities of the possible
labels are compared after one forward pass, without sampling, and the winner's share of
them is the span's `score` (`--min-score` drops weak spans). Generated answers: units are
numbered and sent in groups that fit the context window, and the model writes one label
per unit (see `labeling.strategies.numbered`). Either way the part of the prompt before
the units is the same for a whole category (`--categories own`) or for every document
(`all`), so llama.cpp keeps it cached from one prompt to the next.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from functools import partial

from gen.backends.base import can_score_labels
from gen.backends.scoring import answer_shares
from gen.core.errors import GenError, UsageError
from gen.core.records import Record, Span
from gen.text.units import split_units
from labeling.align.edges import trim_passage
from labeling.min_score import MinScore
from labeling.strategies import LabelerSetup, Strategy
from labeling.strategies.attempts import AnswerError, LlmLabeler, ask
from labeling.strategies.numbered import group_units, labels_grammar, parse_labels
from labeling.strategies.outcome import FAILED, MODEL_ERROR, OK, SKIPPED, StrategyOutcome
from labeling.strategies.unit_prompts import OWN, SentencesPrompts, UnitPrompts

NAME = "sentences"
SOURCE = "llm_sentences"
#: Tokens kept free besides the prompt and the answer (BOS/EOS, rounding of estimates).
_CONTEXT_MARGIN = 16

#: Every scored span kept.
KEEP_ALL = MinScore()
#: A unit's label (None: not sensitive) and, for scored answers, its probability.
Verdict = tuple[str | None, float | None]


def unit_spans(
    text: str,
    ranges: Sequence[tuple[int, int]],
    verdicts: Sequence[Verdict],
    *,
    merge_adjacent: bool = False,
    min_score: MinScore = KEEP_ALL,
) -> list[Span]:
    """A span per sensitive unit scoring at least its label's `min_score`; with
    `merge_adjacent`, neighbours of one label separated only by whitespace become one span
    (lowest score). Each is trimmed as planned spans are (`labeling.align.edges`): a quote
    that closes in the next unit, or the writer's HTML, is no part of it."""
    spans: list[Span] = []
    for (start, end), (label, score) in zip(ranges, verdicts, strict=True):
        if label is None or (score is not None and score < min_score.of(label)):
            continue
        previous = spans[-1] if spans else None
        if (
            merge_adjacent
            and previous
            and previous.label == label
            and not text[previous.end : start].strip()
        ):
            lowest = None if score is None else min(score, previous.score or score)
            spans[-1] = Span(previous.start, end, label, SOURCE, score=lowest)
        else:
            spans.append(Span(start, end, label, SOURCE, score=score))
    trimmed = [(span, trim_passage(text, span.start, span.end)) for span in spans]
    return [
        dataclasses.replace(span, start=edges[0], end=edges[1])
        for span, edges in trimmed
        if edges is not None
    ]


class SentenceLabeler(LlmLabeler):
    """Labels the documents of one language pack with the `sentences` strategy."""

    strategy = NAME

    def __init__(self, setup: LabelerSetup) -> None:
        super().__init__(setup)
        self.texts = UnitPrompts(self.pack, self.prompts, setup.options.categories)
        self.config: SentencesPrompts = self.texts.config
        self.unit = setup.options.unit
        self.min_score: MinScore = setup.options.min_score  # type: ignore[assignment]
        unknown = self.min_score.labels() - set(self.pack.categories.sensitive)
        if unknown:
            raise UsageError(
                f"--min-score names {', '.join(sorted(unknown))}, not a sensitive category of "
                f"the {self.pack.code} pack; expected one of "
                f"{', '.join(self.pack.categories.sensitive)}"
            )
        self.with_document = setup.options.context == "document"
        can_score = can_score_labels(self.backend)
        if setup.options.answers == "scored" and not can_score:
            raise UsageError(
                f"the {self.backend.name} backend cannot score labels here; use "
                "--answers generated (or auto)"
            )
        self.scored = setup.options.answers == "scored" or (
            setup.options.answers == "auto" and can_score
        )
        self._fixed_tokens: dict[tuple[str, bool], int] = {}

    def label(self, document: Record) -> StrategyOutcome:
        if self.texts.mode == OWN and not self.is_sensitive(document.category):
            return StrategyOutcome(NAME, SKIPPED, reason="not_sensitive")
        outcome = StrategyOutcome(NAME, OK)
        ranges = split_units(document.text, self.pack.units, self.unit)
        texts = [document.text[start:end] for start, end in ranges]
        outcome.details = {
            "units": len(ranges),
            "answers": "scored" if self.scored else "generated",
        }
        try:
            if self.scored:
                verdicts = self._scored(document, texts, outcome)
            else:
                verdicts = self._generated(document, texts, outcome)
        except AnswerError as exc:
            outcome.status, outcome.reason, outcome.detail = FAILED, exc.reason, exc.detail
            return outcome
        outcome.spans = unit_spans(
            document.text,
            ranges,
            verdicts,
            merge_adjacent=self.config.merge_adjacent,
            min_score=self.min_score,
        )
        sensitive = [(label, score) for label, score in verdicts if label is not None]
        outcome.details["sensitive_units"] = len(sensitive)
        outcome.details["weak_units_dropped"] = sum(
            score is not None and score < self.min_score.of(label) for label, score in sensitive
        )
        return outcome

    def _too_long(self, number: int) -> str:
        return f"unit {number} does not fit a context of {self.context_tokens}"

    def fixed_tokens(self, category: str, scored: bool) -> int:
        """Tokens of the prompt without its units (the part shared by every document) and,
        with `--context document`, without its document."""
        key = (category if self.texts.mode == OWN else "", scored)
        if key not in self._fixed_tokens:
            parts = (
                self.texts.unit_parts(category, "", "" if self.with_document else None)
                if scored
                else self.texts.numbered_parts(category, [])
            )
            fixed = self.count_tokens(self.renderer.render(parts).text)
            if fixed + 4 * _CONTEXT_MARGIN > self.context_tokens:
                raise UsageError(
                    f"the sentences prompt for category {category!r} takes {fixed} tokens, too "
                    f"many for a context of {self.context_tokens}; raise --ctx or shorten the "
                    f"examples in {self.pack.folder / 'labeling.yaml'}"
                )
            self._fixed_tokens[key] = fixed
        return self._fixed_tokens[key]

    def unit_probabilities(
        self, document: Record, texts: Sequence[str], outcome: StrategyOutcome
    ) -> list[list[float]]:
        """Per unit, the probability of each answer of `texts.answers(category)`, as a
        share of the answers' total: one prompt per unit, one forward pass each."""
        answers = self.texts.answers(document.category)
        fixed = self.fixed_tokens(document.category, scored=True)
        context = document.text if self.with_document else None
        if context is not None:
            fixed += self.count_tokens(context)
        shares: list[list[float]] = []
        for number, text in enumerate(texts, 1):
            needed = fixed + self.count_tokens(text) + _CONTEXT_MARGIN
            if needed > self.context_tokens:
                raise AnswerError(
                    "unit_too_long",
                    f"unit {number} does not fit a context of {self.context_tokens}"
                    + (" after its document" if context is not None else ""),
                )
            parts = self.texts.unit_parts(document.category, text, context)
            rendered = self.renderer.render(parts)
            started = time.perf_counter()
            try:
                unit_shares = answer_shares(
                    self.backend,  # type: ignore[arg-type]
                    rendered.text,
                    answers.words,
                )
            except GenError as exc:
                raise AnswerError(MODEL_ERROR, f"unit {number}: {exc}") from None
            outcome.seconds += time.perf_counter() - started
            outcome.prompt_tokens += needed - _CONTEXT_MARGIN
            if unit_shares is None:
                raise AnswerError("unscored_answer", f"unit {number}: no label among the answers")
            shares.append(unit_shares)
        return shares

    def _scored(
        self, document: Record, texts: Sequence[str], outcome: StrategyOutcome
    ) -> list[Verdict]:
        """Each unit's most probable label, with its share as the score."""
        answers = self.texts.answers(document.category)
        verdicts: list[Verdict] = []
        for shares in self.unit_probabilities(document, texts, outcome):
            best = max(range(len(shares)), key=shares.__getitem__)
            verdicts.append((answers.labels[best], shares[best]))
        return verdicts

    def _generated(
        self, document: Record, texts: Sequence[str], outcome: StrategyOutcome
    ) -> list[Verdict]:
        """Numbered units in groups that fit the context; one `n: label` line each."""
        answers = self.texts.answers(document.category)
        longest = max(answers.words, key=len)
        line = self.count_tokens(f"99: {longest}\n") + 1
        left = self.context_tokens - self.fixed_tokens(document.category, scored=False)
        left -= _CONTEXT_MARGIN
        costs = [self.count_tokens(f"{n}. {text}\n") + line for n, text in enumerate(texts, 1)]
        too_long = [n for n, cost in enumerate(costs, 1) if cost > left]
        if too_long:
            raise AnswerError(
                "unit_too_long",
                f"unit {too_long[0]} does not fit a context of {self.context_tokens}",
            )
        groups = group_units(costs, left, self.config.max_sentences_per_group)
        outcome.details["groups"] = len(groups)
        words: list[str] = []
        for index, group in enumerate(groups):
            parts = self.texts.numbered_parts(document.category, texts[group.start : group.stop])
            try:
                words += ask(
                    self.backend,
                    self.prompts,
                    self.renderer.render(parts),
                    max_tokens=line * len(group) + 8,
                    seed_parts=(self.seed, document.id, NAME, index),
                    outcome=outcome,
                    accept=partial(parse_labels, count=len(group), words=answers.words),
                    grammar=labels_grammar(len(group), answers.words),
                )
            except AnswerError as exc:
                raise AnswerError(
                    exc.reason, f"group {index + 1} of {len(groups)}: {exc.detail or exc.reason}"
                ) from None
        return [(answers.label(word), None) for word in words]


STRATEGY = Strategy(
    name=NAME,
    source=SOURCE,
    summary="one label per unit (sentence or clause), scored or generated",
    build=SentenceLabeler,
    prompts=SentencesPrompts,
    order=10,
)
