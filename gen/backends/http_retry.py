"""HTTP plumbing of server backends: which answers are worth another try, how long to
wait before it (jittered exponential backoff, the server's Retry-After honoured), and
the bearer header read from the environment at the last moment."""

from __future__ import annotations

import os
from dataclasses import dataclass

import httpx

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
