"""The query templates of a language (`prompts/queries/<lang>.yaml`) and how one is
filled.

A template is text with placeholders: identity placeholders (`{PERSON}`, `{EMAIL}`,
`{TITLE_NAME}`, `{ADDRESS_BLOCK}`, `{PHONE_2}`...), each written from the query's
fictional person and labeled; fillers (`{DATE}`, `{REF}`, `{PRODUCT}`...) that identify
no one; and shared parts (`{@signature}`), one of several alternatives picked per
query, so that a letter or an e-mail thread changes its greeting, signature or quoted
header without a copy of the template. Every alternative of a part carries the same
labels, so the quota planner knows a template's labels before it is filled. Offsets
are taken while the text is written, never searched for afterwards.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from faker import Faker
from pydantic import Field, ValidationInfo, field_validator, model_validator

from gen.core.errors import UsageError
from gen.core.placeholders import check_placeholders, template_pieces
from gen.core.records import Span
from gen.core.yamlio import StrictModel, load_model, read_yaml
from scraping.queries.values import (
    BUILTIN_FILLERS,
    IDENTITY_MAKERS,
    LABELS,
    SECOND,
    FillerMaker,
    Identity,
    Value,
    Wording,
    filler_makers,
    identity_placeholders,
    label_of,
    new_identity,
)

#: Prefix of a shared part's placeholder: `{@signature}`.
PART = "@"


def _check_text(value: str, info: ValidationInfo) -> str:
    context = info.context or {}
    allowed = (
        *identity_placeholders(),
        *BUILTIN_FILLERS,
        *context.get("fillers", ()),
        *(PART + name for name in context.get("parts", ())),
    )
    return check_placeholders(value, allowed)


def placeholder_labels(text: str) -> list[str]:
    """The labels of the identity placeholders of `text`, in order (parts not included)."""
    found = (label_of(name) for _, name in template_pieces(text) if name)
    return [label for label in found if label]


def part_names(text: str) -> list[str]:
    return [name[len(PART) :] for _, name in template_pieces(text) if name and name[0] == PART]


class QueryTemplate(StrictModel):
    #: What the text is (message, email, log, form...): the record's doc_type.
    kind: str = Field(min_length=1)
    text: str = Field(min_length=1)

    @field_validator("text")
    @classmethod
    def _known_placeholders(cls, value: str, info: ValidationInfo) -> str:
        return _check_text(value, info)


class Titles(StrictModel):
    male: list[str] = Field(default_factory=list)
    female: list[str] = Field(default_factory=list)


class Organizations(StrictModel):
    """Names of shops, schools, practices and public bodies: `{city}`, `{surname}` and
    `{word}` (one of `words`) in `patterns`."""

    patterns: list[str] = Field(default_factory=list)
    words: list[str] = Field(default_factory=list)

    @field_validator("patterns")
    @classmethod
    def _pattern_placeholders(cls, value: list[str]) -> list[str]:
        for pattern in value:
            check_placeholders(pattern, ("city", "surname", "word"))
        return value

    @model_validator(mode="after")
    def _words_for_word(self) -> Organizations:
        if any("{word}" in p for p in self.patterns) and not self.words:
            raise ValueError("patterns with {word} need a list of words")
        return self


class QueryTemplates(StrictModel):
    """`prompts/queries/<lang>.yaml`."""

    language: str
    #: Share of queries written from templates without identifier placeholders.
    negative_share: float = Field(0.1, ge=0, lt=1)
    #: Filler placeholders of this language (e.g. PRODUCT) and the words they take.
    fillers: dict[str, list[str]] = Field(default_factory=dict)
    #: Titles written before a name in `{TITLE_NAME}` ("Dr", "Sig.ra").
    titles: Titles = Field(default_factory=Titles)
    #: Dates in words, with `{day}`, `{month}` (from the MONTH filler) and `{year}`.
    date_words: list[str] = Field(default_factory=list)
    #: Organization names besides Faker's companies.
    organizations: Organizations = Field(default_factory=Organizations)
    #: Shared parts: name -> alternatives, used as `{@name}` in templates.
    parts: dict[str, list[str]] = Field(default_factory=dict)
    templates: list[QueryTemplate] = Field(min_length=1)

    @field_validator("fillers")
    @classmethod
    def _filler_names(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        for name, words in value.items():
            if not name.isupper() or label_of(name) or name in BUILTIN_FILLERS:
                raise ValueError(
                    f"filler {name!r} must be an uppercase name other than the labels and the "
                    f"built-in fillers ({', '.join(BUILTIN_FILLERS)})"
                )
            if not words or not all(word.strip() for word in words):
                raise ValueError(f"filler {name} needs a list of non-empty words")
        return value

    @field_validator("date_words")
    @classmethod
    def _date_words(cls, value: list[str]) -> list[str]:
        for pattern in value:
            check_placeholders(pattern, {"day", "month", "year"})
        return value

    @field_validator("parts")
    @classmethod
    def _same_labels_in_every_alternative(
        cls, value: dict[str, list[str]], info: ValidationInfo
    ) -> dict[str, list[str]]:
        for name, alternatives in value.items():
            if not alternatives:
                raise ValueError(f"part {name} needs at least one alternative")
            for text in alternatives:
                _check_text(text, info)
                if part_names(text):
                    raise ValueError(f"part {name}: a part cannot contain another part")
            first = Counter(placeholder_labels(alternatives[0]))
            for text in alternatives[1:]:
                if Counter(placeholder_labels(text)) != first:
                    raise ValueError(
                        f"part {name}: every alternative must carry the same labels "
                        f"({', '.join(sorted(first.elements())) or 'none'}); {text!r} differs"
                    )
        return value

    @model_validator(mode="after")
    def _both_kinds_present(self) -> QueryTemplates:
        if not any(self.labels(t) for t in self.templates):
            raise ValueError("no template has a {LABEL} placeholder")
        if self.negative_share > 0 and all(self.labels(t) for t in self.templates):
            raise ValueError("negative_share > 0 needs templates without identifier placeholders")
        if self.date_words and len(self.fillers.get("MONTH", ())) != 12:
            raise ValueError("date_words needs a MONTH filler with the twelve month names")
        return self

    def labels(self, template: QueryTemplate) -> list[str]:
        """The labels of a template's spans, its parts' included."""
        labels = placeholder_labels(template.text)
        for name in part_names(template.text):
            labels += placeholder_labels(self.parts[name][0])
        return labels

    def wording(self) -> Wording:
        return Wording(
            titles_male=tuple(self.titles.male),
            titles_female=tuple(self.titles.female),
            months=tuple(self.fillers.get("MONTH", ())),
            date_words=tuple(self.date_words),
            organizations=tuple(self.organizations.patterns),
            organization_words=tuple(self.organizations.words),
        )

    def fillers_for(self, locale: str) -> dict[str, FillerMaker]:
        """A maker for every filler: built-in and declared word lists."""
        declared = {
            name: (lambda fake, words=tuple(words): fake.random.choice(words))
            for name, words in self.fillers.items()
        }
        return {**filler_makers(locale, self.wording()), **declared}


def config_path(prompts_dir: Path, locale: str) -> Path:
    return Path(prompts_dir) / "queries" / f"{locale.split('_')[0]}.yaml"


def load_templates(prompts_dir: Path, locale: str) -> QueryTemplates:
    path = config_path(prompts_dir, locale)
    if not path.exists():
        raise UsageError(f"{path}: no query templates for locale {locale!r}")
    raw = read_yaml(path)
    raw = raw if isinstance(raw, dict) else {}
    names = {key: tuple(map(str, raw.get(key) or {})) for key in ("fillers", "parts")}
    names = {key: value if isinstance(raw.get(key), dict) else () for key, value in names.items()}
    return load_model(path, QueryTemplates, **names)


def _tidy(text: str) -> str:
    """Runs of spaces folded, line by line (a multi-line address keeps its lines)."""
    return "\n".join(" ".join(line.split()) for line in text.splitlines() if line.strip())


def _needs_brackets(label: str, value: str, before: str, after: str) -> bool:
    """An IPv6 address before a port ("{IP_ADDRESS}:443"): in "2001:db8::1:443" the port
    cannot be told from the last group, so it is written "[2001:db8::1]:443" (RFC 3986),
    the brackets outside the span, unless the template brackets it already."""
    return label == "IP_ADDRESS" and ":" in value and after[:1] == ":" and before[-1:] != "["


class Filler:
    """Writes templates of one pack for one locale."""

    def __init__(self, config: QueryTemplates, locale: str) -> None:
        self.config = config
        self.locale = locale
        self.fillers = config.fillers_for(locale)
        self.wording = config.wording()

    def fill(self, template: QueryTemplate, fake: Faker) -> tuple[str, list[Span], list[str]]:
        """The filled text, its spans and the identifier values."""
        people: dict[bool, Identity] = {}
        parts: list[str] = []
        spans: list[Span] = []
        position = 0

        def write(text: str) -> None:
            nonlocal position
            pieces = list(template_pieces(text))
            for index, (literal, name) in enumerate(pieces):
                parts.append(literal)
                position += len(literal)
                if name is None:
                    continue
                if name[0] == PART:
                    write(fake.random.choice(self.config.parts[name[1:]]))
                    continue
                label = label_of(name)
                if label is None:
                    value = Value(_tidy(self.fillers[name](fake)))
                else:
                    second = name.endswith(SECOND)
                    if second not in people:
                        people[second] = new_identity(fake, self.locale, self.wording)
                    base = name.removesuffix(SECOND)
                    value = people[second].value(base, IDENTITY_MAKERS[base])
                    if value.span == (0, len(value.text)):  # the whole value is the span
                        value = Value(_tidy(value.text))
                    following = pieces[index + 1][0] if index + 1 < len(pieces) else ""
                    if _needs_brackets(label, value.text, literal, following):
                        start, end = value.span
                        value = Value(f"[{value.text}]", start + 1, end + 1)
                    start, end = value.span
                    spans.append(Span(position + start, position + end, label, source="faker"))
                parts.append(value.text)
                position += len(value.text)

        write(template.text)
        text = "".join(parts)
        return text, spans, [text[s.start : s.end] for s in spans]


__all__ = ["LABELS", "Filler", "QueryTemplate", "QueryTemplates", "load_templates"]
