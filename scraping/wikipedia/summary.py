"""What a `gen wikipedia` run did: counts kept, rejected (by reason), not cached, fetched.

Filled in by the walk, the page reader and the stage as they go, and written as the
stage manifest even when the run is interrupted.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, fields
from typing import Any


@dataclass
class ScrapeSummary:
    """What a `gen wikipedia` run did; also written as the stage manifest."""

    language: str
    depth: int
    max_pages: int | None
    seed: int
    offline: bool
    status: str = "running"
    pages_examined: int = 0
    pages_kept: int = 0
    paragraphs_kept: int = 0
    kept_by_category: Counter[str] = field(default_factory=Counter)
    rejected: Counter[str] = field(default_factory=Counter)
    not_cached: int = 0
    network_requests: int = 0
    cache_hits: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self)}


def _plain(value: Any) -> Any:
    """Counters as plain sorted dicts (dataclasses.asdict mangles them)."""
    return dict(sorted(value.items())) if isinstance(value, Counter) else value
