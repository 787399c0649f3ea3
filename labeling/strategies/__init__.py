"""Labeling strategies as plug-ins: one module in this folder per strategy.

A strategy module defines `STRATEGY = Strategy(...)`: its name (`gen label --strategy NAME`),
the span source it writes, a one-line summary for `--help`, the pydantic model of its block
in `prompts/<lang>/labeling.yaml` (optional in a pack that does not use the strategy), and a
function that builds its labeler for one language pack. The registry finds the modules of
this package on first use; `register` adds one from anywhere else (a test, a user package).
Nothing else in the code names a strategy: the CLI choices, the labeling stage, its tally,
agreement and manifest all come from here, and so does the full model of labeling.yaml
(`load_labeling`: the common part of `labeling.config` plus every strategy's block).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import create_model

from gen.core.errors import ConfigError, UsageError
from gen.core.pack_generation import CHAT_FORMAT
from gen.core.packs import LanguagePack
from gen.core.yamlio import StrictModel, load_model
from labeling.config import LABELING_FILE, LabelingPrompts, check_every_category

if TYPE_CHECKING:
    from gen.core.records import Record
    from labeling.options import LabelOptions
    from labeling.strategies.outcome import StrategyOutcome

#: `--strategy all`: every registered strategy that needs no input of its own.
ALL = "all"
#: Names that stand for several strategies (kept for the commands users already have).
ALIASES = {"both": ("sentences", "censor")}


class Labeler(Protocol):
    """Labels the documents of one language pack with one strategy."""

    def label(self, document: Record) -> StrategyOutcome: ...


@dataclass(frozen=True)
class LabelerSetup:
    """What a strategy gets to build its labeler for one language pack."""

    pack: LanguagePack
    prompts: LabelingPrompts
    #: `options.backend` is None only when no chosen strategy needs a model.
    options: LabelOptions


@dataclass(frozen=True)
class Strategy:
    name: str
    #: The `source` of the spans it writes (`gen build --sources` selects on it).
    source: str
    #: One line for `gen label --help`.
    summary: str
    build: Callable[[LabelerSetup], Labeler]
    #: Its block in labeling.yaml, under the key `name`; None when it needs none.
    prompts: type[StrictModel] | None = None
    #: False when it asks no model (a model is then not even loaded for it).
    needs_model: bool = True
    #: Position in listings and in the order strategies run over a batch.
    order: int = 100
    #: False when it needs an input of its own (a trained detector): `all` leaves it out.
    in_all: bool = True


_registered: dict[str, Strategy] = {}
_discovered = False


def _discover() -> None:
    """Import every module of this package once; each may define `STRATEGY`."""
    global _discovered
    if _discovered:
        return
    _discovered = True
    for module in pkgutil.iter_modules(__path__):
        loaded = importlib.import_module(f"{__name__}.{module.name}")
        strategy = getattr(loaded, "STRATEGY", None)
        if isinstance(strategy, Strategy):
            register(strategy)


def register(strategy: Strategy) -> Strategy:
    if strategy.name in (ALL, *ALIASES) or "," in strategy.name:
        raise ValueError(f"{strategy.name!r} cannot name a strategy")
    _registered[strategy.name] = strategy
    return strategy


@contextmanager
def registered(strategy: Strategy) -> Iterator[Strategy]:
    """`strategy` is registered inside the block only (tests, experiments)."""
    register(strategy)
    try:
        yield strategy
    finally:
        _registered.pop(strategy.name, None)


def strategies() -> list[Strategy]:
    """Every registered strategy, in run order."""
    _discover()
    return sorted(_registered.values(), key=lambda s: (s.order, s.name))


def strategy(name: str) -> Strategy:
    _discover()
    try:
        return _registered[name]
    except KeyError:
        raise UsageError(f"unknown strategy {name!r}; expected {choices_text()}") from None


def choices_text() -> str:
    names = [s.name for s in strategies()]
    return ", ".join([*names, ALL, *ALIASES]) + " (or a comma-separated list)"


def parse_strategies(value: str) -> tuple[str, ...]:
    """`sentences,censor`, `all` or an alias -> strategy names in run order, each once."""
    wanted: set[str] = set()
    for part in (piece.strip() for piece in value.split(",")):
        if part == ALL:
            wanted.update(s.name for s in strategies() if s.in_all)
        elif part in ALIASES:
            wanted.update(ALIASES[part])
        elif part:
            wanted.add(strategy(part).name)
    if not wanted:
        raise UsageError(f"--strategy is empty; expected {choices_text()}")
    return tuple(s.name for s in strategies() if s.name in wanted)


def sources() -> tuple[str, ...]:
    """The span sources every registered strategy writes."""
    return tuple(s.source for s in strategies())


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
    try:
        check_every_category(prompts.categories, pack.categories.sensitive, "categories")
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
