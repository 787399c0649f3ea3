"""The backend interface: one prompt in, one completion out.

Every engine (llama.cpp in process, transformers, an OpenAI-compatible server)
implements `Backend.generate`. Prompt formatting is not the engine's business:
a `GenerationRequest` carries the already rendered prompt text, see
`gen.backends.prompting`. Only the engine's chat template is asked of the backend.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable


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


@runtime_checkable
class Backend(Protocol):
    #: e.g. "llama.cpp"; stored in manifests.
    name: str
    #: What produced the text: file name or served model id; stored with each record.
    model_id: str
    #: How many requests the pipeline may keep in flight (1 for in-process engines).
    concurrency: int

    def generate(self, request: GenerationRequest) -> Completion: ...

    def chat_template(self) -> ChatTemplate | None:
        """The model's own template, or None when it has none (raw formats only)."""
        ...

    def describe(self) -> dict[str, object]:
        """Provenance for the run manifest (file hash, parameters); never secrets."""
        ...
