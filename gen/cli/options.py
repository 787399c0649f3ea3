"""Options shared by several commands, declared once."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, get_args, get_origin, get_type_hints

import click
from click.core import ParameterSource

from gen.backends import DEFAULT_BACKEND, backend_specs, spec_for
from gen.backends.spec import CLI, BackendOptions, BackendSpec, CliFlag, cli_fields
from gen.core.errors import UsageError
from gen.core.packs import default_prompts_dir
from gen.core.runs import DEFAULT_RUN
from gen.core.shards import WHOLE, Shard

F = Callable[..., Any]


def compose_options(*decorators: Callable[[F], F]) -> Callable[[F], F]:
    def apply(func: F) -> F:
        for decorator in reversed(decorators):
            func = decorator(func)
        return func

    return apply


run_option = click.option(
    "--run",
    "run_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=DEFAULT_RUN,
    show_default=True,
    help="Run folder that holds every stage's output.",
)
prompts_option = click.option(
    "--prompts",
    "prompts_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help=f"Folder of prompt YAMLs (default: {default_prompts_dir()}).",
)


class ShardType(click.ParamType):
    name = "K/N"

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None):
        if isinstance(value, Shard):
            return value
        try:
            return Shard.parse(str(value))
        except UsageError as exc:
            self.fail(str(exc), param, ctx)


shard_option = click.option(
    "--shard",
    type=ShardType(),
    default=WHOLE,
    show_default="0/1, the whole plan",
    help="Do only shard K of N of the work (plan items i with i % N == K; gen label: "
    "documents by a hash of their id) into RUN/<table>/shard-K-of-N/; run K = 0..N-1 at "
    "once, e.g. one per machine on shared storage (docs/scaling.md). Later stages read "
    "every shard.",
)
seed_option = click.option("--seed", type=int, default=0, show_default=True, help="Global seed.")
language_option = click.option(
    "--language",
    default="en",
    show_default=True,
    help="Language pack in the prompts folder (en, it...).",
)


def _click_type(hint: Any, flag: CliFlag) -> Any:
    """The click type of an option field from its annotation (`X | None` is X)."""
    args = [arg for arg in get_args(hint) if arg is not type(None)]
    if get_origin(hint) is not Literal and len(args) == 1:
        hint = args[0]
    if get_origin(hint) is Literal:
        return click.Choice([str(arg) for arg in get_args(hint)])
    if hint is int:
        return click.IntRange(min=flag.min) if flag.min is not None else int
    if hint is float:
        return click.FloatRange(min=flag.min) if flag.min is not None else float
    if hint is Path:
        return click.Path(path_type=Path)
    if hint is str:
        return str
    raise TypeError(f"{flag.flag}: {hint} has no command-line form (int, float, str, Path)")


def _field_options() -> dict[str, tuple[dataclasses.Field[Any], Any]]:
    """Every backend option field by name, with its resolved type hint, in rank order."""
    found: dict[str, tuple[dataclasses.Field[Any], Any]] = {}
    for spec in backend_specs().values():
        hints = get_type_hints(spec.options)
        for option_field in cli_fields(spec.options):
            found.setdefault(option_field.name, (option_field, hints[option_field.name]))
    return found


def _backend_decorators() -> list[Callable[[F], F]]:
    decorators = [
        click.option(
            "--backend",
            type=click.Choice(list(backend_specs())),
            default=DEFAULT_BACKEND,
            show_default=True,
            help="Engine that runs the model: llama.cpp in this process, transformers, or an "
            "OpenAI-compatible server (docs/backends.md).",
        )
    ]
    for name, (option_field, hint) in _field_options().items():
        flag: CliFlag = option_field.metadata[CLI]
        decorators.append(
            click.option(
                flag.flag,
                name,
                type=_click_type(hint, flag),
                default=option_field.default,
                show_default=flag.unset or option_field.default is not None,
                help=flag.help or None,
            )
        )
    return decorators


#: The options of every backend; each declares its own (gen.backends.spec).
backend_options = compose_options(*_backend_decorators())


def given(name: str) -> bool:
    """Whether the user set option `name` (command line or environment), not its default."""
    context = click.get_current_context(silent=True)
    source = context.get_parameter_source(name) if context else None
    return source in (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT)


def note_ignored(name: str, context: str) -> None:
    """Say that option `name`, when the user gave it, does nothing in `context` (e.g.
    `--format jsonl`): options of one command that only some of its formats or trainers
    read are noted, not refused, so one command line can be reused across them."""
    if given(name):
        flag = "--" + name.replace("_", "-")
        click.echo(f"note: {flag} does not apply to {context}; ignored", err=True)


def _refuse_foreign(spec: BackendSpec[Any], own: set[str]) -> None:
    """An option the user set that the chosen backend does not take is a mistake, not noise."""
    for name, (option_field, _) in _field_options().items():
        if name in own or not given(name):
            continue
        owners = [
            other.name
            for other in backend_specs().values()
            if name in {f.name for f in cli_fields(other.options)}
        ]
        whose = f"the {owners[0]} backend"
        if len(owners) > 1:
            whose = f"the {', '.join(owners[:-1])} and {owners[-1]} backends"
        flag = option_field.metadata[CLI].flag
        raise UsageError(f"{flag} is an option of {whose}, not of {spec.name}")


def backend_options_from(kwargs: dict[str, Any]) -> BackendOptions:
    """Pop the backend options out of a command's keyword arguments: the options of the
    chosen backend."""
    spec = spec_for(kwargs.pop("backend"))
    own = {option_field.name for option_field in cli_fields(spec.options)}
    values = {name: kwargs.pop(name) for name in _field_options()}
    _refuse_foreign(spec, own)
    options: BackendOptions = spec.options(**{name: values[name] for name in own})
    return options
