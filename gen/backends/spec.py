"""How a backend module describes itself: its name, options and factory.

A backend is one module of `gen.backends` (or of an installed package, through the
`gen.backends` entry-point group) with a module-level `BACKEND = BackendSpec(...)`.
Its options are a frozen dataclass extending `BackendOptions`; each field carries its
command-line flag and help text in its metadata (`cli(...)`), its type and default
are the field's own, so `gen.cli.options` builds the click options from the
declaration and no list of flags is kept anywhere else. See docs/backends.md.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from gen.backends.base import Backend, RawEngine

#: Key of a field's metadata that holds its `CliFlag`.
CLI = "cli"


@dataclass(frozen=True)
class CliFlag:
    """How an option field appears on the command line."""

    flag: str
    help: str = ""
    #: Smallest accepted value of a number.
    min: float | None = None
    #: What a default of None means, shown as the default in `--help`.
    unset: str = ""


def cli(
    flag: str, help: str = "", *, min: float | None = None, unset: str = ""
) -> dict[str, CliFlag]:
    """Field metadata that gives an option its command-line flag, e.g.
    `n_gpu_layers: int = field(default=0, metadata=cli("--n-gpu-layers", "Layers..."))`;
    `unset` says what a default of None means (`--help` shows it as the default)."""
    return {CLI: CliFlag(flag, help, min, unset)}


@dataclass(frozen=True)
class BackendOptions:
    """Options every backend takes; a backend's own options extend this class.

    `n_ctx` is the context window the pipeline plans prompts and answers for
    (`gen documents` refuses a prompt plus `--max-tokens` above it; labeling sizes its
    prompts by it); llama.cpp also allocates it.
    """

    n_ctx: int = field(
        default=4096, metadata=cli("--ctx", "Context window in tokens (llama.cpp).", min=256)
    )


OptionsT = TypeVar("OptionsT", bound=BackendOptions)


@dataclass(frozen=True)
class BackendSpec(Generic[OptionsT]):
    """One backend, as its module declares it."""

    #: `--backend NAME`; stored in manifests.
    name: str
    #: The options dataclass (a subclass of BackendOptions, owned by this backend alone).
    options: type[OptionsT]
    #: Builds a ready backend from its options (loads the model, connects to the server).
    create: Callable[[OptionsT], Backend]
    #: The bare engine loop of `gen bench` for a backend `create` made, when there is one.
    raw_engine: Callable[[Any], RawEngine] | None = None
    #: Position in `--backend` choices and help (lower first).
    rank: int = 100


def cli_fields(options: type[BackendOptions]) -> list[dataclasses.Field[Any]]:
    """The fields of an options class that have a command-line flag, in declaration order."""
    return [f for f in dataclasses.fields(options) if CLI in f.metadata]
