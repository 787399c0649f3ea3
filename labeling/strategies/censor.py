"""Strategy `censor`: the model rewrites a document with every sensitive passage replaced
by its category's tag, and the aligner (`labeling.align.aligner`) maps the tags back to spans of
the original.

With `--categories all` every document (also one generated as a negative) is asked about
every sensitive category at once, each with its own tag (`all_instruction`); otherwise a
document is asked about its own category, as in the thesis.

An answer that does not align is retried once; when the retry aligns no better, the
better of the two is kept if it yielded spans at all (flagged `alignment_low`), else the
strategy failed for this document. Either way the raw answers are kept.
"""

from __future__ import annotations

import math
from functools import cached_property
from typing import Annotated

from pydantic import Field, field_validator

from gen.backends.prompting import PromptParts
from gen.core.errors import InvalidSpanError, UsageError
from gen.core.packs import LanguagePack
from gen.core.placeholders import check_placeholders
from gen.core.records import Record, check_spans
from gen.core.yamlio import StrictModel
from labeling.align.aligner import Alignment, align_document
from labeling.config import LabelingPrompts, check_every_category
from labeling.strategies import LabelerSetup, Strategy
from labeling.strategies.attempts import AnswerError, LlmLabeler, ask
from labeling.strategies.outcome import FAILED, FLAGGED, OK, SKIPPED, StrategyOutcome
from labeling.strategies.unit_prompts import ALL

NAME = "censor"
SOURCE = "llm_censor"
#: Reason and flag suffix of a kept answer whose alignment scored below the threshold.
ALIGNMENT_LOW = "alignment_low"
#: Tokens the answer may use beyond the ratio (short documents, a closing line).
_ANSWER_MARGIN = 16
_CONTEXT_MARGIN = 16


_CATEGORY_FIELDS = {"category", "description", "tag"}

#: The text written inside brackets, e.g. HEALTH_DATA for [HEALTH_DATA].
Tag = Annotated[str, Field(min_length=1, pattern=r"^[^\[\]\n]+$")]


class CensorExample(StrictModel):
    original: str = Field(min_length=1)
    censored: str = Field(min_length=1)


class CensorPrompts(StrictModel):
    """The `censor:` block of labeling.yaml."""

    system: str = ""
    #: Placeholders: {category} {description} {tag} {example} {document}.
    instruction: str
    #: How the category's example is shown: {original} and {censored}.
    example: str = ""
    response_prefix: str = ""
    #: Answer budget as a multiple of the document's tokens (tags are shorter than passages).
    max_tokens_ratio: float = Field(1.3, gt=0)
    #: Alignments scoring below this are flagged (see `labeling.align.aligner`).
    flag_threshold: float = Field(0.6, ge=0, le=1)
    #: Per sensitive category: its tag. Tags must differ.
    tags: dict[str, Tag]
    #: `--categories all` (optional: without it only the own-category prompt exists).
    #: Placeholders: {tags} (one `tag_line` per category) {examples} {document}.
    all_instruction: str | None = None
    #: Placeholders: {tag} {description}.
    tag_line: str = "[{tag}]: {description}"
    #: Per sensitive category (optional): a document and its censored copy.
    examples: dict[str, CensorExample] = Field(default_factory=dict)

    @field_validator("system")
    @classmethod
    def _system(cls, value: str) -> str:
        return check_placeholders(value, _CATEGORY_FIELDS)

    @field_validator("instruction")
    @classmethod
    def _instruction(cls, value: str) -> str:
        return check_placeholders(
            value, _CATEGORY_FIELDS | {"example", "document"}, required="document"
        )

    @field_validator("example")
    @classmethod
    def _example(cls, value: str) -> str:
        return check_placeholders(value, {"original", "censored"})

    @field_validator("all_instruction")
    @classmethod
    def _all_instruction(cls, value: str | None) -> str | None:
        if value is None:
            return None
        return check_placeholders(value, {"tags", "examples", "document"}, required="document")

    @field_validator("tag_line")
    @classmethod
    def _tag_line(cls, value: str) -> str:
        return check_placeholders(value, {"tag", "description"}, required="tag")

    def check(self, pack: LanguagePack, prompts: LabelingPrompts) -> None:
        sensitive = pack.categories.sensitive
        check_every_category(self.tags, sensitive, "tags")
        if len(set(self.tags.values())) != len(self.tags):
            raise ValueError("tags: two categories share one tag; tags must differ")
        for name in self.examples:
            if name not in sensitive:
                raise ValueError(f"examples.{name}: not a sensitive category of categories.yaml")


class CensorLabeler(LlmLabeler):
    """Labels the documents of one language pack with the `censor` strategy."""

    strategy = NAME

    def __init__(self, setup: LabelerSetup) -> None:
        super().__init__(setup)
        self.every_category = setup.options.categories == ALL
        if self.every_category and self.config.all_instruction is None:
            raise UsageError(
                f"--categories all needs censor.all_instruction in "
                f"{self.pack.folder / 'labeling.yaml'} (the prompt that asks for every "
                "category's tag at once)"
            )

    @cached_property
    def config(self) -> CensorPrompts:
        return self.prompts.block(NAME, CensorPrompts)

    @cached_property
    def tags(self) -> dict[str, str]:
        """Every category's tag, so that a tag the model borrows from another category
        is still read as a tag rather than as text missing from the original."""
        return {tag: self.label_of(name) for name, tag in self.config.tags.items()}

    def example_text(self, category: str) -> str:
        """The category's censored example as the prompt shows it ("" without one)."""
        censor_example = self.config.examples.get(category)
        if censor_example is None or not self.config.example:
            return ""
        return self.config.example.format(
            original=censor_example.original, censored=censor_example.censored
        )

    def parts(self, category: str, text: str) -> PromptParts:
        """The prompt for a `category` document; the document text comes last, so the
        part before it is the same for a whole category (for every document with
        `--categories all`)."""
        if self.every_category:
            return self._every_category_parts(text)
        values = {
            "category": category,
            "description": self.prompts.categories[category].description,
            "tag": self.config.tags[category],
        }
        return PromptParts(
            system=self.config.system.format(**values),
            instruction=self.config.instruction.format(
                **values, example=self.example_text(category), document=text
            ),
            response_prefix=self.config.response_prefix,
        )

    def _every_category_parts(self, text: str) -> PromptParts:
        sensitive = self.pack.categories.sensitive
        tags = "\n".join(
            self.config.tag_line.format(
                tag=self.config.tags[name], description=self.prompts.categories[name].description
            )
            for name in sensitive
        )
        examples = "\n\n".join(filter(None, (self.example_text(name) for name in sensitive)))
        instruction = str(self.config.all_instruction)
        return PromptParts(
            system=self.config.system.format(category="", description="", tag=""),
            instruction=instruction.format(tags=tags, examples=examples, document=text),
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
        if not self.every_category and not self.is_sensitive(document.category):
            return StrategyOutcome(NAME, SKIPPED, reason="not_sensitive")
        outcome = StrategyOutcome(NAME, OK)
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
                seed_parts=(self.seed, document.id, NAME),
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


STRATEGY = Strategy(
    name=NAME,
    source=SOURCE,
    summary="the model rewrites the document with sensitive passages replaced by tags, "
    "aligned back to spans (needs a 7B+ model)",
    build=CensorLabeler,
    prompts=CensorPrompts,
    order=20,
)
