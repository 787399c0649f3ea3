"""The prompts of the `sentences` strategy: its block of labeling.yaml, the possible answers
of a unit, and the prompts rendered from both.

Two category modes. `own` (the thesis's prompt) asks a document about its own category
only: HEALTH or NON_HEALTH. `all` asks every unit of every document about every sensitive
category of the pack at once: the answers are the category labels of categories.yaml
(`health`, `politic`, ...) and the label of its non-sensitive category (`other`); the
descriptions and examples of all categories come from labeling.yaml, and the examples take
turns by category so that no label runs for long. Two prompt shapes: numbered units
answered in one go (generated answers), or one unit per prompt (scored answers). In every
prompt the part before the units depends only on the category (own) or on nothing (all),
so consecutive prompts share it and llama.cpp reads it once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import zip_longest

from pydantic import Field, field_validator

from gen.backends.prompting import PromptParts
from gen.core.errors import UsageError
from gen.core.packs import LanguagePack
from gen.core.placeholders import check_placeholders, template_pieces
from gen.core.yamlio import StrictModel
from labeling.config import LabelingPrompts, check_every_category
from labeling.strategies.numbered import answer_word

OWN, ALL = "own", "all"


class UnitExample(StrictModel):
    text: str = Field(min_length=1, pattern=r"^[^\n]+$")
    sensitive: bool


class SentencesPrompts(StrictModel):
    """The `sentences:` block of labeling.yaml."""

    system: str = ""
    #: `--categories own`. Placeholders: {category} {description} {positive} {negative}.
    own_question: str
    #: `--categories all`. Placeholders: {categories} (one `category_line` per category),
    #: {negative}.
    all_question: str
    #: Placeholders: {answer} {description}.
    category_line: str = "{answer}: {description}"
    #: Numbered units, generated answers. Placeholders: {question} {examples} {sentences}.
    instruction: str
    #: How the examples are shown there: {sentences} (numbered) and {labels} (the answer).
    example: str
    response_prefix: str = ""
    #: One unit per prompt, scored answers. Placeholders: {question} {examples} {unit}.
    unit_instruction: str
    #: One unit after its whole document (`--context document`). Placeholders: {question}
    #: {examples} {document} {unit}; the document comes before the unit, so that the
    #: prompts of a document's units share everything up to it.
    unit_document_instruction: str | None = None
    #: One example there: {text} and {answer}.
    unit_example: str
    #: Ends the prompt; the answer (the label) follows it.
    unit_response_prefix: str = ""
    max_sentences_per_group: int = Field(24, ge=1, le=200)
    #: Join neighbouring sensitive units of one label into one span.
    merge_adjacent: bool = False
    #: Per sensitive category: labeled example sentences (invented).
    examples: dict[str, list[UnitExample]]

    @field_validator("own_question")
    @classmethod
    def _own(cls, value: str) -> str:
        return check_placeholders(value, {"category", "description", "positive", "negative"})

    @field_validator("all_question")
    @classmethod
    def _all(cls, value: str) -> str:
        return check_placeholders(value, {"categories", "negative"}, required="categories")

    @field_validator("category_line")
    @classmethod
    def _line(cls, value: str) -> str:
        return check_placeholders(value, {"answer", "description"}, required="answer")

    @field_validator("instruction")
    @classmethod
    def _instruction(cls, value: str) -> str:
        return check_placeholders(
            value, {"question", "examples", "sentences"}, required="sentences"
        )

    @field_validator("example")
    @classmethod
    def _example(cls, value: str) -> str:
        return check_placeholders(value, {"sentences", "labels"}, required="sentences")

    @field_validator("unit_instruction")
    @classmethod
    def _unit_instruction(cls, value: str) -> str:
        return check_placeholders(value, {"question", "examples", "unit"}, required="unit")

    @field_validator("unit_document_instruction")
    @classmethod
    def _unit_document_instruction(cls, value: str | None) -> str | None:
        if value is None:
            return None
        check_placeholders(value, {"question", "examples", "document", "unit"}, required="unit")
        order = [name for _, name in template_pieces(value) if name in ("document", "unit")]
        if order != ["document", "unit"]:
            raise ValueError("the template needs {document} once, before {unit}")
        return value

    @field_validator("unit_example")
    @classmethod
    def _unit_example(cls, value: str) -> str:
        return check_placeholders(value, {"text", "answer"}, required="answer")

    def check(self, pack: LanguagePack, prompts: LabelingPrompts) -> None:
        check_every_category(self.examples, pack.categories.sensitive, "examples")
        for name, examples in self.examples.items():
            if not examples:
                raise ValueError(f"examples.{name}: give at least one example")


def answer_words(label: str) -> tuple[str, str]:
    """The two own-mode answers for a category label: ("HEALTH", "NON_HEALTH")."""
    word = answer_word(label)
    return word, f"NON_{word}"


@dataclass(frozen=True)
class Answers:
    """The answers a unit may get in one prompt, and the span label of each."""

    words: tuple[str, ...]
    #: Per word: the span label, None for the not-sensitive answer.
    labels: tuple[str | None, ...]

    @property
    def negative(self) -> str:
        return self.words[self.labels.index(None)]

    def label(self, word: str) -> str | None:
        return self.labels[self.words.index(word)]


def _taking_turns(groups: list[list[tuple[str, str]]]) -> list[tuple[str, str]]:
    return [item for row in zip_longest(*groups) for item in row if item is not None]


def _unique(items: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return list(dict(items).items())


def _spread(many: list[tuple[str, str]], few: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """`few` inserted at even steps into `many`."""
    merged: list[tuple[str, str]] = []
    for index, item in enumerate(many):
        merged.append(item)
        due = (index + 1) * len(few) // max(1, len(many))
        while len(merged) - index - 1 < due:
            merged.append(few[len(merged) - index - 1])
    merged.extend(few[len(merged) - len(many) :])
    return merged


def numbered(texts: Sequence[str]) -> str:
    return "\n".join(f"{number}. {text}" for number, text in enumerate(texts, 1))


def answer_lines(words: Sequence[str]) -> str:
    return "\n".join(f"{number}: {word}" for number, word in enumerate(words, 1))


class UnitPrompts:
    """The prompts of one language pack in one category mode."""

    def __init__(self, pack: LanguagePack, prompts: LabelingPrompts, mode: str) -> None:
        self.pack = pack
        self.prompts = prompts
        self.config = prompts.block("sentences", SentencesPrompts)
        self.mode = mode
        categories = pack.categories.categories
        negatives = [info.label for info in categories.values() if not info.sensitive]
        if mode == ALL and not negatives:
            raise UsageError(
                "--categories all needs a non-sensitive category (such as `other`) in "
                f"{pack.root / 'categories.yaml'}: its label is the answer for 'not sensitive'"
            )
        self._negative = negatives[0] if negatives else None

    def answers(self, category: str) -> Answers:
        categories = self.pack.categories.categories
        if self.mode == OWN:
            positive, negative = answer_words(categories[category].label)
            return Answers((positive, negative), (categories[category].label, None))
        sensitive = self.pack.categories.sensitive
        labels = [categories[name].label for name in sensitive]
        return Answers((*labels, str(self._negative)), (*labels, None))

    def question(self, category: str) -> str:
        answers = self.answers(category)
        if self.mode == OWN:
            return self.config.own_question.format(
                category=category,
                description=self.prompts.categories[category].description,
                positive=answers.words[0],
                negative=answers.negative,
            )
        lines = [
            self.config.category_line.format(
                answer=word, description=self.prompts.categories[name].description
            )
            for name, word in zip(self.pack.categories.sensitive, answers.words, strict=False)
        ]
        return self.config.all_question.format(
            categories="\n".join(lines), negative=answers.negative
        )

    def examples(self, category: str) -> list[tuple[str, str]]:
        """(text, answer) of the examples shown: the category's own in the pack's order
        (own mode), or every category's (all mode): the categories take turns and the
        not-sensitive examples are spread among them, so that no answer runs for long."""
        answers = self.answers(category)
        if self.mode == OWN:
            positive = answers.words[0]
            return [
                (example.text, positive if example.sensitive else answers.negative)
                for example in self.config.examples[category]
            ]
        positives: list[list[tuple[str, str]]] = []
        negatives: list[list[tuple[str, str]]] = []
        for name, word in zip(self.pack.categories.sensitive, answers.words, strict=False):
            examples = self.config.examples[name]
            positives.append([(e.text, word) for e in examples if e.sensitive])
            negatives.append([(e.text, answers.negative) for e in examples if not e.sensitive])
        return _spread(_taking_turns(positives), _unique(_taking_turns(negatives)))

    def numbered_parts(self, category: str, texts: Sequence[str]) -> PromptParts:
        """Numbered units answered as `n: label` lines; all before the units is constant."""
        examples = self.examples(category)
        shown = self.config.example.format(
            sentences=numbered([text for text, _ in examples]),
            labels=answer_lines([word for _, word in examples]),
        )
        return PromptParts(
            system=self.config.system,
            instruction=self.config.instruction.format(
                question=self.question(category), examples=shown, sentences=numbered(texts)
            ),
            response_prefix=self.config.response_prefix,
        )

    def unit_parts(self, category: str, text: str, document: str | None = None) -> PromptParts:
        """One unit whose answer is the label right after the response prefix; after its
        whole `document` when one is given (`unit_document_instruction`)."""
        shown = "\n\n".join(
            self.config.unit_example.format(text=example, answer=word)
            for example, word in self.examples(category)
        )
        values = {"question": self.question(category), "examples": shown, "unit": text}
        if document is None:
            instruction = self.config.unit_instruction.format(**values)
        else:
            template = self.config.unit_document_instruction
            if template is None:
                raise UsageError(
                    f"--context document needs sentences.unit_document_instruction in "
                    f"{self.pack.folder / 'labeling.yaml'}"
                )
            instruction = template.format(**values, document=document)
        return PromptParts(
            system=self.config.system,
            instruction=instruction,
            response_prefix=self.config.unit_response_prefix,
        )
