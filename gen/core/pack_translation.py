"""`prompts/<language>/translation.yaml`: how `gen translate` asks a model to translate a
labeled text into the pack's language, with every span wrapped in a tag naming its label.

The file lives in the pack of the language translated **into**: it names that language in
its instruction, says how each kind of span is carried over (`rules`: names, e-mail
addresses and codes are kept as written, the rest translated, dates written the local
way), and gives one example of a tagged text and its tagged translation. Only `gen
translate` reads it.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator

from gen.core.pack_generation import CHAT_FORMAT, RetrySampling
from gen.core.placeholders import check_placeholders, template_pieces
from gen.core.records import label_problem
from gen.core.yamlio import StrictModel

TRANSLATION_FILE = "translation.yaml"
#: How a span's words are carried over: copied unchanged, or translated with the text.
Rule = Literal["keep", "translate"]
KEEP: Rule = "keep"
TRANSLATE: Rule = "translate"

_INSTRUCTION_FIELDS = ("source_language", "keep_tags", "example", "text")
_PHRASE_FIELDS = ("source_language", "context", "text")


class TranslationExample(StrictModel):
    """A short tagged text and its tagged translation, shown before every piece."""

    source: str = Field(min_length=1)
    translation: str = Field(min_length=1)


def _last_placeholder(value: str, name: str) -> str:
    order = [field for _, field in template_pieces(value) if field is not None]
    if not order or order[-1] != name or order.count(name) != 1:
        raise ValueError(
            f"the template needs {{{name}}} once, as its last placeholder (the part before it "
            "is the same for every piece, so llama.cpp reads it once)"
        )
    return value


class TranslationPrompts(StrictModel):
    """The whole of translation.yaml."""

    #: `chat` (the model's own chat template) or a raw format of prompts/formats.yaml.
    format: str = CHAT_FORMAT
    #: Placeholders: {source_language}.
    system: str = ""
    #: Placeholders: {source_language} {keep_tags} {example}, then {text} last.
    instruction: str
    #: Shown as {example}; empty for none.
    example: TranslationExample | None = None
    #: How the example is written into {example}. Placeholders: {source} {translation}.
    example_format: str = "{source}\n{translation}"
    response_prefix: str = ""
    #: The translation of one passage whose tag the model lost, found again in the text.
    #: Placeholders: {source_language} {context}, then {text} last.
    phrase_instruction: str
    #: A source language's name as the instructions write it, per language code.
    source_names: dict[str, Annotated[str, Field(min_length=1)]] = Field(min_length=1)
    #: Per span label: `keep` (copied unchanged) or `translate`; other labels: `default_rule`.
    rules: dict[str, Rule] = Field(default_factory=dict)
    default_rule: Rule = TRANSLATE
    #: The retry follows an unusable answer (empty, cut off, untranslated, too long).
    sampling: RetrySampling = Field(default_factory=RetrySampling)
    #: Answer budget in tokens per token of the tagged piece (a translation may be longer).
    max_tokens_ratio: float = Field(2.0, gt=0)
    #: A document is translated in pieces of about this many words, cut between sentences.
    piece_words: int = Field(160, ge=10, le=2000)
    #: A piece's translation must be this many times as long as its source, in characters.
    length_ratio: tuple[float, float] = (0.4, 2.5)

    @field_validator("system")
    @classmethod
    def _system(cls, value: str) -> str:
        return check_placeholders(value, {"source_language"})

    @field_validator("instruction")
    @classmethod
    def _instruction(cls, value: str) -> str:
        check_placeholders(value, _INSTRUCTION_FIELDS, required="text")
        return _last_placeholder(value, "text")

    @field_validator("phrase_instruction")
    @classmethod
    def _phrase_instruction(cls, value: str) -> str:
        check_placeholders(value, _PHRASE_FIELDS, required="text")
        return _last_placeholder(value, "text")

    @field_validator("example_format")
    @classmethod
    def _example_format(cls, value: str) -> str:
        return check_placeholders(value, ("source", "translation"), required="translation")

    @field_validator("rules")
    @classmethod
    def _rule_labels(cls, value: dict[str, Rule]) -> dict[str, Rule]:
        for label in value:
            problem = label_problem(label)
            if problem:
                raise ValueError(f"rules: {label!r}: a span label {problem}")
        return value

    @model_validator(mode="after")
    def _ratios(self) -> TranslationPrompts:
        low, high = self.length_ratio
        if not 0 < low < 1 < high:
            raise ValueError(
                f"length_ratio: expected [low, high] with 0 < low < 1 < high, got [{low}, {high}]"
            )
        return self

    def rule(self, label: str) -> Rule:
        return self.rules.get(label, self.default_rule)

    def source_name(self, code: str) -> str | None:
        return self.source_names.get(code)
