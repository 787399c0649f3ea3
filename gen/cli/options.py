"""Options shared by several commands, declared once."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from pathlib import Path
from typing import Any

import click

from gen.backends import BACKENDS, BackendOptions
from gen.backends.openai_backend import SERVER_KINDS
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

backend_options = compose_options(
    click.option("--backend", type=click.Choice(BACKENDS), default="llama.cpp", show_default=True),
    click.option(
        "--model",
        type=click.Path(path_type=Path),
        default=None,
        help="GGUF file (llama.cpp, transformers) or model folder (transformers); "
        "default: the embedded SmolLM2-135M-Instruct.",
    ),
    click.option(
        "--ctx",
        "n_ctx",
        type=click.IntRange(min=256),
        default=4096,
        show_default=True,
        help="Context window in tokens (llama.cpp).",
    ),
    click.option(
        "--n-gpu-layers",
        type=int,
        default=0,
        show_default=True,
        help="Layers to offload to the GPU (llama.cpp; -1 = all).",
    ),
    click.option(
        "--device",
        type=click.Choice(["auto", "cpu", "cuda"]),
        default="auto",
        show_default=True,
        help="Device (transformers).",
    ),
    click.option(
        "--dtype",
        default="auto",
        show_default=True,
        help="Weights dtype: auto, float32, float16, bfloat16 (transformers).",
    ),
    click.option(
        "--base-url",
        default=None,
        help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1.",
    ),
    click.option("--api-model", default=None, help="Model name the server expects (openai)."),
    click.option(
        "--api-key-env",
        default="OPENAI_API_KEY",
        show_default=True,
        help="Environment variable holding the API key (openai); never stored.",
    ),
    click.option(
        "--server-kind",
        type=click.Choice(SERVER_KINDS),
        default="auto",
        show_default=True,
        help="How to pass grammars to the server (openai): llama.cpp's `grammar`, vLLM's "
        "structured outputs, or none (generic); auto asks the server.",
    ),
    click.option(
        "--timeout",
        type=click.FloatRange(min=1),
        default=300.0,
        show_default=True,
        help="Seconds to wait for one answer (openai).",
    ),
    click.option(
        "--concurrency",
        type=click.IntRange(min=1),
        default=4,
        show_default=True,
        help="Requests in flight (openai).",
    ),
)


def backend_options_from(kwargs: dict[str, Any]) -> BackendOptions:
    """Pop the backend options out of a command's keyword arguments."""
    names = [field.name for field in fields(BackendOptions)]
    return BackendOptions(**{name: kwargs.pop(name) for name in names})
