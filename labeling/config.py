"""The labeling prompts of one language: `prompts/<language>/labeling.yaml`.

Validated on load against `categories.yaml`, so a missing example or tag fails at
start-up with the file and key, not half-way through a run.
"""

from __future__ import annotations

from pydantic import Field, field_validator

from gen.core.errors import ConfigError
from gen.core.packs import CHAT_FORMAT, LanguagePack
from gen.core.yamlio import StrictModel, load_model
from gen.text.placeholders import check_placeholders

LABELING_FILE = "labeling.yaml"

#: Placeholders known to every prompt text; the strategy adds its own.
_CATEGORY_FIELDS = {"category", "description"}


class SentenceExample(StrictModel):
    text: str = Field(min_length=1, pattern=r"^[^\n]+$")
    sensitive: bool


class CensorExample(StrictModel):
    original: str = Field(min_length=1)
    censored: str = Field(min_length=1)


class CategoryLabeling(StrictModel):
    """What the labelers need to know about one sensitive category, in this language."""

    #: What the category covers, inserted into the prompts as {description}.
    description: str = Field(min_length=1)
    #: The censor tag written inside brackets, e.g. HEALTH_DATA for [HEALTH_DATA].
    tag: str = Field(min_length=1, pattern=r"^[^\[\]\n]+$")
    sentence_examples: list[SentenceExample] = Field(min_length=1)
    censor_example: CensorExample | None = None


class LabelingSampling(StrictModel):
    """First attempt greedy (reproducible); the one retry warmer, to get a different answer."""

    temperature: float = Field(0.0, ge=0)
    retry_temperature: float = Field(0.7, ge=0)
    top_p: float = Field(1.0, gt=0, le=1)
    top_k: int = Field(0, ge=0)
    repeat_penalty: float = Field(1.0, gt=0)


class SentencesPrompts(StrictModel):
    system: str = ""
    #: Placeholders: {category} {description} {positive} {negative} {examples} {sentences}.
    instruction: str
    #: How the category's examples are shown: {sentences} (numbered) and {labels} (the answer).
    example: str
    response_prefix: str = ""
    max_sentences_per_group: int = Field(24, ge=1, le=200)
    #: Join neighbouring sensitive sentences into one span.
    merge_adjacent: bool = False

    @field_validator("system")
    @classmethod
    def _system(cls, value: str) -> str:
        return check_placeholders(value, _CATEGORY_FIELDS | {"positive", "negative"})

    @field_validator("instruction")
    @classmethod
    def _instruction(cls, value: str) -> str:
        allowed = _CATEGORY_FIELDS | {"positive", "negative", "examples", "sentences"}
        return check_placeholders(value, allowed, required="sentences")

    @field_validator("example")
    @classmethod
    def _example(cls, value: str) -> str:
        return check_placeholders(value, {"sentences", "labels"}, required="sentences")


class CensorPrompts(StrictModel):
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

    @field_validator("system")
    @classmethod
    def _system(cls, value: str) -> str:
        return check_placeholders(value, _CATEGORY_FIELDS | {"tag"})

    @field_validator("instruction")
    @classmethod
    def _instruction(cls, value: str) -> str:
        return check_placeholders(
            value, _CATEGORY_FIELDS | {"tag", "example", "document"}, required="document"
        )

    @field_validator("example")
    @classmethod
    def _example(cls, value: str) -> str:
        return check_placeholders(value, {"original", "censored"})


class LabelingPrompts(StrictModel):
    #: `chat` (the model's own template) or a raw format from prompts/formats.yaml.
    format: str = CHAT_FORMAT
    sampling: LabelingSampling = LabelingSampling()
    sentences: SentencesPrompts
    censor: CensorPrompts
    #: One entry per sensitive category of categories.yaml.
    categories: dict[str, CategoryLabeling]

    def tags(self) -> dict[str, str]:
        """Tag text -> category, the form the aligner takes."""
        return {info.tag: name for name, info in self.categories.items()}


def load_labeling(pack: LanguagePack) -> LabelingPrompts:
    """The labeling prompts next to `pack`'s other files, checked against its categories."""
    path = pack.folder / LABELING_FILE
    prompts = load_model(path, LabelingPrompts)
    sensitive = pack.categories.sensitive
    for name in prompts.categories:
        if name not in sensitive:
            raise ConfigError(
                f"{path}: categories.{name}: not a sensitive category of categories.yaml; "
                f"expected one of {', '.join(sensitive)}"
            )
    missing = [name for name in sensitive if name not in prompts.categories]
    if missing:
        raise ConfigError(f"{path}: categories.{missing[0]}: required key is missing")
    tags = [info.tag for info in prompts.categories.values()]
    if len(set(tags)) != len(tags):
        raise ConfigError(f"{path}: categories: two categories share one tag; tags must differ")
    if prompts.format != CHAT_FORMAT and prompts.format not in pack.formats.formats:
        raise ConfigError(
            f"{path}: format: unknown format {prompts.format!r}; expected {CHAT_FORMAT!r} or one "
            f"of {', '.join(pack.formats.formats)} (prompts/formats.yaml)"
        )
    return prompts
