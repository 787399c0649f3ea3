"""`prompts/<language>/generation.yaml`: how documents are asked for in one language.

The prompts (with their placeholders checked on load), the prompt format, the sampling
settings, the checks an answer must pass, and the chatter phrases a model wraps around a
document in that language (removed before the checks).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Annotated

from pydantic import Field, ValidationInfo, field_validator

from gen.core.grammar import check_no_slash_form
from gen.core.placeholders import check_placeholders, placeholders
from gen.core.records import PERSONA_FIELDS
from gen.core.yamlio import StrictModel

#: `format: chat` means the model's own chat template rather than a raw format.
CHAT_FORMAT = "chat"


class SamplingConfig(StrictModel):
    temperature: float = Field(0.9, ge=0)
    top_p: float = Field(0.7, gt=0, le=1)
    top_k: int = Field(0, ge=0)
    repeat_penalty: float = Field(1.1, gt=0)
    #: Without --max-tokens, a document's token budget is its type's `words` times this:
    #: the tokens a word of the language takes, with room for a writer that runs long.
    tokens_per_word: float = Field(2.0, gt=0, le=20)


class DocumentChecks(StrictModel):
    min_chars: int = Field(200, ge=1)
    near_duplicate_ratio: float = Field(92, gt=0, le=100)


def _check_regexes(phrases: tuple[str, ...]) -> tuple[str, ...]:
    for number, phrase in enumerate(phrases, 1):
        try:
            re.compile(phrase)
        except re.error as exc:
            raise ValueError(
                f"phrase {number} {phrase!r} is not a valid regular expression ({exc})"
            ) from None
    try:
        re.compile("(?:" + "|".join(phrases) + ")")
    except re.error as exc:
        raise ValueError(f"the phrases do not combine into one expression ({exc})") from None
    return phrases


class Chatter(StrictModel):
    """How the model talks around a document in this language: phrases (regular expressions,
    case-insensitive) that open a preamble line or a closing remark, removed before the checks
    (see gen.generate.postprocess), and phrases of a refusal to write the document, which
    reject it wherever they stand (reason `refusal`)."""

    preamble: tuple[Annotated[str, Field(min_length=1)], ...] = ()
    closing: tuple[Annotated[str, Field(min_length=1)], ...] = ()
    refusal: tuple[Annotated[str, Field(min_length=1)], ...] = ()

    @field_validator("preamble", "closing", "refusal")
    @classmethod
    def _valid_regexes(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return _check_regexes(value)


#: `{length}` and `{layout}`: the document type's usual words and layout (taxonomy.yaml).
GENERATION_FIELDS = {
    "doc_type",
    "sensitive_info",
    "category",
    "length",
    "layout",
    *PERSONA_FIELDS,
}


def check_persona_template(template: str, allowed: set[str], gendered: Collection[str]) -> str:
    """`template` if it uses only `allowed` names and the pack's `gendered` words and offers
    no gender alternatives in writing; else ValueError (an unknown name also says where
    gendered words are declared)."""
    known = allowed | set(gendered)
    try:
        check_placeholders(template, known)
    except ValueError as exc:
        if placeholders(template) - known:
            raise ValueError(
                f"{exc}; a word that follows the persona's gender is declared under "
                "`gendered:` in language.yaml"
            ) from None
        raise
    return check_no_slash_form(template)


class GenerationPrompts(StrictModel):
    format: str = CHAT_FORMAT
    system: str
    instruction: str
    other_instruction: str
    response_prefix: str = ""
    sampling: SamplingConfig = SamplingConfig()
    checks: DocumentChecks = DocumentChecks()
    #: Required, so that a pack copied before it existed says so instead of keeping chatter.
    chatter: Chatter

    @field_validator("instruction", "other_instruction", "system")
    @classmethod
    def _known_placeholders(cls, value: str, info: ValidationInfo) -> str:
        gendered = (info.context or {}).get("gendered", ())
        return check_persona_template(value, GENERATION_FIELDS, gendered)

    @field_validator("response_prefix")
    @classmethod
    def _one_form(cls, value: str) -> str:
        return check_no_slash_form(value)
