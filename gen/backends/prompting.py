"""Turn a system message, an instruction and a response prefix into one prompt.

Two ways, as in the thesis: the model's own chat template (rendered like
Hugging Face does, with a sandboxed Jinja environment), or a raw completion
format such as Alpaca from `prompts/formats.yaml`. Either way the response
prefix ("Sure! Here's the generated document:") ends the prompt, so the model
continues from it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from jinja2 import TemplateError
from jinja2.sandbox import ImmutableSandboxedEnvironment

from gen.backends.base import Backend, ChatTemplate
from gen.core.errors import ModelError, UsageError
from gen.core.pack_generation import CHAT_FORMAT
from gen.core.packs import Formats

#: Prompt sizes are estimated at this many characters per token when the backend
#: cannot count tokens (OpenAI-compatible servers).
CHARS_PER_TOKEN = 3.5


@dataclass(frozen=True, slots=True)
class PromptParts:
    system: str
    instruction: str
    response_prefix: str = ""


@dataclass(frozen=True, slots=True)
class RenderedPrompt:
    text: str
    stop: tuple[str, ...]


def _raise(message: str) -> None:
    raise TemplateError(message)


@lru_cache(maxsize=8)
def _compile(source: str):  # type: ignore[no-untyped-def]
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
    env.globals["raise_exception"] = _raise
    return env.from_string(source)


def render_chat(template: ChatTemplate, parts: PromptParts) -> str:
    messages = []
    if parts.system:
        messages.append({"role": "system", "content": parts.system})
    messages.append({"role": "user", "content": parts.instruction})
    try:
        text = _compile(template.source).render(
            messages=messages,
            add_generation_prompt=True,
            bos_token=template.bos_token,
            eos_token=template.eos_token,
        )
    except TemplateError as exc:
        raise ModelError(f"the model's chat template failed to render: {exc}") from None
    return text + parts.response_prefix


def render_prompt(
    parts: PromptParts, format_name: str, formats: Formats, chat_template: ChatTemplate | None
) -> RenderedPrompt:
    """The full prompt text and the stop strings of its format."""
    if format_name == CHAT_FORMAT:
        if chat_template is None:
            raise UsageError(
                "the model has no chat template; choose a raw format with --prompt-format "
                f"({', '.join(formats.formats)})"
            )
        return RenderedPrompt(render_chat(chat_template, parts), ())
    if format_name not in formats.formats:
        raise UsageError(
            f"unknown prompt format {format_name!r}; expected {CHAT_FORMAT!r} or one of "
            + ", ".join(formats.formats)
        )
    raw = formats.formats[format_name]
    text = raw.template.format(
        system=parts.system, instruction=parts.instruction, response_prefix=parts.response_prefix
    )
    return RenderedPrompt(text, tuple(raw.stop))


class TokenCounter:
    """Counts prompt tokens with the backend's tokenizer when it has one."""

    def __init__(self, backend: Backend) -> None:
        self._count: Callable[[str], int] | None = getattr(backend, "count_tokens", None)

    def __call__(self, text: str) -> int:
        if self._count is not None:
            return self._count(text)
        return math.ceil(len(text) / CHARS_PER_TOKEN)
