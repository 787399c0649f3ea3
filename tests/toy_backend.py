"""A backend in one file, as a plug-in package would ship it (see docs/backends.md).

It writes a short English document from the request's seed, in the style its own
`--toy-style` option chooses, and has a bare engine loop for `gen bench`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from gen.backends.base import Capabilities, ChatTemplate, Completion, GenerationRequest
from gen.backends.spec import BackendOptions, BackendSpec, cli

SENTENCES = [
    "The clinic confirmed the appointment for the second week of March.",
    "Our neighbour repaired the fence after the storm last winter.",
    "The committee approved the budget for the new library wing.",
    "Please bring the signed form and a copy of your identity card.",
    "The train to the coast leaves every morning at a quarter past seven.",
    "He has been learning the violin since he retired from the factory.",
    "The invoice lists three boxes of paper and a replacement printer drum.",
    "The garden behind the school now grows tomatoes, beans and herbs.",
]
GREETINGS = {"formal": "Dear Sir or Madam,", "casual": "Hi there!"}


@dataclass(frozen=True)
class ToyOptions(BackendOptions):
    toy_style: Literal["formal", "casual"] = field(
        default="formal", metadata=cli("--toy-style", "How the toy writes (toy).")
    )


def toy_document(seed: int | None, style: str) -> str:
    rng = random.Random(seed)
    return " ".join([GREETINGS[style], *rng.sample(SENTENCES, 5)])


class ToyBackend:
    name = "toy"
    concurrency = 1
    capabilities = Capabilities()

    def __init__(self, options: ToyOptions) -> None:
        self.style = options.toy_style
        self.model_id = f"toy-{self.style}"

    def generate(self, request: GenerationRequest) -> Completion:
        text = toy_document(request.seed, self.style)
        return Completion(text, len(request.prompt) // 4, len(text.split()), 0.001, "stop")

    def chat_template(self) -> ChatTemplate | None:
        return None

    def describe(self) -> dict[str, object]:
        return {"backend": self.name, "style": self.style}


class RawToy:
    """The toy's bare engine loop: the document without the pipeline around it."""

    def __init__(self, backend: ToyBackend) -> None:
        self.backend = backend

    def complete(self, request: GenerationRequest) -> int:
        return len(toy_document(request.seed, self.backend.style).split())

    def figures(self, requests: Sequence[GenerationRequest]) -> dict[str, float | None]:
        return {"toy_requests": float(len(requests))}


BACKEND = BackendSpec(name="toy", options=ToyOptions, create=ToyBackend, raw_engine=RawToy)
