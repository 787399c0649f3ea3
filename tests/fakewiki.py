"""A tiny MediaWiki API on loopback, serving invented pages, that can be told to fail.

It answers the queries the `wikipedia-api` client sends (`list=categorymembers`,
`prop=extracts|info|categories`) from a fixture file:

    categories: {"Categoria:X": ["Categoria:Y", "Page title", ...]}
    pages: {"Page title": {id: 1, revision: 2, categories: [...], extract: "..."}}
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, urlsplit

from gen.core.yamlio import read_yaml

CATEGORY_PREFIXES = ("Categoria:", "Category:")


@dataclass
class FakeWiki:
    categories: dict[str, list[str]]
    pages: dict[str, dict[str, Any]]
    #: Members per categorymembers answer, to exercise `cmcontinue`.
    page_size: int = 500
    #: One action per request, consumed first: "503", "429", "drop" or "garbage".
    failures: list[str] = field(default_factory=list)
    #: After this many answered requests, every request gets a 503.
    outage_after: int | None = None
    requests: list[dict[str, str]] = field(default_factory=list)
    user_agents: list[str] = field(default_factory=list)
    answered: int = 0
    url: str = ""

    @classmethod
    def from_fixture(cls, path: Path) -> FakeWiki:
        data = read_yaml(Path(path))
        return cls(categories=data.get("categories", {}), pages=data.get("pages", {}))

    def answer(self, params: dict[str, str]) -> dict[str, Any]:
        if params.get("list") == "categorymembers":
            return self._members(params["cmtitle"], int(params.get("cmcontinue", 0)))
        title = params["titles"]
        page = self.pages.get(title)
        if page is None:
            return {"query": {"pages": {"-1": {"ns": 0, "title": title, "missing": ""}}}}
        entry: dict[str, Any] = {"pageid": page["id"], "ns": 0, "title": title}
        prop = params.get("prop")
        if prop == "extracts":
            entry["extract"] = page["extract"]
        elif prop == "info":
            entry["lastrevid"] = page["revision"]
            entry["fullurl"] = f"https://fake.example/wiki/{quote(title.replace(' ', '_'))}"
        elif prop == "categories":
            entry["categories"] = [{"ns": 14, "title": c} for c in page.get("categories", [])]
        return {"batchcomplete": "", "query": {"pages": {str(page["id"]): entry}}}

    def _members(self, category: str, offset: int) -> dict[str, Any]:
        titles = self.categories.get(category, [])
        batch = titles[offset : offset + self.page_size]
        members = [self._member(title) for title in batch]
        answer: dict[str, Any] = {"query": {"categorymembers": members}}
        if offset + self.page_size < len(titles):
            answer["continue"] = {"cmcontinue": str(offset + self.page_size), "continue": "-||"}
        return answer

    def _member(self, title: str) -> dict[str, Any]:
        if title.startswith(CATEGORY_PREFIXES):
            return {
                "pageid": 900000 + sorted(self.categories).index(title),
                "ns": 14,
                "title": title,
            }
        return {"pageid": self.pages.get(title, {}).get("id", 0), "ns": 0, "title": title}


def _handler(wiki: FakeWiki) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            params = dict(parse_qsl(urlsplit(self.path).query))
            wiki.requests.append(params)
            wiki.user_agents.append(self.headers.get("User-Agent", ""))
            action = wiki.failures.pop(0) if wiki.failures else None
            if wiki.outage_after is not None and wiki.answered >= wiki.outage_after:
                action = "503"
            if action == "drop":
                self.close_connection = True
                return
            if action in ("503", "429"):
                self._send(int(action), b"busy", {"Retry-After": "0"})
                return
            body = b"<html>not json" if action == "garbage" else json.dumps(wiki.answer(params))
            wiki.answered += 1
            self._send(200, body if isinstance(body, bytes) else body.encode())

        def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: tests read `wiki.requests` instead."""

    return Handler


@contextmanager
def serve(wiki: FakeWiki) -> Iterator[FakeWiki]:
    """Serve `wiki` on 127.0.0.1 (a free port); `wiki.url` is the API URL template."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(wiki))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    wiki.url = f"http://127.0.0.1:{server.server_address[1]}/{{lang}}/w/api.php"
    try:
        yield wiki
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
