"""`prompts/<language>/shapes.yaml`: documents in the shapes where sensitive data lives.

A narrative (the writer's prose, facts as clauses) is one shape. Real records hold most of
their facts elsewhere: as field values of forms, certificates and registers, in the headers
and bodies of e-mails, and around them text on the same topics that discloses nothing about
anyone. This file is the language data of two more shapes (`gen.generate.shapes`):

- `layout`: skeletons of a document type, which the program fills (persona fields, a
  reference, a date, and planned facts in field form: "Diagnosis: type 1 diabetes"), while
  the model writes only the free-text part (`{notes}`) around the facts left as clauses.
  Each skeleton names the field labels it may hold, all of its document type's categories,
  so no form holds a field such a form would not have (a baptismal certificate holds no
  party); field values are composed from parts (`gen.core.composition`), at least
  `MIN_FIELD_VALUES` per label;
- `topic`: documents about a category's topic that disclose nothing about any person (a
  clinic's leaflet, a party programme), the hard negatives the thesis took from Wikipedia,
  written by the model from the subjects listed here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Annotated

from pydantic import AfterValidator, Field, ValidationInfo, field_validator, model_validator

from gen.core.composition import count_values, part_problems
from gen.core.placeholders import check_placeholders, placeholders, template_pieces
from gen.core.records import PERSONA_FIELDS
from gen.core.yamlio import StrictModel, check_balanced

#: Values a skeleton may use besides the persona's fields.
PROGRAM_SLOTS = ("date", "ref", "other_name", "other_email")
#: Where the field facts go, and where the model's text goes.
FIELDS_SLOT, NOTES_SLOT = "fields", "notes"
#: Values a field label composes at least: fewer, and a detector learns them by heart.
MIN_FIELD_VALUES = 40
#: The strftime directives of `date_format`: numbers only, since Python writes the names of
#: months and days in English whatever the pack's language.
DATE_DIRECTIVES = ("d", "m", "y", "Y", "H", "M", "S", "j", "%")


class ShapeProblem(ValueError):
    """A problem found across the pack's files, at the key `loc` of shapes.yaml."""

    def __init__(self, loc: tuple[str | int, ...], message: str) -> None:
        super().__init__(message)
        self.loc = loc


def _known(names: str, what: str, *, listed: bool) -> AfterValidator:
    """A mapping key that must be one of the `names` the loader passes as context (the pack's
    other files define them), so that the error names the key and its line."""

    def check(key: str, info: ValidationInfo) -> str:
        known = (info.context or {}).get(names)
        if known is not None and key not in known:
            expected = f"; expected one of {', '.join(known)}" if listed else ""
            raise ValueError(f"{key!r} is no {what}{expected}")
        return key

    return AfterValidator(check)


SensitiveCategory = Annotated[
    str, _known("sensitive", "sensitive category of categories.yaml", listed=True)
]
DocTypeName = Annotated[str, _known("doc_types", "document type of taxonomy.yaml", listed=False)]


class FieldForm(StrictModel):
    """A fact as a form shows it: a field label and the values a form writes there
    ("Diagnosis" / "E11 Type 2 diabetes mellitus"): field values are shorter than clauses,
    often codes or ticked options, so they have lists of their own."""

    label: str = Field(min_length=1)
    #: Values, or templates of values whose `{slots}` name lists of the file's `parts`.
    values: tuple[Annotated[str, AfterValidator(check_balanced)], ...] = Field(min_length=1)

    @field_validator("values")
    @classmethod
    def _templates(cls, values: tuple[str, ...]) -> tuple[str, ...]:
        for value in values:
            if not value.strip():
                raise ValueError("an empty value")
            template_pieces(value)
        return values


class Layout(StrictModel):
    """One skeleton of a document type."""

    #: The document with {persona fields}, {date}, {ref}, {other_name}, {other_email},
    #: {fields} (the field facts, one `field_line` each) and {notes} (the model's text).
    text: str = Field(min_length=1)
    #: What the model writes for {notes}, as the instruction names it ("the GP's notes of
    #: the last consultation").
    notes: str = Field(min_length=1)
    #: About how many words the notes run to.
    words: int = Field(ge=10, le=1500)
    #: The field labels {fields} may hold, of the categories of the document type: the
    #: fields a document of this type has.
    fields: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _named_fields(self) -> Layout:
        has_slot = FIELDS_SLOT in placeholders(self.text)
        if has_slot and not self.fields:
            raise ValueError("a skeleton with {fields} names the field labels it may hold")
        if self.fields and not has_slot:
            raise ValueError("fields: the skeleton has no {fields} to hold them")
        if len(set(self.fields)) != len(self.fields):
            raise ValueError("fields: a label is named twice")
        return self

    @model_validator(mode="after")
    def _known_slots(self) -> Layout:
        slots = [name for _, name in template_pieces(self.text) if name is not None]
        allowed = {*PERSONA_FIELDS, *PROGRAM_SLOTS, FIELDS_SLOT, NOTES_SLOT}
        unknown = sorted(set(slots) - allowed)
        if unknown:
            raise ValueError(
                f"unknown slot {{{unknown[0]}}}; expected persona fields, "
                f"{', '.join(PROGRAM_SLOTS)}, {FIELDS_SLOT} or {NOTES_SLOT}"
            )
        if slots.count(NOTES_SLOT) != 1 or slots.count(FIELDS_SLOT) > 1:
            raise ValueError("a skeleton holds {notes} once and {fields} at most once")
        return self


class Topic(StrictModel):
    """A topic-only document: its type and what it is about."""

    type: str = Field(min_length=1)
    subject: str = Field(min_length=1)


