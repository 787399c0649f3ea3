"""Strategy `censor`: the model rewrites a document with every sensitive passage replaced
by its category's tag, and the aligner (`labeling.align.aligner`) maps the tags back to spans of
the original.

An answer that does not align is retried once; when the retry aligns no better, the
better of the two is kept if it yielded spans at all (flagged `alignment_low`), else the
strategy failed for this document. Either way the raw answers are kept.
"""

from __future__ import annotations

import math
from functools import cached_property

from gen.backends.prompting import PromptParts
from gen.core.errors import InvalidSpanError
from gen.core.records import Record, check_spans
from labeling.align.aligner import Alignment, align_document
from labeling.config import CensorPrompts
from labeling.strategies.attempts import (
    FAILED,
    FLAGGED,
    OK,
    AnswerError,
    LlmLabeler,
    StrategyOutcome,
    ask,
)

STRATEGY = "censor"
SOURCE = "llm_censor"
#: Reason and flag suffix of a kept answer whose alignment scored below the threshold.
ALIGNMENT_LOW = "alignment_low"
#: Tokens the answer may use beyond the ratio (short documents, a closing line).
_ANSWER_MARGIN = 16
_CONTEXT_MARGIN = 16


class CensorLabeler(LlmLabeler):
    """Labels the documents of one language pack with the `censor` strategy."""

    strategy = STRATEGY

    @property
    def config(self) -> CensorPrompts:
        return self.prompts.censor

    @cached_property
    def tags(self) -> dict[str, str]:
        """Every category's tag, so that a tag the model borrows from another category
        is still read as a tag rather than as text missing from the original."""
        return {
            info.tag: self.pack.categories.categories[name].label
            for name, info in self.prompts.categories.items()
        }

    def parts(self, category: str, text: str) -> PromptParts:
        """The prompt for a `category` document; the document text comes last."""
        info = self.prompts.categories[category]
        values = {"category": category, "description": info.description, "tag": info.tag}
        example = ""
        if info.censor_example is not None and self.config.example:
            example = self.config.example.format(
                original=info.censor_example.original, censored=info.censor_example.censored
            )
        return PromptParts(
            system=self.config.system.format(**values),
            instruction=self.config.instruction.format(**values, example=example, document=text),
            response_prefix=self.config.response_prefix,
        )

    def _align(self, document: Record, answer: str, usable: list[Alignment]) -> Alignment:
        """Accept an answer whose alignment passes; remember every one with valid spans."""
        if not answer.strip():
            raise AnswerError("empty_answer")
        alignment = align_document(
            document.text, answer, self.tags, threshold=self.config.flag_threshold
        )
        try:
            check_spans(document.text, alignment.spans, record_id=document.id)
        except InvalidSpanError as exc:
            raise AnswerError("invalid_span", str(exc)) from None
        if alignment.flagged:
            if alignment.spans:
                usable.append(alignment)
            raise AnswerError("alignment_failed", alignment.reason or alignment.quality)
        return alignment

    def label(self, document: Record) -> StrategyOutcome:
        outcome = StrategyOutcome(STRATEGY, OK)
        rendered = self.renderer.render(self.parts(document.category, document.text))
        max_tokens = (
            math.ceil(self.count_tokens(document.text) * self.config.max_tokens_ratio)
            + _ANSWER_MARGIN
        )
        needed = self.count_tokens(rendered.text) + max_tokens + _CONTEXT_MARGIN
        if needed > self.context_tokens:
            outcome.status, outcome.reason = FAILED, "document_too_long"
            outcome.detail = (
                f"prompt and answer need {needed} tokens, the context has {self.context_tokens}"
            )
            return outcome
        usable: list[Alignment] = []
        try:
            alignment = ask(
                self.backend,
                self.prompts,
                rendered,
                max_tokens=max_tokens,
                seed_parts=(self.seed, document.id, STRATEGY),
                outcome=outcome,
                accept=lambda answer: self._align(document, answer, usable),
            )
        except AnswerError as exc:
            if not usable:
                outcome.status, outcome.reason, outcome.detail = FAILED, exc.reason, exc.detail
                return outcome
            alignment = max(usable, key=lambda candidate: candidate.score)
            outcome.status, outcome.reason = FLAGGED, ALIGNMENT_LOW
            outcome.detail = alignment.reason or ""
        outcome.spans = list(alignment.spans)
        outcome.details = {
            "quality": alignment.quality,
            "score": round(alignment.score, 4),
            "coverage": round(alignment.coverage, 4),
        }
        return outcome
