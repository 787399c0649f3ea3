"""A loopback OpenAI-compatible server that counts requests in flight and injects faults."""

from __future__ import annotations

import json
import random
import threading
import zlib
from collections import deque
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class StubOpenAIServer:
    """Answers `/v1/completions` with `answer(prompt)`, by default "answer to <prompt>".

    `faults` are consumed one per completion request: "429" and "503" answer with
    that status, "drop" closes the connection without answering, "garbage" answers
    non-JSON, "400" refuses the request. Every answer ends with `finish_reason` ("length":
    as a server whose context window cut it). `gate` holds the first `gate` requests
    until that many are in flight together, so a client that never reaches that
    concurrency is visible as a lower `peak` instead of a race.
    """

    def __init__(
        self,
        *,
        models: Iterable[tuple[str, str]] = (("stub-model", "stub"),),
        faults: Iterable[str] = (),
        gate: int = 0,
        gate_timeout: float = 5.0,
        answer: Callable[[str], str] = "answer to {}".format,
        finish_reason: str = "stop",
        logprobs: Callable[[dict[str, Any]], Any] | None = None,
    ) -> None:
        self.answer = answer
        self.finish_reason = finish_reason
        self.logprobs = logprobs
        self.models = list(models)
        self.faults = deque(faults)
        self.gate = gate
        self.gate_timeout = gate_timeout
        self.bodies: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.in_flight = 0
        self.peak = 0
        self._gate_open = gate <= 1
        self._lock = threading.Condition()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> StubOpenAIServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _enter(self) -> None:
        with self._lock:
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)
            if self.in_flight >= self.gate:
                self._gate_open = True
            self._lock.notify_all()
            self._lock.wait_for(lambda: self._gate_open, timeout=self.gate_timeout)
            self._gate_open = True

    def _leave(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def _next_fault(self) -> str:
        with self._lock:
            return self.faults.popleft() if self.faults else "ok"

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                """Quiet: the tests assert on recorded state instead."""

            def _send(self, status: int, payload: bytes, headers: dict[str, str]) -> None:
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def _json(self, status: int, payload: object, **headers: str) -> None:
                self._send(status, json.dumps(payload).encode(), headers)

            def do_GET(self) -> None:
                data = [
                    {"id": name, "object": "model", "owned_by": owner}
                    for name, owner in stub.models
                ]
                self._json(200, {"object": "list", "data": data})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with stub._lock:
                    stub.bodies.append(body)
                    stub.headers.append(dict(self.headers))
                stub._enter()
                try:
                    self._answer(body, stub._next_fault())
                finally:
                    stub._leave()

            def _answer(self, body: dict[str, Any], fault: str) -> None:
                if fault == "drop":
                    self.close_connection = True
                    self.connection.shutdown(2)
                elif fault in ("429", "503", "400"):
                    error = {"error": {"message": f"injected {fault}"}}
                    self._json(int(fault), error, **{"Retry-After": "0"})
                elif fault == "garbage":
                    self._send(200, b"<html>not json</html>", {"Content-Type": "text/html"})
                else:
                    prompt = body["prompt"]
                    text = stub.answer(prompt)
                    choice = {"index": 0, "text": text, "finish_reason": stub.finish_reason}
                    if stub.logprobs is not None:
                        choice["logprobs"] = stub.logprobs(body)
                    self._json(
                        200,
                        {
                            "object": "text_completion",
                            "model": body["model"],
                            "choices": [choice],
                            "usage": {
                                "prompt_tokens": len(prompt.split()),
                                "completion_tokens": len(text.split()),
                                "total_tokens": len(prompt.split()) + len(text.split()),
                            },
                        },
                    )

        return Handler


SENTENCES = [
    "The clinic confirmed the appointment for the second week of March.",
    "Our neighbour Marta repaired the fence after the storm last winter.",
    "The committee approved the budget for the new library wing.",
    "Please bring the signed form and a copy of your identity card.",
    "The train to the coast leaves every morning at a quarter past seven.",
    "He has been learning the violin since he retired from the factory.",
    "The invoice lists three boxes of paper and a replacement printer drum.",
    "Our team will review the draft contract before Friday afternoon.",
    "The garden behind the school now grows tomatoes, beans and herbs.",
    "She wrote to the housing office about the broken heating in the flat.",
    "The museum extended its opening hours during the summer festival.",
    "A short meeting is planned to agree on the holiday rota.",
]


def fictional_document(prompt: str) -> str:
    """A distinct English paragraph per prompt, long enough for the document checks."""
    rng = random.Random(zlib.crc32(prompt.encode()))
    return " ".join(rng.sample(SENTENCES, 6))
