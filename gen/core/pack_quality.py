"""`prompts/<language>/quality.yaml`: the yes/no questions `gen score` asks about each
generated document, in the pack's language.

Each question gives a document one score, the probability of a yes answer read after one
forward pass (`gen.quality`): `real`, whether it reads as a real document of its type;
`language`, whether it is written in the pack's language; `persona`, whether it is about
its persona; `facts`, whether the facts it was planned to disclose are there and none is
contradicted. The words are the pack's; which documents a question applies to is the
stage's.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, field_validator, model_validator

from gen.core.grammar import check_no_slash_form
from gen.core.pack_generation import CHAT_FORMAT
from gen.core.placeholders import check_placeholders, template_pieces
from gen.core.records import PERSONA_FIELDS
from gen.core.yamlio import StrictModel

QUALITY_FILE = "quality.yaml"
#: Placeholders of every question: the document's type and its persona's fields.
QUESTION_FIELDS = {"doc_type", *PERSONA_FIELDS}

#: One answer word as the model would write it after the response prefix.
AnswerWord = Annotated[str, Field(pattern=r"^\S+$")]


class Answers(StrictModel):
    """The words of a yes and of a no answer; the probabilities of one answer's words add up
    (a model may start its answer with "yes" or "Yes")."""

    positive: tuple[AnswerWord, ...] = Field(min_length=1)
    negative: tuple[AnswerWord, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _distinct(self) -> Answers:
        words = [*self.positive, *self.negative]
        repeated = next((word for word in words if words.count(word) > 1), None)
        if repeated is not None:
            raise ValueError(f"the answer word {repeated!r} is listed twice")
        return self

    @property
    def words(self) -> tuple[str, ...]:
        """Every word, the positive ones first."""
        return (*self.positive, *self.negative)


def _question(value: str, allowed: set[str], required: str | None = None) -> str:
    return check_no_slash_form(check_placeholders(value, allowed, required=required))


class Questions(StrictModel):
    """One question per score. Placeholders: {doc_type} and the persona's fields; `facts`
    also {facts}, one `fact_line` per planned fact."""

    real: str = Field(min_length=1)
    language: str = Field(min_length=1)
    persona: str = Field(min_length=1)
    facts: str = Field(min_length=1)

    @field_validator("real", "language", "persona")
    @classmethod
    def _fields(cls, value: str) -> str:
        return _question(value, QUESTION_FIELDS)

    @field_validator("facts")
    @classmethod
    def _facts(cls, value: str) -> str:
        return _question(value, {"facts", *QUESTION_FIELDS}, required="facts")


#: The scores, in the order they are asked and shown.
QUESTIONS: tuple[str, ...] = tuple(Questions.model_fields)


class QualityPrompts(StrictModel):
    """The whole of quality.yaml."""

    #: `chat` (the model's own chat template) or a raw format of prompts/formats.yaml.
    format: str = CHAT_FORMAT
    system: str = ""
    #: Placeholders: {document}, then {question}: a document's questions share everything
    #: up to the question, so llama.cpp reads the document once.
    instruction: str
    #: Ends the prompt; the answer word follows it.
    response_prefix: str = ""
    answers: Answers
    questions: Questions
    #: One planned fact in the `facts` question. Placeholders: {fact} {number}, persona fields.
    fact_line: str = "- {name} {fact}"

    @field_validator("instruction")
    @classmethod
    def _instruction(cls, value: str) -> str:
        check_placeholders(value, {"document", "question"}, required="question")
        order = [name for _, name in template_pieces(value) if name is not None]
        if order != ["document", "question"]:
            raise ValueError("the template needs {document} once, then {question} once")
        return value

    @field_validator("fact_line")
    @classmethod
    def _fact_line(cls, value: str) -> str:
        return _question(value, {"fact", "number", *PERSONA_FIELDS}, required="fact")
