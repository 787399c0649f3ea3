"""The llama.cpp backend stops a request its caller abandoned at the next token, with the
engine replaced by a stand-in (no model is loaded)."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from gen.backends import cpu_share
from gen.backends.base import GenerationRequest, RequestAbandoned, SamplingParams


class TokenByToken:
    """Stands in for `llama_cpp.Llama`: one token per 10 ms, with llama-cpp-python's
    stopping criteria checked after each."""

    def __init__(self, **settings: Any) -> None:
        self.prompts: list[str] = []
        self.tokens = 0

    def create_completion(
        self, prompt: str, *, max_tokens: int, stopping_criteria: Any = None, **_: Any
    ) -> dict[str, Any]:
        self.prompts.append(prompt)
        finish, written = "length", 0
        for _ in range(max_tokens):
            time.sleep(0.01)
            written += 1
            self.tokens += 1
            if stopping_criteria is not None and stopping_criteria(None, None):
                finish = "stop"
                break
        return {
            "choices": [{"text": "word " * written, "finish_reason": finish}],
            "usage": {"prompt_tokens": 3, "completion_tokens": written},
        }


@pytest.fixture
def backend(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    llama_cpp = pytest.importorskip("llama_cpp")
    from gen.backends.llama_cpp import LlamaCppBackend

    monkeypatch.setenv("GEN_PROCESS_DIR", str(tmp_path))
    monkeypatch.setattr(cpu_share, "available_cores", lambda: 2)
    monkeypatch.setattr(llama_cpp, "Llama", TokenByToken)
    model = tmp_path / "stand-in.gguf"
    model.write_bytes(b"GGUF")
    loaded = LlamaCppBackend(model, n_ctx=512)
    yield loaded
    loaded.close()


def request(abandon: threading.Event | None) -> GenerationRequest:
    return GenerationRequest("Hello", SamplingParams(max_tokens=1000), seed=1, abandon=abandon)


def test_an_abandoned_request_stops_at_the_next_token(backend: Any) -> None:
    abandon = threading.Event()
    threading.Timer(0.1, abandon.set).start()
    started = time.monotonic()
    with pytest.raises(RequestAbandoned):
        backend.generate(request(abandon))
    assert time.monotonic() - started < 2  # 1000 tokens would take 10 s
    assert backend._llama.tokens < 200


def test_a_request_abandoned_before_it_runs_never_reaches_the_engine(backend: Any) -> None:
    abandon = threading.Event()
    abandon.set()
    with pytest.raises(RequestAbandoned):
        backend.generate(request(abandon))
    assert backend._llama.prompts == []


@pytest.mark.parametrize("abandon", [threading.Event(), None])
def test_other_requests_run_to_their_end(backend: Any, abandon: threading.Event | None) -> None:
    sampling = SamplingParams(max_tokens=5)
    completion = backend.generate(GenerationRequest("Hello", sampling, seed=1, abandon=abandon))
    assert (completion.completion_tokens, completion.finish_reason) == (5, "length")
