"""`prompts/<language>/facts.yaml`: what a planned disclosure says, and how it is asked for.

`gen documents --disclosures planned` decides before writing which sensitive facts a
document discloses, asks the writer to include them, and finds them in the text (see
docs/generation.md). This file is the language data of that: per sensitive category, fact
templates with `{slots}` and the value lists that fill them (drawn by
`gen.generate.disclosures`); the lines added to the writer's instruction; the request that
asks the model for facts of its own (`--facts model`); and the finder's settings. Persona
fields are slots too, and `{year}` is a year of the persona's adult life.

Italian and other gendered languages write a template or a value as `{female: ..., male:
...}`: the persona's gender picks one; a plain string serves both (`gen.core.grammar`'s
`Gendered`, as the pack's job titles; written gender alternatives such as "iscritto/a"
are refused).
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import Field, ValidationInfo, field_validator, model_validator

from gen.core.grammar import Gendered, gendered_forms
from gen.core.placeholders import check_placeholders, placeholders
from gen.core.records import PERSONA_FIELDS
from gen.core.yamlio import StrictModel, check_balanced

#: Slots computed from the persona rather than listed: a year after the persona turned 18.
COMPUTED_SLOTS = ("year",)

SlotName = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*$")]
_WORD = re.compile(r"^\w+$")


class CategoryFacts(StrictModel):
    """The facts of one sensitive category."""

    #: What the model is asked to disclose with `--facts model` (`model.request`'s {topic}).
    topic: str = Field(min_length=1)
    #: Value lists, one per slot the templates use besides persona fields and {year}.
    values: dict[SlotName, tuple[Gendered, ...]] = Field(default_factory=dict)
    #: Facts about the persona with {slots}: a predicate without its subject, in the third
    #: person ("was diagnosed with {condition} at the age of {child_age}").
    templates: tuple[Gendered, ...] = Field(min_length=1)
    #: Hard negatives (`--non-disclosures`): whole sentences on the category's topic that
    #: disclose nothing about anyone (a clinic's opening hours, a party's programme), with
    #: the same slots as the templates.
    non_disclosures: tuple[Gendered, ...] = ()

    @field_validator("values")
    @classmethod
    def _values_not_empty(
        cls, value: dict[str, tuple[Gendered, ...]]
    ) -> dict[str, tuple[Gendered, ...]]:
        for slot, options in value.items():
            if not options:
                raise ValueError(f"{slot}: the value list is empty")
            repeated = _repeated(options)
            if repeated:
                raise ValueError(f"{slot}: the value {repeated!r} is listed twice")
            for form in (form for option in options for form in gendered_forms(option)):
                try:
                    check_balanced(form)
                except ValueError as exc:
                    raise ValueError(f"{slot}: {exc}") from None
        return value

    @field_validator("templates", "non_disclosures")
    @classmethod
    def _known_slots(cls, value: tuple[Gendered, ...], info: ValidationInfo) -> tuple:
        if "values" not in info.data:  # the value lists are wrong, and said so already
            return value
        what = "template" if info.field_name == "templates" else "non-disclosure"
        repeated = _repeated(value)
        if repeated:
            raise ValueError(f"the {what} {repeated!r} is listed twice")
        allowed = {*PERSONA_FIELDS, *COMPUTED_SLOTS, *info.data["values"]}
        for number, template in enumerate(value, 1):
            for text in gendered_forms(template):
                try:
                    check_placeholders(text, allowed)
                except ValueError as exc:
                    raise ValueError(f"{what} {number} {text!r}: {exc}") from None
        return value

    @model_validator(mode="after")
    def _every_list_used(self) -> CategoryFacts:
        used = {
            slot
            for template in (*self.templates, *self.non_disclosures)
            for text in gendered_forms(template)
            for slot in placeholders(text)
        }
        unused = sorted(set(self.values) - used)
        if unused:
            raise ValueError(f"the value list {unused[0]!r} is used by no template")
        return self


def _repeated(items: tuple[Gendered, ...]) -> str | None:
    """The first item listed twice (as drawn: the same forms), or None: a repeat would be
    drawn twice as often, and a template twice could plan one fact twice in a document."""
    seen: set[tuple[str, ...]] = set()
    for item in items:
        forms = gendered_forms(item)
        if forms in seen:
            return " / ".join(forms)
        seen.add(forms)
    return None


class FinderSettings(StrictModel):
    """How a planned fact is found in the written text (`labeling.planned`, whose module
    docstrings say what each list does)."""

    #: A passage that shares less than this with the fact (0-1, see docs/generation.md)
    #: does not carry it.
    min_score: float = Field(0.7, gt=0, le=1)
    #: Words that change with grammatical person and count as the same word when a fact is
    #: matched ("has" / "have", "è" / "sono"); each group lists one word's forms.
    same_words: tuple[tuple[str, ...], ...] = ()
    #: Words that carry no content of their own (articles, prepositions, auxiliaries,
    #: pronouns); a passage must hold the fact's other words.
    function_words: tuple[str, ...] = ()
    #: Function words that join the parts of a fact ("and"): each part must be held.
    joins: tuple[str, ...] = ()
    #: Function words a verb group starts with ("has", "is", "been"): a span takes in the
    #: ones the writer put before the fact's words.
    auxiliaries: tuple[str, ...] = ()
    #: Words that open a clause or stand as its subject (conjunctions, relative and
    #: personal pronouns): a span never reaches across one.
    clause_words: tuple[str, ...] = ()
    #: Words that open a complement (prepositions) or, right after the passage with no
    #: comma, a restrictive relative clause ("that", "che"): a span takes it in, to the
    #: end of its clause.
    complements: tuple[str, ...] = ()
    #: Possessive determiners ("his", "sua"): one right before a passage belongs to it
    #: ("his parents came from Mirpur in Pakistan", as the gold set marks it).
    possessives: tuple[str, ...] = ()

    @field_validator("same_words")
    @classmethod
    def _one_group_per_word(cls, value: tuple[tuple[str, ...], ...]) -> tuple:
        seen: dict[str, int] = {}
        for number, group in enumerate(value, 1):
            for word in group:
                _check_word(word, f"group {number}: ")
                key = word.casefold()
                if key in seen:
                    raise ValueError(f"{word!r} is in groups {seen[key]} and {number}")
                seen[key] = number
        return tuple(tuple(word.casefold() for word in group) for group in value)

    @field_validator(
        "function_words", "joins", "auxiliaries", "clause_words", "complements", "possessives"
    )
    @classmethod
    def _single_words(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for word in value:
            _check_word(word, "")
        return tuple(word.casefold() for word in value)

    @model_validator(mode="after")
    def _function_words_only(self) -> FinderSettings:
        """A join, an auxiliary or a possessive that counted as content would have to be
        held."""
        function = set(self.function_words)
        for name in ("joins", "auxiliaries", "possessives"):
            for word in getattr(self, name):
                if word not in function:
                    raise ValueError(f"{name}: {word!r} is not in function_words")
        return self


def _check_word(word: str, where: str) -> None:
    """One word as the finder's tokens see it (no space, apostrophe or hyphen)."""
    if not _WORD.match(word):
        raise ValueError(f"{where}{word!r} is not one word")


