"""`prompts/<language>/generation.yaml`: how documents are asked for in one language.

The prompts (with their placeholders checked on load), the prompt format, the sampling
settings, the checks an answer must pass, and the chatter phrases a model wraps around a
document in that language (removed before the checks), the words of the slots a
writer leaves in brackets (filled from the persona where they name one of its fields),
and what of the prompt a document must not hold.
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


class RetrySampling(StrictModel):
    """Sampling of a model asked for one right answer (labeling, translating): the first
    attempt greedy (reproducible); the one retry warmer, to get a different answer."""

    temperature: float = Field(0.0, ge=0)
    retry_temperature: float = Field(0.7, ge=0)
    top_p: float = Field(1.0, gt=0, le=1)
    top_k: int = Field(0, ge=0)
    repeat_penalty: float = Field(1.0, gt=0)


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


def _slot_word(word: str) -> str:
    """How a slot's words are compared: case-folded, one apostrophe, single spaces."""
    return " ".join(word.replace("\u2019", "'").casefold().split())


def _tokens(words: str) -> set[str]:
    """The words of two letters or more ("recipient's" gives "recipient")."""
    return set(re.findall(r"[^\W\d_]{2,}", words))


class SlotWords(StrictModel):
    """The words of bracketed slots a writer leaves (`[Your Name]`, `[Inserisci la data]`),
    used by gen.generate.slots: `fields` maps a persona field to the slot names that ask for
    it (filled with the persona's value); `prefixes` are the verbs a slot may open with
    (`insert`), ignored; `gap_words` are words that mark a slot as a gap, never a value the
    writer filled in but left in brackets."""

    prefixes: tuple[Annotated[str, Field(min_length=1)], ...] = ()
    gap_words: tuple[Annotated[str, Field(min_length=1)], ...] = ()
    fields: dict[str, tuple[Annotated[str, Field(min_length=1)], ...]] = Field(default_factory=dict)

    @field_validator("prefixes", "gap_words")
    @classmethod
    def _folded(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(_slot_word(word) for word in value)

    @field_validator("fields")
    @classmethod
    def _persona_fields(cls, value: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
        owner: dict[str, str] = {}
        for name, words in value.items():
            if name not in PERSONA_FIELDS:
                raise ValueError(
                    f"{name!r} is not a persona field; expected one of {', '.join(PERSONA_FIELDS)}"
                )
            for word in map(_slot_word, words):
                if owner.setdefault(word, name) != name:
                    raise ValueError(f"slot word {word!r} is under both {owner[word]} and {name}")
        return {name: tuple(map(_slot_word, words)) for name, words in value.items()}

    def field_of(self, slot: str) -> str | None:
        """The persona field the slot's content names (after a prefix), or None."""
        words = _slot_word(slot)
        for prefix in self.prefixes:
            if words.startswith(f"{prefix} "):
                words = words[len(prefix) + 1 :]
                break
        return next((name for name, names in self.fields.items() if words in names), None)

    def is_gap(self, slot: str) -> bool:
        """True if the slot's content opens with a prefix or holds a gap word or a word of
        a field's slot names: a gap to fill, not a value left in brackets."""
        words = _slot_word(slot)
        if any(words.startswith(f"{prefix} ") for prefix in self.prefixes):
            return True
        named = {
            token for names in self.fields.values() for name in names for token in _tokens(name)
        }
        return bool(_tokens(words) & (set(self.gap_words) | named))


class EchoWords(StrictModel):
    """What of the prompt a written document must not hold (gen.generate.echo), besides the
    bracketed slots and a run of `instruction_words` words of the pack's own instructions:
    `openings`, a reply's first words ("Sure!"); `remarks`, words about the document rather
    than in it ("This document is fictional", "This document meets the requirements");
    `word_counts` ("[230 words]"); regular expressions, case-insensitive. And
    `placeholder_people`, the names a writer makes up for a person the prompt did not name
    ("Jane Smith", "Mario Rossi"): whole words, any case, and only where the prompt does
    not hold them."""

    openings: tuple[Annotated[str, Field(min_length=1)], ...] = ()
    remarks: tuple[Annotated[str, Field(min_length=1)], ...] = ()
    word_counts: tuple[Annotated[str, Field(min_length=1)], ...] = ()
    placeholder_people: tuple[Annotated[str, Field(min_length=3)], ...] = ()
    #: A run of this many words of an instruction is an echo; fewer ("as detailed as
    #: possible") a real document may hold.
    instruction_words: int = Field(6, ge=4, le=20)

    @field_validator("openings", "remarks", "word_counts")
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
    #: Required too: a pack without it would leave every slot flagged.
    slots: SlotWords
    #: Required too: a pack without it would keep every echo of its prompt.
    echo: EchoWords

    @field_validator("instruction", "other_instruction", "system")
    @classmethod
    def _known_placeholders(cls, value: str, info: ValidationInfo) -> str:
        gendered = (info.context or {}).get("gendered", ())
        return check_persona_template(value, GENERATION_FIELDS, gendered)

    @field_validator("response_prefix")
    @classmethod
    def _one_form(cls, value: str) -> str:
        return check_no_slash_form(value)
