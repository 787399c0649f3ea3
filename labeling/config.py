"""The common part of `prompts/<language>/labeling.yaml`: prompt format, sampling, and
one description per sensitive category.

The file also holds one block per strategy, keyed by the strategy's name and validated by
the model the strategy declares (`labeling.strategies.Strategy.prompts`); the registry of
strategies adds those blocks and loads the file (`labeling.strategies.load_labeling`).
This module knows no strategy, so the strategies and the registry can both build on it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, Field

from gen.core.errors import ConfigError
from gen.core.pack_generation import CHAT_FORMAT, RetrySampling
from gen.core.yamlio import StrictModel

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


class LabelingPrompts(StrictModel):
    """The common part; the strategies' blocks are added as optional fields on load."""

    #: `chat` (the model's own template) or a raw format from prompts/formats.yaml.
    format: str = CHAT_FORMAT
    sampling: RetrySampling = Field(default_factory=RetrySampling)
    #: One entry per sensitive category of categories.yaml.
    categories: dict[str, CategoryLabeling]

    def block(self, name: str, model: type[BlockT]) -> BlockT:
        """The strategy block `name`; `load_labeling(..., needed=...)` made sure it is there."""
        value = getattr(self, name, None)
        if not isinstance(value, model):
            raise ConfigError(f"{LABELING_FILE}: {name}: required key is missing")
        return value