class Shapes(StrictModel):
    #: The date format of {date} (strftime).
    date_format: str = Field(min_length=2)
    #: How a field fact is written in {fields}.
    field_line: str = "{label}: {value}"

    @field_validator("date_format")
    @classmethod
    def _date_directives(cls, value: str) -> str:
        for match in re.finditer("%(.?)", value, re.DOTALL):
            if match[1] not in DATE_DIRECTIVES:
                raise ValueError(
                    f"unknown strftime directive {match[0]}; expected "
                    + ", ".join(f"%{name}" for name in DATE_DIRECTIVES)
                    + " (Python writes month and day names in English)"
                )
        return value

    @field_validator("notes_instruction")
    @classmethod
    def _notes_slots(cls, value: str) -> str:
        return check_placeholders(value, {*PERSONA_FIELDS, "notes", "doc_type", "words"})

    @field_validator("topic_instruction")
    @classmethod
    def _topic_slots(cls, value: str) -> str:
        return check_placeholders(value, ("type", "subject", "words"))

    @field_validator("field_line")
    @classmethod
    def _field_line(cls, line: str) -> str:
        check_placeholders(line, ("label", "value"))
        if (
            line.count("{value}") != 1
            or line.count("{label}") != 1
            or (line.index("{label}") > line.index("{value}"))
        ):
            raise ValueError("field_line holds {label} once, then {value} once")
        return line

    @field_validator("fields", "topics")
    @classmethod
    def _every_category(cls, value: dict[str, tuple], info: ValidationInfo) -> dict[str, tuple]:
        what = "field forms" if info.field_name == "fields" else "topic list"
        for category in (info.context or {}).get("sensitive", ()):
            if not value.get(category):
                raise ValueError(f"no {what} for the category {category!r}")
        return value

    #: Named lists that field values are composed from (`{name}` in a value or a part).
    parts: dict[str, tuple[str, ...]] = Field(default_factory=dict)

    @field_validator("parts")
    @classmethod
    def _part_lists(cls, parts: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
        for name, entries in parts.items():
            if not name.isidentifier():
                raise ValueError(
                    f"{name!r}: a part name is a placeholder name (letters, digits, _)"
                )
            if not entries or not all(entry.strip() for entry in entries):
                raise ValueError(f"{name}: an empty list or entry")
            for entry in entries:
                template_pieces(entry)
                check_balanced(entry)
        return parts

    #: Per sensitive category, the forms its facts take as field values.
    fields: dict[SensitiveCategory, tuple[FieldForm, ...]]
    #: Per document type name of taxonomy.yaml, its skeletons.
    layouts: dict[DocTypeName, tuple[Layout, ...]]
    #: The system prompt of notes and topic-only documents (the writer's of generation.yaml
    #: asks for a whole detailed document, which neither is).
    system: str = Field(min_length=1)
    #: Asks the model for the notes of a layout document; placeholders: {notes}, {doc_type},
    #: {words}, the persona's fields. The clause facts follow, as facts.yaml's writer asks.
    notes_instruction: str = Field(min_length=1)
    #: Per category, the subjects of topic-only documents.
    topics: dict[SensitiveCategory, tuple[Topic, ...]]
    #: Asks the model for a topic-only document; placeholders: {type}, {subject}, {words}
    #: (no persona field: a topic document is about no one).
    topic_instruction: str = Field(min_length=1)
    #: About how many words a topic-only document runs to.
    topic_words: int = Field(250, ge=30, le=1500)
    #: Notes shorter than this (characters) are rejected (`too_short`).
    min_notes_chars: int = Field(60, ge=1)

    def check_against(self, type_categories: Mapping[str, set[str]]) -> None:
        """A `ShapeProblem` at its key for a part or value list that composes badly or too
        few values, or a skeleton naming a field label none of its type's categories has
        (categories and document types are checked on load, from the loader's context).
        `type_categories`: each document type of taxonomy.yaml, and the categories listing it."""
        self._check_values()
        self._check_labels(type_categories)

    def _check_values(self) -> None:
        for name, problem in part_problems(self.parts):
            raise ShapeProblem(("parts", name), problem)
        for category, forms in self.fields.items():
            for number, form in enumerate(forms):
                loc = ("fields", category, number, "values")
                unknown = sorted(
                    {s for v in form.values for s in placeholders(v)} - set(self.parts)
                )
                if unknown:
                    raise ShapeProblem(loc, f"unknown part {{{unknown[0]}}}; list it in parts")
                count = count_values(form.values, self.parts)
                if count < MIN_FIELD_VALUES:
                    raise ShapeProblem(
                        loc,
                        f"{form.label!r} composes {count} values; a field needs at least "
                        f"{MIN_FIELD_VALUES} (write more, or compose them from parts)",
                    )

    def _check_labels(self, type_categories: Mapping[str, set[str]]) -> None:
        for name, skeletons in self.layouts.items():
            own = sorted(type_categories[name] & set(self.fields))
            labels = {form.label for category in own for form in self.fields[category]}
            for number, layout in enumerate(skeletons):
                for label in layout.fields:
                    if label not in labels:
                        raise ShapeProblem(
                            ("layouts", name, number, "fields"),
                            f"field label {label!r} is no field of {', '.join(own) or 'any'} "
                            f"(the categories of {name!r}); expected one of: "
                            + ", ".join(sorted(labels)),
                        )

    def forms(self, category: str, labels: tuple[str, ...]) -> list[FieldForm]:
        """The field forms of `category` whose label is one of `labels`, in `labels` order."""
        by_label = {form.label: form for form in self.fields.get(category, ())}
        return [by_label[label] for label in labels if label in by_label]
