"""The OpenAI-compatible backend against a loopback stub: concurrency, retries, no loss."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from stub_openai_server import StubOpenAIServer, fictional_document

from gen.backends.base import Backend, GenerationRequest, SamplingParams
from gen.backends.http_retry import RetryPolicy, ServerUnavailableError
from gen.backends.openai_backend import OpenAIBackend
from gen.core.errors import ModelError, UsageError

FAST_RETRY = RetryPolicy(attempts=6, initial_delay=0.01, max_delay=0.05)


def run_all(backend: OpenAIBackend, prompts: list[str]) -> list[str]:
    """What the pipeline does: `concurrency` calls in flight, results as they complete."""
    requests = [GenerationRequest(prompt=p, seed=i) for i, p in enumerate(prompts)]
    with ThreadPoolExecutor(backend.concurrency) as pool:
        return [c.text for c in pool.map(backend.generate, requests)]


def test_keeps_exactly_concurrency_requests_in_flight() -> None:
    prompts = [f"document {i}" for i in range(12)]
    with StubOpenAIServer(gate=4) as server:
        backend = OpenAIBackend(server.url, concurrency=4, retry=FAST_RETRY)
        assert isinstance(backend, Backend)
        texts = run_all(backend, prompts)
    assert server.peak == 4
    assert texts == [f"answer to {p}" for p in prompts]


def test_extra_caller_threads_never_exceed_concurrency() -> None:
    prompts = [f"document {i}" for i in range(10)]
    with StubOpenAIServer(gate=2) as server:
        backend = OpenAIBackend(server.url, concurrency=2, retry=FAST_RETRY)
        with ThreadPoolExecutor(8) as pool:
            list(pool.map(backend.generate, [GenerationRequest(prompt=p) for p in prompts]))
    assert server.peak == 2


def test_documents_pipeline_keeps_n_requests_in_flight(tmp_path: Path) -> None:
    from gen.core.runs import RunPaths
    from gen.core.store import RecordTable
    from gen.generate.options import DocumentsOptions
    from gen.generate.plan_spec import PlanSpec
    from gen.generate.run import run

    paths = RunPaths(tmp_path)
    with StubOpenAIServer(answer=fictional_document, gate=3, faults=["drop", "503"]) as server:
        backend = OpenAIBackend(server.url, concurrency=3, retry=FAST_RETRY)
        options = DocumentsOptions(PlanSpec(language="en"), n=6, prompt_format="plain")
        summary = run(paths, options, backend)
    assert server.peak == 3
    assert summary.accepted == 6
    ids = [record.id for record in RecordTable(paths.documents).read()]
    assert len(ids) == len(set(ids)) == 6


def test_faults_are_retried_and_no_item_is_lost_or_duplicated() -> None:
    prompts = [f"document {i}" for i in range(8)]
    faults = ["429", "drop", "503", "drop", "429"]
    with StubOpenAIServer(faults=faults) as server:
        backend = OpenAIBackend(server.url, concurrency=3, retry=FAST_RETRY)
        texts = run_all(backend, prompts)
    assert Counter(texts) == Counter(f"answer to {p}" for p in prompts)
    assert len(server.bodies) == len(prompts) + len(faults)
    assert backend.retries == len(faults)


def test_gives_up_after_the_last_attempt_with_a_clear_message() -> None:
    policy = RetryPolicy(attempts=3, initial_delay=0.01, max_delay=0.02)
    with StubOpenAIServer(faults=["503"] * 5) as server:
        backend = OpenAIBackend(server.url, retry=policy)
        with pytest.raises(ServerUnavailableError, match=r"after 3 attempts"):
            backend.generate(GenerationRequest(prompt="x"))
    assert len(server.bodies) == 3


def test_unreachable_server_is_a_backend_error() -> None:
    port = free_port()
    policy = RetryPolicy(attempts=2, initial_delay=0.01, max_delay=0.02)
    with pytest.raises(ServerUnavailableError, match=rf"127.0.0.1:{port}.*server running"):
        OpenAIBackend(f"http://127.0.0.1:{port}/v1", retry=policy)


@pytest.mark.parametrize(
    ("fault", "message"), [("400", "HTTP 400"), ("garbage", "other than JSON")]
)
def test_bad_answers_fail_at_once(fault: str, message: str) -> None:
    with StubOpenAIServer(faults=[fault]) as server:
        backend = OpenAIBackend(server.url, retry=FAST_RETRY)
        with pytest.raises(ModelError, match=message):
            backend.generate(GenerationRequest(prompt="x"))
    assert len(server.bodies) == 1


GRAMMAR = 'root ::= "yes" | "no"'
SAMPLING = SamplingParams(temperature=0.5, top_p=0.8, top_k=0, repeat_penalty=1.2, max_tokens=7)


@pytest.mark.parametrize(
    ("owner", "kind", "expected_extra"),
    [
        ("llamacpp", "llamacpp", {"grammar": GRAMMAR, "top_k": 0, "repeat_penalty": 1.2}),
        ("me", "llamacpp", {"grammar": GRAMMAR, "top_k": 0, "repeat_penalty": 1.2}),
        (
            "vllm",
            "vllm",
            {"structured_outputs": {"grammar": GRAMMAR}, "top_k": -1, "repetition_penalty": 1.2},
        ),
        ("openai", "generic", {}),
    ],
)
def test_request_body_follows_the_server_kind(
    owner: str, kind: str, expected_extra: dict[str, object]
) -> None:
    with StubOpenAIServer(models=[("m", owner)]) as server:
        backend = OpenAIBackend(f"{server.url}/v1", retry=FAST_RETRY)
        backend.generate(GenerationRequest(prompt="p", sampling=SAMPLING, seed=42, grammar=GRAMMAR))
    assert backend.server_kind == kind
    assert server.bodies == [
        {
            "model": "m",
            "prompt": "p",
            "max_tokens": 7,
            "temperature": 0.5,
            "top_p": 0.8,
            "seed": 42,
            **expected_extra,
        }
    ]


def test_completion_carries_usage_and_finish_reason() -> None:
    with StubOpenAIServer() as server:
        completion = OpenAIBackend(server.url, retry=FAST_RETRY).generate(
            GenerationRequest(prompt="one two three")
        )
    assert (completion.prompt_tokens, completion.completion_tokens) == (3, 5)
    assert completion.finish_reason == "stop"
    assert completion.seconds > 0


def test_api_key_is_sent_but_never_described(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEN_TEST_KEY", "sk-secret-value")
    with StubOpenAIServer() as server:
        backend = OpenAIBackend(server.url, api_key_env="GEN_TEST_KEY", retry=FAST_RETRY)
        backend.generate(GenerationRequest(prompt="x"))
    assert server.headers[0]["Authorization"] == "Bearer sk-secret-value"
    assert "sk-secret-value" not in repr(backend.describe())
    assert backend.describe()["api_key_env"] == "GEN_TEST_KEY"


def test_model_must_be_named_when_the_server_has_several() -> None:
    with StubOpenAIServer(models=[("a", "vllm"), ("b", "vllm")]) as server:
        with pytest.raises(UsageError, match="--api-model"):
            OpenAIBackend(server.url, retry=FAST_RETRY)
        assert OpenAIBackend(server.url, "b", retry=FAST_RETRY).server_kind == "vllm"


def test_concurrency_must_be_positive() -> None:
    with pytest.raises(UsageError, match="--concurrency"):
        OpenAIBackend("http://127.0.0.1:1", "m", server_kind="generic", concurrency=0)


class LlamaCppServer:
    """`python -m llama_cpp.server` with the embedded model, on a fixed loopback port."""

    def __init__(self, model: Path, port: int, log: Path) -> None:
        self.command = [
            sys.executable, "-m", "llama_cpp.server", "--model", str(model),
            "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "512", "--verbose", "False",
        ]  # fmt: skip
        self.url = f"http://127.0.0.1:{port}"
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(self.command, stdout=log, stderr=log)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            assert self.process.poll() is None, self.log.read_text()[-2000:]
            with contextlib.suppress(httpx.TransportError):
                if httpx.get(f"{self.url}/v1/models", timeout=2).status_code == 200:
                    return
            time.sleep(0.2)
        raise AssertionError(f"llama_cpp.server did not come up: {self.log.read_text()[-2000:]}")

    def kill(self) -> None:
        assert self.process is not None
        self.process.kill()
        self.process.wait()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.model
def test_real_server_killed_and_restarted_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    pytest.importorskip("llama_cpp.server.app")
    from gen.backends import embedded_model_path

    server = LlamaCppServer(embedded_model_path(), free_port(), tmp_path / "server.log")
    server.start()
    try:
        backend = OpenAIBackend(
            server.url, concurrency=1, retry=RetryPolicy(attempts=40, max_delay=1.0)
        )
        assert backend.server_kind == "llamacpp"
        sampling = SamplingParams(max_tokens=8, temperature=0.0)
        template = "<|im_start|>user\nName a colour, number {}.<|im_end|>\n<|im_start|>assistant\n"
        requests = [GenerationRequest(template.format(i), sampling, seed=i) for i in range(4)]
        with ThreadPoolExecutor(1) as pool:
            futures = [pool.submit(backend.generate, r) for r in requests]
            futures[0].result(timeout=120)
            server.kill()
            server.start()
            completions = [f.result(timeout=300) for f in futures]
        assert all(c.completion_tokens > 0 and c.text for c in completions)
        assert backend.retries > 0
        reference = [backend.generate(r).text for r in requests]
    finally:
        server.kill()
    assert [c.text for c in completions] == reference