_PERSONA = set(PERSONA_FIELDS)


class WriterPrompts(StrictModel):
    """What the writer's instruction gains: the facts, or the placeholders standing for them."""

    #: `--fact-style inline`. Placeholders: {facts} (one `fact_line` each), persona fields.
    instruction: str
    #: Placeholders: {fact} {number}, persona fields.
    fact_line: str = "- {name} {fact}"
    #: `--fact-style placeholder`. Placeholders: {facts} (one `placeholder_line` each), persona.
    placeholder_instruction: str
    #: Placeholders: {placeholder} ([[FACT_1]]...), {fact} {number}, persona fields.
    placeholder_line: str = "- {placeholder}: {name} {fact}"
    #: `--non-disclosures`: the passages on the topic that say nothing about the persona.
    #: Placeholders: {passages} (one `non_disclosure_line` each), persona fields.
    non_disclosure_instruction: str | None = None
    #: Placeholders: {passage} {number}, persona fields.
    non_disclosure_line: str = "- {passage}"

    @field_validator("instruction", "placeholder_instruction")
    @classmethod
    def _instruction(cls, value: str) -> str:
        return check_placeholders(value, {"facts", *_PERSONA}, required="facts")

    @field_validator("non_disclosure_instruction")
    @classmethod
    def _non_disclosure_instruction(cls, value: str | None) -> str | None:
        if value is None:
            return None
        return check_placeholders(value, {"passages", *_PERSONA}, required="passages")

    @field_validator("non_disclosure_line")
    @classmethod
    def _non_disclosure_line(cls, value: str) -> str:
        return check_placeholders(value, {"passage", "number", *_PERSONA}, required="passage")

    @field_validator("fact_line")
    @classmethod
    def _fact_line(cls, value: str) -> str:
        return check_placeholders(value, {"fact", "number", *_PERSONA}, required="fact")

    @field_validator("placeholder_line")
    @classmethod
    def _placeholder_line(cls, value: str) -> str:
        return check_placeholders(
            value, {"placeholder", "fact", "number", *_PERSONA}, required="placeholder"
        )


class ModelFacts(StrictModel):
    """`--facts model`: the short first request that asks the model for facts."""

    system: str = ""
    #: Placeholders: {n} (facts wanted), {topic} (the category's), persona fields.
    request: str
    max_tokens: int = Field(160, gt=0)
    #: Answer lines with fewer or more words are no fact (a heading, a paragraph).
    min_words: int = Field(3, ge=1)
    max_words: int = Field(30, ge=1)
    #: Words that open a line as its subject ("she", "he"), dropped with the persona's
    #: names so that a fact starts at its verb like the pack's own.
    subjects: tuple[str, ...] = ()

    @field_validator("request")
    @classmethod
    def _request(cls, value: str) -> str:
        return check_placeholders(value, {"n", "topic", *_PERSONA}, required="n")

    @field_validator("system")
    @classmethod
    def _system(cls, value: str) -> str:
        return check_placeholders(value, _PERSONA)

    @model_validator(mode="after")
    def _word_range(self) -> ModelFacts:
        if self.max_words < self.min_words:
            raise ValueError(f"max_words {self.max_words} is below min_words {self.min_words}")
        return self


class Facts(StrictModel):
    """The whole of facts.yaml; the categories are checked against categories.yaml."""

    finder: FinderSettings = FinderSettings()
    writer: WriterPrompts
    model: ModelFacts
    categories: dict[str, CategoryFacts]

    @field_validator("categories")
    @classmethod
    def _sensitive_categories(
        cls, value: dict[str, CategoryFacts], info: ValidationInfo
    ) -> dict[str, CategoryFacts]:
        sensitive = (info.context or {}).get("sensitive")
        if sensitive is None:
            return value
        for name in value:
            if name not in sensitive:
                raise ValueError(
                    f"{name!r} is no sensitive category of categories.yaml (expected some of "
                    f"{', '.join(sensitive)}; non-sensitive categories get no facts)"
                )
        missing = [name for name in sensitive if name not in value]
        if missing:
            raise ValueError(f"the sensitive category {missing[0]!r} has no facts")
        return value
