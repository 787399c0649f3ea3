"""The backend interface: one prompt in, one completion out.

Every engine (llama.cpp in process, transformers, an OpenAI-compatible server)
implements `Backend.generate`. Prompt formatting is not the engine's business:
a `GenerationRequest` carries the already rendered prompt text, see
`gen.backends.prompting`. Only the engine's chat template is asked of the backend.
What else an engine can do is stated in its `Capabilities`, so callers ask
instead of testing which class they hold. How a backend module declares its
options and registers itself: `gen.backends.spec`. A backend whose capabilities
include `logprobs` scores a fixed set of answers (`LabelScorer`: labeling without
sampling).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from gen.core.errors import GenError


@dataclass(frozen=True, slots=True)
class SamplingParams:
    """Sampling settings; thesis defaults (3.3.1): temperature 0.9, top_p 0.7, top_k off."""

    temperature: float = 0.9
    top_p: float = 0.7
    top_k: int = 0
    repeat_penalty: float = 1.1
    max_tokens: int = 512
    stop: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class GenerationRequest:
    prompt: str
    sampling: SamplingParams = field(default_factory=SamplingParams)
    seed: int | None = None
    #: A GBNF grammar that constrains the answer (labeling); None for free text.
    grammar: str | None = None
    #: Set when the caller no longer wants the answer (Ctrl-C): an engine that can check
    #: between tokens stops there and raises `RequestAbandoned`; others answer as usual.
    abandon: threading.Event | None = field(default=None, compare=False)


class RequestAbandoned(GenError):
    """A request stopped before its end because its caller is stopping; nothing of it is
    kept."""


def check_abandoned(request: GenerationRequest) -> None:
    """Raise `RequestAbandoned` when the caller of `request` no longer wants its answer."""
    if request.abandon is not None and request.abandon.is_set():
        raise RequestAbandoned("the request was abandoned: its caller is stopping")


@dataclass(frozen=True, slots=True)
class Completion:
    text: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    #: "stop" (the model ended), "length" (max_tokens reached) or "error".
    finish_reason: str


@dataclass(frozen=True, slots=True)
class ChatTemplate:
    """A model's own chat template (Jinja, as in GGUF/tokenizer metadata)."""

    source: str
    bos_token: str = ""
    eos_token: str = ""


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What an engine can do beyond `generate`; callers branch on these, never on classes."""

    #: `count_tokens(text) -> int` gives the model's exact count (else callers estimate).
    counts_tokens: bool = False
    #: `GenerationRequest.grammar` constrains the answer (else answers are parsed and retried).
    grammar: bool = False
    #: The engine can report log-probabilities of tokens.
    logprobs: bool = False
    #: Several requests may be in flight at once; the options then have a `concurrency` field.
    concurrent: bool = False


@runtime_checkable
class Backend(Protocol):
    #: e.g. "llama.cpp"; stored in manifests.
    name: str
    #: What produced the text: file name or served model id; stored with each record.
    model_id: str
    #: How many requests the pipeline may keep in flight (1 for in-process engines).
    concurrency: int
    capabilities: Capabilities

    def generate(self, request: GenerationRequest) -> Completion: ...

    def chat_template(self) -> ChatTemplate | None:
        """The model's own template, or None when it has none (raw formats only)."""
        ...

    def describe(self) -> dict[str, object]:
        """Provenance for the run manifest (file hash, parameters); never secrets."""
        ...


class RawEngine(Protocol):
    """The bare engine loop `gen bench` compares the pipeline with: the same model, prompts,
    seeds and token limit, without prompts, checks or storage around it."""

    def complete(self, request: GenerationRequest) -> int:
        """Generate for `request` as directly as the engine allows; the completion tokens."""
        ...

    def figures(self, requests: Sequence[GenerationRequest]) -> dict[str, float | None]:
        """Engine-specific measurements (e.g. llama.cpp's prefix-reuse gain), or none."""
        ...


@runtime_checkable
class LabelScorer(Protocol):
    def label_logprobs(self, prompt: str, labels: Sequence[str]) -> list[float]:
        """log P(the answer to `prompt` starts with each label), from the first answer
        token's distribution after one forward pass (see `gen.backends.scoring`)."""
        ...


def can_score_labels(backend: Backend) -> bool:
    """Whether `backend` can score labels now (an OpenAI-compatible server only when it
    returns log-probabilities)."""
    return backend.capabilities.logprobs and isinstance(backend, LabelScorer)
