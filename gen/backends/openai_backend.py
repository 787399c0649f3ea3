"""Any OpenAI-compatible server (vLLM, llama.cpp server, TGI, ...) over `/v1/completions`.

The prompt arrives already rendered (`gen.backends.prompting`), so the raw completions endpoint
is used and the server must not apply a chat template of its own. Concurrency comes
from the server: `generate` is thread-safe and the pipeline keeps `concurrency`
requests in flight. A request is retried with jittered exponential backoff on
429/5xx answers and dropped connections, so a server that dies and comes back
loses no document; only when the retries are exhausted does it raise
(`gen.backends.http_retry`). What differs between servers is in `gen.backends.openai_dialects`.

Labels are scored from the `logprobs` (top first tokens) of a one-token completion where
the server gives them (llama.cpp servers, vLLM); other servers get the generated path.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

from gen.backends.base import Capabilities, ChatTemplate, Completion, GenerationRequest
from gen.backends.http_retry import DEFAULT_RETRY, JsonClient, RetryPolicy, auth_headers
from gen.backends.openai_dialects import (
    GRAMMAR_KINDS,
    LOGPROB_KINDS,
    ServerKind,
    completion_body,
    detect_kind,
    top_logprobs,
)
from gen.backends.scoring import logprobs_from_top
from gen.backends.spec import BackendOptions, BackendSpec, cli
from gen.core.errors import ModelError, UsageError


@dataclass(frozen=True)
class OpenAIOptions(BackendOptions):
    base_url: str | None = field(
        default=None,
        metadata=cli(
            "--base-url",
            "OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 (openai).",
            unset="none; --backend openai needs one",
        ),
    )
    api_model: str | None = field(
        default=None,
        metadata=cli(
            "--api-model",
            "Model name the server expects (openai).",
            unset="the one model the server serves",
        ),
    )
    api_key_env: str = field(
        default="OPENAI_API_KEY",
        metadata=cli(
            "--api-key-env", "Environment variable holding the API key (openai); never stored."
        ),
    )
    server_kind: ServerKind = field(
        default="auto",
        metadata=cli(
            "--server-kind",
            "How to pass grammars to the server (openai): llama.cpp's `grammar`, vLLM's "
            "structured outputs, or none (generic); auto asks the server.",
        ),
    )
    timeout: float = field(
        default=300.0, metadata=cli("--timeout", "Seconds to wait for one answer (openai).", min=1)
    )
    concurrency: int = field(
        default=4, metadata=cli("--concurrency", "Requests in flight (openai).", min=1)
    )


#: Top first tokens asked for when scoring labels (vLLM's default ceiling).
TOP_LOGPROBS = 20


class OpenAIBackend:
    """Client of an OpenAI-compatible completions endpoint; the API key never leaves the env."""

    name = "openai"

    def __init__(
        self,
        base_url: str,
        model: str | None = None,
        *,
        api_key_env: str = "OPENAI_API_KEY",
        concurrency: int = 4,
        timeout: float = 300.0,
        retry: RetryPolicy = DEFAULT_RETRY,
        server_kind: ServerKind = "auto",
        template: ChatTemplate | None = None,
    ) -> None:
        if concurrency < 1:
            raise UsageError(f"--concurrency must be at least 1, got {concurrency}")
        # Accept both `http://host:8000` and the OpenAI-style `http://host:8000/v1`.
        self.base_url = base_url.rstrip("/").removesuffix("/v1")
        self.concurrency = concurrency
        self.api_key_env = api_key_env
        self._template = template
        self._slots = threading.BoundedSemaphore(concurrency)
        self._http = JsonClient(
            self.base_url,
            api_key_env=api_key_env,
            timeout=timeout,
            connections=concurrency,
            retry=retry,
        )
        served: list[dict[str, Any]] = []
        if model is None or server_kind == "auto":
            served = self._http.request("GET", "/v1/models").get("data", [])
        self.model_id = model or self._only_model(served)
        self.server_kind = (
            server_kind if server_kind != "auto" else detect_kind(served, self.model_id)
        )
        self.capabilities = Capabilities(
            grammar=self.server_kind in GRAMMAR_KINDS,
            logprobs=self.server_kind in LOGPROB_KINDS,
            concurrent=True,
        )

    @property
    def retries(self) -> int:
        """Requests sent again after a failure, over the backend's life (for reports)."""
        return self._http.retries

    def _only_model(self, served: list[dict[str, Any]]) -> str:
        ids = [entry.get("id") for entry in served]
        if len(ids) != 1 or not isinstance(ids[0], str):
            raise UsageError(
                f"{self.base_url} serves {len(ids)} models {ids}; choose one with --api-model"
            )
        return ids[0]

    def request_body(self, request: GenerationRequest) -> dict[str, Any]:
        """The JSON sent for `request`, in the dialect of this server kind."""
        return completion_body(self.server_kind, self.model_id, request)

    def generate(self, request: GenerationRequest) -> Completion:
        body = self.request_body(request)
        with self._slots:
            started = time.perf_counter()
            answer = self._http.request("POST", "/v1/completions", body)
            seconds = time.perf_counter() - started
        try:
            choice = answer["choices"][0]
            text = choice["text"]
        except (KeyError, IndexError, TypeError):
            raise ModelError(
                f"{self.base_url}/v1/completions answered without choices[0].text: "
                f"{str(answer)[:200]}"
            ) from None
        usage = answer.get("usage") or {}
        return Completion(
            text=text,
            prompt_tokens=int(usage.get("prompt_tokens") or 0),
            completion_tokens=int(usage.get("completion_tokens") or 0),
            seconds=seconds,
            finish_reason="length" if choice.get("finish_reason") == "length" else "stop",
        )

    def label_logprobs(self, prompt: str, labels: Sequence[str]) -> list[float]:
        """A one-token greedy completion with its top first tokens; see `logprobs_from_top`."""
        body = {
            "model": self.model_id,
            "prompt": prompt,
            "max_tokens": 1,
            "temperature": 0.0,
            "logprobs": TOP_LOGPROBS,
        }
        with self._slots:
            answer = self._http.request("POST", "/v1/completions", body)
        top = top_logprobs(answer)
        if top is None:
            raise ModelError(
                f"{self.base_url}/v1/completions gave no usable logprobs to score labels with "
                f"({str(answer)[:200]}); label with --answers generated"
            )
        return logprobs_from_top(top, labels)

    def chat_template(self) -> ChatTemplate | None:
        return self._template

    def describe(self) -> dict[str, object]:
        return {
            "backend": self.name,
            "base_url": self.base_url,
            "model": self.model_id,
            "server_kind": self.server_kind,
            "concurrency": self.concurrency,
            "api_key_env": self.api_key_env,
            "retries": self.retries,
            "grammar": "server" if self.capabilities.grammar else "parse-and-retry",
        }

    def close(self) -> None:
        self._http.close()


class RawServer:
    """Plain sequential HTTP requests with the exact bodies the openai backend sends."""

    def __init__(self, backend: OpenAIBackend) -> None:
        self.backend = backend
        self.client = httpx.Client(
            base_url=backend.base_url, headers=auth_headers(backend.api_key_env), timeout=600.0
        )

    def complete(self, request: GenerationRequest) -> int:
        response = self.client.post("/v1/completions", json=self.backend.request_body(request))
        response.raise_for_status()
        return int(response.json()["usage"]["completion_tokens"])

    def figures(self, requests: Sequence[GenerationRequest]) -> dict[str, float | None]:
        return {}


def create(options: OpenAIOptions) -> OpenAIBackend:
    if not options.base_url:
        raise UsageError("--backend openai needs --base-url (e.g. http://127.0.0.1:8000/v1)")
    return OpenAIBackend(
        base_url=options.base_url,
        model=options.api_model,
        api_key_env=options.api_key_env,
        concurrency=options.concurrency,
        server_kind=options.server_kind,
        timeout=options.timeout,
    )


BACKEND = BackendSpec(
    name="openai", options=OpenAIOptions, create=create, raw_engine=RawServer, rank=20
)
