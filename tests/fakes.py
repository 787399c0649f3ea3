"""Test doubles shared by the test modules."""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

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


class SlowBackend(ScriptedBackend):
    """A scripted backend that, once `slow` is set, spends `token_seconds` on each of
    `tokens` tokens of an answer, as an engine does, calling `on_token(request, number)`
    before each; it stops between tokens once the request is abandoned
    (`GenerationRequest.abandon`), as the llama.cpp backend does."""

    def __init__(
        self,
        reply: Callable[[GenerationRequest], str],
        *,
        tokens: int,
        token_seconds: float,
        on_token: Callable[[GenerationRequest, int], None] = lambda request, number: None,
    ) -> None:
        super().__init__(reply)
        self.tokens = tokens
        self.token_seconds = token_seconds
        self.on_token = on_token
        self.slow = False
        self.abandoned: list[GenerationRequest] = []

    def generate(self, request: GenerationRequest) -> Completion:
        completion = super().generate(request)
        abandon = getattr(request, "abandon", None)
        for number in range(self.tokens if self.slow else 0):
            self.on_token(request, number)
            if abandon is not None and abandon.is_set():
                from gen.backends.base import RequestAbandoned

                self.abandoned.append(request)
                raise RequestAbandoned("abandoned between two tokens")
            time.sleep(self.token_seconds)
        return completion


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


@contextmanager
def table_held_elsewhere(folder: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process writing the table at `folder` (a long run elsewhere) until the block
    ends; it is then killed with SIGKILL, and its lock dies with it."""
    repo = Path(__file__).resolve().parents[1]
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from gen.core.store import RecordTable; "
            "table = RecordTable(sys.argv[1]).open(); print('writing', flush=True); "
            "time.sleep(600)",
            str(folder),
        ],
        env={
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(repo), os.environ.get("PYTHONPATH", "")]),
        },
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "writing\n", (
            holder.communicate()
        )
        yield holder
    finally:
        holder.kill()
        holder.wait()
