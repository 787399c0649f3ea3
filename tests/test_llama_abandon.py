"""The llama.cpp backend stops a request its caller abandoned at the next token, with the
engine replaced by a stand-in (no model is loaded)."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gen.backends import cpu_share
from gen.backends.base import GenerationRequest, RequestAbandoned, SamplingParams


class TokenByToken:
    """Stands in for `llama_cpp.Llama` as llama-cpp-python runs it: one token per byte; the
    KV cache holds the last tokens evaluated; `create_completion` evaluates what of its prompt
    is not there in one call (10 ms a token, nothing stops it), then writes one token per
    10 ms with the stopping criteria checked after each."""

    def __init__(self, **settings: Any) -> None:
        self.prompts: list[list[int]] = []
        self.tokens = 0
        #: Sizes of the evaluations of prompt tokens, in order.
        self.evaluations: list[int] = []
        self.n_tokens = 0
        self.cache: list[int] = []

    def tokenize(self, text: bytes, add_bos: bool = True, special: bool = False) -> list[int]:
        return list(text)

    @property
    def _input_ids(self) -> np.ndarray:
        return np.array(self.cache[: self.n_tokens])

    @staticmethod
    def longest_token_prefix(a: list[int], b: list[int]) -> int:
        return next(
            (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
        )

    def eval(self, tokens: list[int]) -> None:
        self.evaluations.append(len(tokens))
        time.sleep(0.01 * len(tokens))
        self.cache[self.n_tokens :] = tokens
        self.n_tokens += len(tokens)

    def create_completion(
        self, prompt: str | list[int], *, max_tokens: int, stopping_criteria: Any = None, **_: Any
    ) -> dict[str, Any]:
        if isinstance(prompt, str):
            prompt = self.tokenize(prompt.encode())
        self.prompts.append(prompt)
        self.n_tokens = min(
            self.longest_token_prefix(self._input_ids.tolist(), prompt), len(prompt) - 1
        )
        self.eval(prompt[self.n_tokens :])
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
            "usage": {"prompt_tokens": len(prompt), "completion_tokens": written},
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


def request(abandon: threading.Event | None, prompt: str = "Hello") -> GenerationRequest:
    return GenerationRequest(prompt, SamplingParams(max_tokens=1000), seed=1, abandon=abandon)


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


def test_an_abandoned_request_stops_while_its_prompt_is_evaluated(backend: Any) -> None:
    """A long prompt is evaluated a piece at a time, the request checked between pieces: in
    one call it took the embedded model about 10 s of a planned document's prompt, and Ctrl-C
    waited for it (500 tokens are 5 s here)."""
    abandon = threading.Event()
    threading.Timer(0.1, abandon.set).start()
    started = time.monotonic()
    with pytest.raises(RequestAbandoned):
        backend.generate(request(abandon, "x" * 500))
    assert time.monotonic() - started < 2
    assert sum(backend._llama.evaluations) < 100  # of 500
    assert backend._llama.prompts == []  # it never reached create_completion


def test_the_prompt_evaluated_in_pieces_is_the_one_completed_and_stays_cached(
    backend: Any,
) -> None:
    """create_completion finds the pieces in the cache and evaluates only the last token; the
    next prompt evaluates only what follows the prefix it shares with this one."""
    llama = backend._llama
    sampling = SamplingParams(max_tokens=2)
    backend.generate(GenerationRequest("y" * 100, sampling, abandon=threading.Event()))
    assert llama.prompts == [list(b"y" * 100)]
    assert sum(llama.evaluations) == 100 and llama.evaluations[-1] == 1
    llama.evaluations.clear()
    backend.generate(GenerationRequest("y" * 90 + "z" * 20, sampling, abandon=threading.Event()))
    assert sum(llama.evaluations) == 20
