"""HTTP plumbing of server backends: which answers are worth another try, how long to
wait before it (jittered exponential backoff, the server's Retry-After honoured), the
bearer header read from the environment at the last moment, and `JsonClient`, which puts
them together for a backend's JSON requests."""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from typing import Any

import httpx
import tenacity

from gen.core.errors import ModelError

#: Answers worth another try: the server is busy, restarting or overloaded.
RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


class ServerUnavailableError(ModelError):
    """The server kept failing after every retry."""

    exit_code = 1


class RetryableAnswer(Exception):
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


DEFAULT_RETRY = RetryPolicy()


def retry_after_seconds(response: httpx.Response) -> float | None:
    try:
        return float(response.headers["retry-after"])
    except (KeyError, ValueError):
        return None


def auth_headers(api_key_env: str) -> dict[str, str]:
    """The bearer header, read from the environment at the last moment and kept nowhere else."""
    api_key = os.environ.get(api_key_env)
    return {"Authorization": f"Bearer {api_key}"} if api_key else {}


def is_retryable(exc: BaseException) -> bool:
    return isinstance(exc, RetryableAnswer | httpx.TransportError)


class JsonClient:
    """JSON requests to one server, each retried on busy answers and dropped connections
    (`RetryPolicy`); thread-safe, with at most `connections` open at once."""

    def __init__(
        self,
        base_url: str,
        *,
        api_key_env: str,
        timeout: float,
        connections: int,
        retry: RetryPolicy = DEFAULT_RETRY,
    ) -> None:
        self.base_url = base_url
        self.retry = retry
        #: Requests sent again after a failure, over the client's life (for reports).
        self.retries = 0
        self._retries_lock = threading.Lock()
        self._client = httpx.Client(
            base_url=base_url,
            headers=auth_headers(api_key_env),
            timeout=httpx.Timeout(timeout, connect=10.0),
            limits=httpx.Limits(max_connections=connections, max_keepalive_connections=connections),
        )

    def request(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        """The decoded JSON answer; ServerUnavailableError once the retries are spent,
        ModelError for a refusal or an answer that is not JSON."""
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

    def close(self) -> None:
        self._client.close()
