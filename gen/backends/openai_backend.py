"""Any OpenAI-compatible server (vLLM, llama.cpp server, TGI, ...) over `/v1/completions`.

The prompt arrives already rendered (`gen.backends.prompting`), so the raw completions endpoint
is used and the server must not apply a chat template of its own. Concurrency comes
from the server: `generate` is thread-safe and the pipeline keeps `concurrency`
requests in flight. A request is retried with jittered exponential backoff on
429/5xx answers and dropped connections, so a server that dies and comes back
loses no document; only when the retries are exhausted does it raise.

Labels are scored from the `logprobs` (top first tokens) of a one-token completion where
the server gives them (llama.cpp servers, vLLM); other servers get the generated path.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

import httpx
import tenacity

from gen.backends.base import Capabilities, ChatTemplate, Completion, GenerationRequest
from gen.backends.http_retry import (
    DEFAULT_RETRY,
    RETRYABLE_STATUS,
    RetryableAnswer,
    RetryPolicy,
    ServerUnavailableError,
    auth_headers,
    is_retryable,
    retry_after_seconds,
)
from gen.backends.scoring import logprobs_from_top
from gen.backends.spec import BackendOptions, BackendSpec, cli
from gen.core.errors import ModelError, UsageError

ServerKind = Literal["auto", "llamacpp", "vllm", "generic"]
SERVER_KINDS: tuple[str, ...] = get_args(ServerKind)
#: Server kinds that constrain answers with a grammar.
GRAMMAR_KINDS = ("llamacpp", "vllm")
#: Server kinds whose completions return top log-probabilities (labels are scored).
LOGPROB_KINDS = ("llamacpp", "vllm")


@dataclass(frozen=True)
class OpenAIOptions(BackendOptions):
    base_url: str | None = field(
        default=None,
        metadata=cli("--base-url", "OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1."),
    )
    api_model: str | None = field(
        default=None, metadata=cli("--api-model", "Model name the server expects (openai).")
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


#: `owned_by` of `/v1/models` entries, as each server fills it in.
_OWNERS_TO_KIND = {"llamacpp": "llamacpp", "me": "llamacpp", "vllm": "vllm"}
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
        self.retry = retry
        self.api_key_env = api_key_env
        self._template = template
        self._slots = threading.BoundedSemaphore(concurrency)
        self._retries_lock = threading.Lock()
        #: Requests sent again after a failure, over the backend's life (for reports).
        self.retries = 0
        self._client = httpx.Client(
            base_url=self.base_url,
            headers=auth_headers(api_key_env),
            timeout=httpx.Timeout(timeout, connect=10.0),
            limits=httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency),
        )
        served: list[dict[str, Any]] = []
        if model is None or server_kind == "auto":
            served = self._request("GET", "/v1/models").get("data", [])
        self.model_id = model or self._only_model(served)
        self.server_kind = server_kind if server_kind != "auto" else self._detect_kind(served)
        self.capabilities = Capabilities(
            grammar=self.server_kind in GRAMMAR_KINDS,
            logprobs=self.server_kind in LOGPROB_KINDS,
            concurrent=True,
        )

    def _only_model(self, served: list[dict[str, Any]]) -> str:
        ids = [entry.get("id") for entry in served]
        if len(ids) != 1 or not isinstance(ids[0], str):
            raise UsageError(
                f"{self.base_url} serves {len(ids)} models {ids}; choose one with --api-model"
            )
        return ids[0]

    def _detect_kind(self, served: list[dict[str, Any]]) -> str:
        owners = {entry.get("owned_by") for entry in served if entry.get("id") == self.model_id}
        kinds = {_OWNERS_TO_KIND.get(str(owner), "generic") for owner in owners}
        return kinds.pop() if len(kinds) == 1 else "generic"

    def _request(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        retrying = tenacity.Retrying(
            stop=tenacity.stop_after_attempt(self.retry.attempts),
            wait=self._wait,
            retry=tenacity.retry_if_exception(is_retryable),
            before_sleep=self._count_retry,
            reraise=True,
        )
        try:
            return retrying(self._send_once, method, path, body)
        except (RetryableAnswer, httpx.TransportError) as exc:
            raise ServerUnavailableError(
                f"{self.base_url}{path} still failing after {self.retry.attempts} attempts "
                f"({exc or type(exc).__name__}); is the server running?"
            ) from None

    def _count_retry(self, state: tenacity.RetryCallState) -> None:
        with self._retries_lock:
            self.retries += 1

    def _wait(self, state: tenacity.RetryCallState) -> float:
        jittered = tenacity.wait_random_exponential(
            multiplier=self.retry.initial_delay, max=self.retry.max_delay
        )(state)
        exc = state.outcome.exception() if state.outcome else None
        server_asked = exc.retry_after if isinstance(exc, RetryableAnswer) else None
        return max(jittered, min(server_asked or 0.0, self.retry.max_delay))

    def _send_once(self, method: str, path: str, body: dict[str, Any] | None) -> Any:
        response = self._client.request(method, path, json=body)
        if response.status_code in RETRYABLE_STATUS:
            raise RetryableAnswer(response.status_code, retry_after_seconds(response))
        if response.is_error:
            raise ModelError(
                f"{self.base_url}{path} refused the request: HTTP {response.status_code} "
                f"{response.text[:300]}"
            )
        try:
            return response.json()
        except ValueError:
            raise ModelError(
                f"{self.base_url}{path} answered with something other than JSON: "
                f"{response.text[:200]!r}"
            ) from None

    def request_body(self, request: GenerationRequest) -> dict[str, Any]:
        """The JSON sent for `request`, in the dialect of this server kind."""
        sampling = request.sampling
        body: dict[str, Any] = {
            "model": self.model_id,
            "prompt": request.prompt,
            "max_tokens": sampling.max_tokens,
            "temperature": sampling.temperature,
            "top_p": sampling.top_p,
        }
        if sampling.stop:
            body["stop"] = list(sampling.stop)
        if request.seed is not None:
            body["seed"] = request.seed
        if self.server_kind == "llamacpp":
            body |= {"top_k": sampling.top_k, "repeat_penalty": sampling.repeat_penalty}
            if request.grammar:
                body["grammar"] = request.grammar
        elif self.server_kind == "vllm":
            # Older vLLM releases accept only -1 for "no top-k", newer ones both -1 and 0.
            body |= {"top_k": sampling.top_k or -1, "repetition_penalty": sampling.repeat_penalty}
            if request.grammar:
                body["structured_outputs"] = {"grammar": request.grammar}
        return body

    def generate(self, request: GenerationRequest) -> Completion:
        body = self.request_body(request)
        with self._slots:
            started = time.perf_counter()
            answer = self._request("POST", "/v1/completions", body)
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
            answer = self._request("POST", "/v1/completions", body)
        return logprobs_from_top(self._top_logprobs(answer), labels)

    def _top_logprobs(self, answer: Any) -> Mapping[str, float]:
        """Token text -> logprob of the first answer token, in the completions format
        (`top_logprobs: [{token: logprob}]`) or llama-server's (`content: [{top_logprobs}]`)."""
        try:
            logprobs = answer["choices"][0].get("logprobs") or {}
            if logprobs.get("top_logprobs"):
                return dict(logprobs["top_logprobs"][0])
            if logprobs.get("content"):
                top = logprobs["content"][0]["top_logprobs"]
                return {entry["token"]: float(entry["logprob"]) for entry in top}
        except (KeyError, IndexError, TypeError, AttributeError, ValueError):
            pass
        raise ModelError(
            f"{self.base_url}/v1/completions gave no usable logprobs to score labels with "
            f"({str(answer)[:200]}); label with --answers generated"
        )

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
        self._client.close()


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
