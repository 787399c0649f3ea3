"""Strategy `inline`: the spans the writer marked while writing (`gen documents
--inline-labels`), so labeling needs no second model pass.

The writer is asked to wrap every sensitive passage in its category's tag (tag names per
language pack, in the `inline:` block of labeling.yaml); `InlineLabels.parse` strips the
tags into spans of the clean text (`labeling.strategies.inline_tags`), which is what the
documents table stores, with the tagged text, the repairs and the problems in
`meta["inline"]`. `gen label --strategy inline` then reads those spans back (checked
against the text), so they are counted, compared with other strategies and kept.
"""

from __future__ import annotations

import dataclasses
from typing import Annotated, Any

from pydantic import Field, field_validator

from gen.backends.prompting import PromptParts
from gen.core.errors import InvalidSpanError
from gen.core.packs import LanguagePack
from gen.core.placeholders import check_placeholders
from gen.core.records import Record, check_spans
from gen.core.yamlio import StrictModel
from labeling.config import LabelingPrompts, check_every_category
from labeling.strategies import LabelerSetup, Strategy, load_labeling
from labeling.strategies.inline_tags import SOURCE, InlineParse, accepted_names, parse_inline
from labeling.strategies.outcome import FAILED, FLAGGED, OK, SKIPPED, StrategyOutcome

NAME = "inline"
#: `meta` key of a document written with inline labels.
META_KEY = "inline"

TagName = Annotated[str, Field(pattern=r"^[^\W\d][\w\-]*$")]


class InlinePrompts(StrictModel):
    """The `inline:` block of labeling.yaml."""

    #: Per sensitive category: the tag name, as in <health>...</health>.
    tags: dict[str, TagName]
    #: Added to the writer's instruction. Placeholders: {tags} (one `tag_line` each).
    instruction: str
    #: Placeholders: {tag} {description}.
    tag_line: str = "<{tag}>...</{tag}>: {description}"

    @field_validator("instruction")
    @classmethod
    def _instruction(cls, value: str) -> str:
        return check_placeholders(value, {"tags"}, required="tags")

    @field_validator("tag_line")
    @classmethod
    def _tag_line(cls, value: str) -> str:
        return check_placeholders(value, {"tag", "description"}, required="tag")

    def check(self, pack: LanguagePack, prompts: LabelingPrompts) -> None:
        check_every_category(self.tags, pack.categories.sensitive, "tags")
        accepted_names(self.tags, _labels(pack))


def _labels(pack: LanguagePack) -> dict[str, str]:
    return {name: pack.categories.categories[name].label for name in pack.categories.sensitive}


class InlineLabels:
    """The inline tags of one language pack: what the writer is told, and the parser."""

    def __init__(self, pack: LanguagePack, prompts: LabelingPrompts) -> None:
        config = prompts.block(NAME, InlinePrompts)
        self.language = pack.code
        self.names = accepted_names(config.tags, _labels(pack))
        lines = [
            config.tag_line.format(tag=tag, description=prompts.categories[name].description)
            for name, tag in config.tags.items()
        ]
        self.instruction = config.instruction.format(tags="\n".join(lines))

    @classmethod
    def of(cls, pack: LanguagePack) -> InlineLabels:
        return cls(pack, load_labeling(pack, needed=(NAME,)))

    def parse(self, tagged: str) -> InlineParse:
        return parse_inline(tagged, self.names, self.language)

    def prompt(self, parts: PromptParts) -> PromptParts:
        """The writer's prompt asking for tags around sensitive passages."""
        return dataclasses.replace(parts, instruction=f"{parts.instruction}\n\n{self.instruction}")

    def written(self, document: Record) -> Record:
        """A document whose text the writer tagged: clean text, `llm_inline` spans, the
        tagged text and what was repaired or not in `meta["inline"]`, flags for problems."""
        parsed = self.parse(document.text)
        return dataclasses.replace(
            document,
            text=parsed.text,
            spans=[*parsed.spans],
            flags=[*document.flags, *parsed.flags],
            meta={**document.meta, META_KEY: inline_meta(document.text, parsed)},
        )


def inline_meta(tagged: str, parsed: InlineParse) -> dict[str, Any]:
    """What a document written with inline labels keeps in `meta["inline"]`."""
    return {"tagged": tagged, "repairs": parsed.repairs, "problems": parsed.problems}


class InlineLabeler:
    """Reads back the spans a document was written with; asks no model."""

    def __init__(self, setup: LabelerSetup) -> None:
        self.setup = setup

    def label(self, document: Record) -> StrategyOutcome:
        written = document.meta.get(META_KEY)
        if not isinstance(written, dict):
            return StrategyOutcome(NAME, SKIPPED, reason="not_written_inline")
        spans = [span for span in document.spans if span.source == SOURCE]
        try:
            check_spans(document.text, spans, record_id=document.id)
        except InvalidSpanError as exc:
            return StrategyOutcome(NAME, FAILED, reason="invalid_span", detail=str(exc))
        problems = list(written.get("problems") or [])
        outcome = StrategyOutcome(NAME, OK, spans=spans)
        outcome.details = {"repairs": len(written.get("repairs") or [])}
        if problems:
            outcome.status, outcome.reason = FLAGGED, "tags_unresolved"
            outcome.detail = "; ".join(problems)
            outcome.answers = [str(written.get("tagged", ""))]
        return outcome


STRATEGY = Strategy(
    name=NAME,
    source=SOURCE,
    summary="the spans the writer tagged while writing (gen documents --inline-labels)",
    build=InlineLabeler,
    prompts=InlinePrompts,
    needs_model=False,
    order=30,
)
