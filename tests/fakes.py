"""Test doubles shared by the test modules."""

from __future__ import annotations

import random
import re
import threading
from collections.abc import Callable

from gen.backends.base import Capabilities, ChatTemplate, Completion, GenerationRequest

SIMPLE_CHAT_TEMPLATE = ChatTemplate(
    source=(
        "{% for m in messages %}<{{ m.role }}>{{ m.content }}</{{ m.role }}>\n{% endfor %}"
        "{% if add_generation_prompt %}<assistant>{% endif %}"
    ),
    bos_token="<s>",
    eos_token="</s>",
)


class ScriptedBackend:
    """A backend whose answer is computed from the request by `reply`."""

    name = "scripted"
    model_id = "scripted-model"
    capabilities = Capabilities()

    def __init__(
        self,
        reply: Callable[[GenerationRequest], str],
        *,
        concurrency: int = 1,
        finish_reason: str = "stop",
    ) -> None:
        self.reply = reply
        self.concurrency = concurrency
        self.finish_reason = finish_reason
        self.requests: list[GenerationRequest] = []
        self._lock = threading.Lock()

    def generate(self, request: GenerationRequest) -> Completion:
        with self._lock:
            self.requests.append(request)
        text = self.reply(request)
        # An engine that stops for length has spent the whole token budget.
        tokens = request.sampling.max_tokens if self.finish_reason == "length" else len(text) // 4
        return Completion(text, len(request.prompt) // 4, tokens, 0.01, self.finish_reason)

    def chat_template(self) -> ChatTemplate | None:
        return SIMPLE_CHAT_TEMPLATE

    def describe(self) -> dict[str, object]:
        return {"backend": self.name}


BODY = (
    "Dear colleague,\nI write to tell you about {name}. The visit on Monday went well and the "
    "results of the tests arrived this morning. {name} will need a follow-up in three weeks, "
    "and the clinic will send a reminder. Item number {index}.\nBest regards."
)


WORDS = [
    "clinic",
    "visit",
    "results",
    "therapy",
    "morning",
    "letter",
    "nurse",
    "report",
    "doctor",
    "week",
    "follow-up",
    "tests",
    "blood",
    "pressure",
    "medicine",
    "treatment",
    "hospital",
    "office",
    "reminder",
    "schedule",
]


def unique_reply(request) -> str:
    """A plausible English document that differs from item to item (no near duplicates)."""
    name = re.search(r"referred to (.+?) of the type", request.prompt)
    person = name.group(1) if name else "the applicant"
    rng = random.Random(request.seed)
    filler = " ".join(rng.choice(WORDS) for _ in range(40))
    return (
        "Sure! Here's the generated document:\n"
        + BODY.format(name=person, index=request.seed)
        + f" Notes: {filler}."
    )
