"""Test doubles shared by the test modules."""

from __future__ import annotations

import threading
from collections.abc import Callable

from gen.backends.base import ChatTemplate, Completion, GenerationRequest

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
        return Completion(text, len(request.prompt) // 4, len(text) // 4, 0.01, self.finish_reason)

    def chat_template(self) -> ChatTemplate | None:
        return SIMPLE_CHAT_TEMPLATE

    def describe(self) -> dict[str, object]:
        return {"backend": self.name}
