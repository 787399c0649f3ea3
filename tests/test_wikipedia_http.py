"""The polite transport behind `gen wikipedia`: cache, rate limit, backoff, offline."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from scraping.wikipedia.polite_http import ApiError, NotCachedError, Politeness, PoliteTransport

API = "https://it.example/w/api.php"


class Script:
    """An inner transport answering from a list of steps, then 200 with JSON."""

    def __init__(self, *steps: int | Exception | httpx.Response) -> None:
        self.steps = list(steps)
        self.sent: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(request)
        step = self.steps.pop(0) if self.steps else 200
        if isinstance(step, Exception):
            raise step
        if isinstance(step, httpx.Response):
            return step
        return httpx.Response(step, content=b'{"ok": true}' if step == 200 else b"busy")


def api_error(code: str) -> httpx.Response:
    return httpx.Response(200, json={"error": {"code": code, "info": "try later"}})


def client(
    tmp_path: Path, script: Script, *, offline: bool = False, **politeness: float
) -> tuple[httpx.Client, list[float], PoliteTransport]:
    sleeps: list[float] = []
    settings = {"min_interval": 0.0, "backoff": 1.0, "max_retries": 3, **politeness}
    transport = PoliteTransport(
        tmp_path / "cache",
        politeness=Politeness(**settings),
        offline=offline,
        inner=httpx.MockTransport(script),
        sleep=sleeps.append,
    )
    return httpx.Client(transport=transport), sleeps, transport


def get(http: httpx.Client, **params: str) -> httpx.Response:
    return http.get(API, params=params or {"action": "query"})


def test_answers_are_cached_whatever_the_parameter_order(tmp_path: Path) -> None:
    script = Script()
    http, _, transport = client(tmp_path, script)
    get(http, a="1", b="2")
    again = http.get(API + "?b=2&a=1")
    assert again.json() == {"ok": True}
    assert len(script.sent) == 1 and transport.cache_hits == 1


def test_requests_are_spaced_by_the_minimum_interval(tmp_path: Path) -> None:
    http, sleeps, _ = client(tmp_path, Script(), min_interval=5.0)
    for page in "abc":
        get(http, titles=page)
    assert len(sleeps) == 2 and all(4.5 < pause <= 5.0 for pause in sleeps)


def test_backoff_doubles_on_server_errors_and_connection_drops(tmp_path: Path) -> None:
    script = Script(503, httpx.RemoteProtocolError("dropped"), 502)
    http, sleeps, _ = client(tmp_path, script)
    assert get(http).status_code == 200
    assert sleeps == [1.0, 2.0, 4.0]


def test_retry_after_is_honoured_and_capped(tmp_path: Path) -> None:
    script = Script(
        httpx.Response(429, headers={"Retry-After": "7"}),
        httpx.Response(429, headers={"Retry-After": "600"}),
    )
    http, sleeps, _ = client(tmp_path, script, max_wait=60.0)
    assert get(http).status_code == 200
    assert sleeps == [7.0, 60.0]


def test_gives_up_after_the_last_retry_and_caches_nothing(tmp_path: Path) -> None:
    script = Script(503, 503, 503, 503)
    http, _, transport = client(tmp_path, script)
    assert get(http).status_code == 503
    assert len(script.sent) == 4
    assert transport.is_empty()


def test_connection_errors_surface_after_retries(tmp_path: Path) -> None:
    http, _, _ = client(tmp_path, Script(*[httpx.ConnectError("refused") for _ in range(4)]))
    with pytest.raises(httpx.ConnectError):
        get(http)


def test_error_pages_and_lag_errors_are_retried(tmp_path: Path) -> None:
    page = httpx.Response(200, content=b"<html>busy</html>")
    http, sleeps, transport = client(tmp_path, Script(page, api_error("maxlag")))
    assert get(http).json() == {"ok": True}
    assert sleeps == [1.0, 2.0] and transport.network_requests == 3


def test_api_errors_are_reported_and_never_cached(tmp_path: Path) -> None:
    script = Script(api_error("badvalue"))
    http, sleeps, transport = client(tmp_path, script)
    with pytest.raises(ApiError, match="badvalue: try later"):
        get(http)
    assert sleeps == [] and transport.is_empty()
    assert get(http).json() == {"ok": True}


def test_client_errors_are_not_retried(tmp_path: Path) -> None:
    script = Script(404)
    http, sleeps, _ = client(tmp_path, script)
    assert get(http).status_code == 404 and sleeps == [] and len(script.sent) == 1


def test_garbage_is_not_cached_and_a_cut_file_is_fetched_again(tmp_path: Path) -> None:
    script = Script()
    http, _, transport = client(tmp_path, script)
    get(http)
    (entry,) = transport.cache_dir.glob("*/*.json")
    entry.write_bytes(b'{"ok": tr')  # as if cut by a crash
    assert get(http).json() == {"ok": True}
    assert len(script.sent) == 2


def test_offline_serves_the_cache_and_refuses_the_rest(tmp_path: Path) -> None:
    online, _, _ = client(tmp_path, Script())
    get(online, titles="cached")
    script = Script()
    offline, _, _ = client(tmp_path, script, offline=True)
    assert get(offline, titles="cached").json() == {"ok": True}
    with pytest.raises(NotCachedError, match="not in the cache"):
        get(offline, titles="missing")
    assert script.sent == []
