"""An httpx transport that is a polite API client: on-disk cache, rate limit, retries.

Every answer is kept on disk, so a rerun or a resumed run never asks the server
twice, and `offline` mode answers from the cache alone. Requests that do reach
the network are spaced by a minimum interval and retried with exponential
backoff on connection errors, 429, 5xx, non-JSON error pages and MediaWiki
"try later" errors (honouring `Retry-After`). Error answers are never cached.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_exception_type,
    retry_if_result,
    stop_after_attempt,
)

from gen.core.errors import GenError
from gen.core.files import write_atomic

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
#: MediaWiki error codes that mean "try again later".
TRANSIENT_API_ERRORS = frozenset({"maxlag", "ratelimited", "readonly"})


class NotCachedError(GenError):
    """Offline mode was asked for something the cache does not hold."""


class ApiError(GenError):
    """The API answered with an error instead of data; never cached."""


@dataclass(frozen=True)
class Politeness:
    """How hard the client may push a server."""

    #: Seconds between two requests that reach the network.
    min_interval: float = 1.0
    #: Extra attempts after the first one, for connection errors, 429 and 5xx.
    max_retries: int = 4
    #: First backoff in seconds; doubles on each retry.
    backoff: float = 2.0
    #: Upper bound for any single wait (backoff or Retry-After).
    max_wait: float = 60.0
    timeout: float = 30.0


DEFAULT_POLITENESS = Politeness()


def cache_key(request: httpx.Request) -> str:
    """Key on the sorted query only, so a mirror or a moved test server shares the cache."""
    params = sorted(request.url.params.multi_items())
    canonical = "&".join(f"{name}={value}" for name, value in params)
    return hashlib.sha256(f"{request.method} {canonical}".encode()).hexdigest()


class PoliteTransport(httpx.BaseTransport):
    """Answers from `cache_dir` when it can, else from `inner`, politely."""

    def __init__(
        self,
        cache_dir: Path,
        *,
        politeness: Politeness = DEFAULT_POLITENESS,
        offline: bool = False,
        inner: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.cache_dir = Path(cache_dir)
        self.politeness = politeness
        self.offline = offline
        self.inner = inner or httpx.HTTPTransport()
        self.sleep = sleep
        self.network_requests = 0
        self.cache_hits = 0
        self._last_request = float("-inf")
        self._lock = threading.Lock()

    def is_empty(self) -> bool:
        return not self.cache_dir.is_dir() or next(self.cache_dir.glob("*/*.json"), None) is None

    def _path(self, request: httpx.Request) -> Path:
        key = cache_key(request)
        return self.cache_dir / key[:2] / f"{key}.json"

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        path = self._path(request)
        cached = _read_entry(path)
        if cached is not None:
            self.cache_hits += 1
            return httpx.Response(200, content=cached, request=request)
        if self.offline:
            raise NotCachedError(f"offline: {request.url} is not in the cache {self.cache_dir}")
        response = self._fetch(request)
        answer = _api_answer(response.content) if response.status_code == 200 else None
        if answer is not None and "error" in answer:
            error = answer["error"] if isinstance(answer["error"], dict) else {}
            raise ApiError(
                f"the API refused {request.url}: {error.get('code', '?')}: {error.get('info', '')}"
            )
        if answer is not None:
            write_atomic(path, response.content, durable=False)
        return response

    def _fetch(self, request: httpx.Request) -> httpx.Response:
        retrying = Retrying(
            stop=stop_after_attempt(1 + self.politeness.max_retries),
            wait=self._wait,
            retry=retry_if_exception_type(httpx.TransportError) | retry_if_result(_is_transient),
            retry_error_callback=_last_outcome,
            sleep=self.sleep,
        )
        return retrying(self._send_spaced, request)

    def _send_spaced(self, request: httpx.Request) -> httpx.Response:
        with self._lock:
            pause = self._last_request + self.politeness.min_interval - time.monotonic()
            if pause > 0:
                self.sleep(pause)
            self._last_request = time.monotonic()
            self.network_requests += 1
        response = self.inner.handle_request(request)
        response.read()
        return response

    def _wait(self, state: RetryCallState) -> float:
        backoff = self.politeness.backoff * 2 ** (state.attempt_number - 1)
        outcome = state.outcome
        if outcome is not None and not outcome.failed:
            retry_after = outcome.result().headers.get("Retry-After", "")
            if retry_after.isdigit():
                backoff = float(retry_after)
        return min(backoff, self.politeness.max_wait)

    def close(self) -> None:
        self.inner.close()


def _is_transient(response: httpx.Response) -> bool:
    """Overload answers: 429, 5xx, an error page served as 200, or a MediaWiki
    error that says "later" (replication lag, rate limit, read-only)."""
    if response.status_code != 200:
        return response.status_code in RETRY_STATUSES
    answer = _api_answer(response.content)
    if answer is None:
        return True
    error = answer.get("error")
    return isinstance(error, dict) and error.get("code") in TRANSIENT_API_ERRORS


def _read_entry(path: Path) -> bytes | None:
    """A cached answer, or None if absent or cut short by a crash (then fetched again)."""
    try:
        body = path.read_bytes()
    except FileNotFoundError:
        return None
    return body if _api_answer(body) is not None else None


def _api_answer(body: bytes) -> dict[str, Any] | None:
    """The decoded answer, or None when the body is not a JSON object."""
    try:
        answer = json.loads(body)
    except ValueError:
        return None
    return answer if isinstance(answer, dict) else None


def _last_outcome(state: RetryCallState) -> httpx.Response:
    """After the last attempt, hand the caller the final answer or error as is."""
    assert state.outcome is not None
    return state.outcome.result()
