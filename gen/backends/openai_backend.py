"""Any OpenAI-compatible server (vLLM, llama.cpp server, TGI, ...) over `/v1/completions`.

The prompt arrives already rendered (`gen.backends.prompting`), so the raw completions endpoint
is used and the server must not apply a chat template of its own. Concurrency comes
from the server: `generate` is thread-safe and the pipeline keeps `concurrency`
requests in flight. A request is retried with jittered exponential backoff on
429/5xx answers and dropped connections, so a server that dies and comes back
loses no document; only when the retries are exhausted does it raise.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from typing import Any, Literal, get_args

import httpx
import tenacity

from gen.backends.base import ChatTemplate, Completion, GenerationRequest
from gen.core.errors import ModelError, UsageError

ServerKind = Literal["auto", "llamacpp", "vllm", "generic"]
SERVER_KINDS: tuple[str, ...] = get_args(ServerKind)

#: `owned_by` of `/v1/models` entries, as each server fills it in.
_OWNERS_TO_KIND = {"llamacpp": "llamacpp", "me": "llamacpp", "vllm": "vllm"}
#: Answers worth another try: the server is busy, restarting or overloaded.
_RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


class ServerUnavailableError(ModelError):
    """The server kept failing after every retry."""

    exit_code = 1


class _RetryableAnswer(Exception):
    """A retryable HTTP status; carries the server's Retry-After, if any."""

    def __init__(self, status: int, retry_after: float | None) -> None:
        super().__init__(f"HTTP {status}")
        self.status = status
        self.retry_after = retry_after


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How hard to insist before giving up: ~2.5 minutes with the defaults."""

    attempts: int = 10
    initial_delay: float = 0.5
    max_delay: float = 30.0


def _retry_after_seconds(response: httpx.Response) -> float | None:
    try:
        return float(response.headers["retry-after"])
    except (KeyError, ValueError):
        return None


def auth_headers(api_key_env: str) -> dict[str, str]:
    """The bearer header, read from the environment at the last moment and kept nowhere else."""
    api_key = os.environ.get(api_key_env)
    return {"Authorization": f"Bearer {api_key}"} if api_key else {}


def _is_retryable(exc: BaseException) -> bool:
    return isinstance(exc, _RetryableAnswer | httpx.TransportError)


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
        retry: RetryPolicy = RetryPolicy(),
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
            retry=tenacity.retry_if_exception(_is_retryable),
            before_sleep=self._count_retry,
            reraise=True,
        )
        try:
            return retrying(self._send_once, method, path, body)
        except (_RetryableAnswer, httpx.TransportError) as exc:
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
        server_asked = exc.retry_after if isinstance(exc, _RetryableAnswer) else None
        return max(jittered, min(server_asked or 0.0, self.retry.max_delay))

    def _send_once(self, method: str, path: str, body: dict[str, Any] | None) -> Any:
        response = self._client.request(method, path, json=body)
        if response.status_code in _RETRYABLE_STATUS:
            raise _RetryableAnswer(response.status_code, _retry_after_seconds(response))
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
            "grammar": "server" if self.server_kind in ("llamacpp", "vllm") else "parse-and-retry",
        }

    def close(self) -> None:
        self._client.close()
