"""The labeling prompts of one language: `prompts/<language>/labeling.yaml`.

The file has a common part (prompt format, sampling, one description per sensitive
category) and one block per strategy, keyed by the strategy's name and validated by the
model the strategy declares (`labeling.strategies.Strategy.prompts`). A block is optional
in a pack that does not use its strategy; running the strategy on that pack fails at
start-up, naming the file and the key. Everything is checked against `categories.yaml`
on load, so a missing example or tag fails before any model call.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, Field, create_model

from gen.core.errors import ConfigError
from gen.core.packs import CHAT_FORMAT, LanguagePack
from gen.core.yamlio import StrictModel, load_model
from labeling.strategies import strategies

LABELING_FILE = "labeling.yaml"

BlockT = TypeVar("BlockT", bound=BaseModel)


def check_every_category(mapping: Mapping[str, Any], sensitive: Iterable[str], key: str) -> None:
    """`mapping` has exactly the sensitive categories as keys; ValueError naming the key."""
    sensitive = list(sensitive)
    for name in mapping:
        if name not in sensitive:
            raise ValueError(
                f"{key}.{name}: not a sensitive category of categories.yaml; "
                f"expected one of {', '.join(sensitive)}"
            )
    missing = [name for name in sensitive if name not in mapping]
    if missing:
        raise ValueError(f"{key}.{missing[0]}: required key is missing")


class CategoryLabeling(StrictModel):
    #: What the category covers, inserted into the prompts as {description}.
    description: str = Field(min_length=1)


class LabelingSampling(StrictModel):
    """First attempt greedy (reproducible); the one retry warmer, to get a different answer."""

    temperature: float = Field(0.0, ge=0)
    retry_temperature: float = Field(0.7, ge=0)
    top_p: float = Field(1.0, gt=0, le=1)
    top_k: int = Field(0, ge=0)
    repeat_penalty: float = Field(1.0, gt=0)


class LabelingPrompts(StrictModel):
    """The common part; the strategies' blocks are added as optional fields on load."""

    #: `chat` (the model's own template) or a raw format from prompts/formats.yaml.
    format: str = CHAT_FORMAT
    sampling: LabelingSampling = LabelingSampling()
    #: One entry per sensitive category of categories.yaml.
    categories: dict[str, CategoryLabeling]

    def block(self, name: str, model: type[BlockT]) -> BlockT:
        """The strategy block `name`; `load_labeling(..., needed=...)` made sure it is there."""
        value = getattr(self, name, None)
        if not isinstance(value, model):
            raise ConfigError(f"{LABELING_FILE}: {name}: required key is missing")
        return value


def prompts_model() -> type[LabelingPrompts]:
    """LabelingPrompts with one optional field per registered strategy that has a block."""
    blocks: dict[str, Any] = {
        s.name: (s.prompts | None, None) for s in strategies() if s.prompts is not None
    }
    return create_model("LabelingPrompts", __base__=LabelingPrompts, **blocks)


def load_labeling(pack: LanguagePack, needed: Iterable[str] = ()) -> LabelingPrompts:
    """The labeling prompts next to `pack`'s other files, checked against its categories;
    the blocks of the `needed` strategies must be present."""
    path = pack.folder / LABELING_FILE
    prompts = load_model(path, prompts_model())
    sensitive = pack.categories.sensitive
    try:
        check_every_category(prompts.categories, sensitive, "categories")
    except ValueError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    for item in strategies():
        block = getattr(prompts, item.name, None)
        if block is None:
            if item.name in needed and item.prompts is not None:
                raise ConfigError(
                    f"{path}: {item.name}: required key is missing (--strategy {item.name} "
                    "needs its prompts)"
                )
            continue
        check = getattr(block, "check", None)
        try:
            if check is not None:
                check(pack, prompts)
        except ValueError as exc:
            raise ConfigError(f"{path}: {item.name}.{exc}") from None
    if prompts.format != CHAT_FORMAT and prompts.format not in pack.formats.formats:
        raise ConfigError(
            f"{path}: format: unknown format {prompts.format!r}; expected {CHAT_FORMAT!r} or one "
            f"of {', '.join(pack.formats.formats)} (prompts/formats.yaml)"
        )
    return prompts
