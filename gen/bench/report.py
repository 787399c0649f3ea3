"""The figures of `gen bench`: throughput rows, ratios, the machine, the JSON report."""

from __future__ import annotations

import os
import platform
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from gen.core.files import write_json_atomic
from gen.core.runs import RunPaths

#: The pipeline may add at most this share on top of the raw engine.
OVERHEAD_TARGET = 0.05


@dataclass(frozen=True)
class Throughput:
    """Completion tokens and documents over wall-clock seconds."""

    label: str
    documents: int
    completion_tokens: int
    seconds: float

    @property
    def tokens_per_second(self) -> float:
        return self.completion_tokens / self.seconds if self.seconds else 0.0

    @property
    def documents_per_hour(self) -> float:
        return 3600 * self.documents / self.seconds if self.seconds else 0.0

    def merged(self, other: Throughput) -> Throughput:
        return Throughput(
            self.label,
            self.documents + other.documents,
            self.completion_tokens + other.completion_tokens,
            self.seconds + other.seconds,
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            **asdict(self),
            "tokens_per_second": round(self.tokens_per_second, 2),
            "documents_per_hour": round(self.documents_per_hour, 1),
        }


@dataclass
class BenchReport:
    model_id: str
    backend: dict[str, object]
    #: The bench options, as JSON-ready values.
    options: dict[str, Any]
    rows: list[Throughput] = field(default_factory=list)
    figures: dict[str, float | None] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    #: Where the JSON report was written.
    path: Path | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "machine": machine(),
            "model": self.model_id,
            "backend": self.backend,
            "options": self.options,
            "throughput": [row.as_dict() for row in self.rows],
            "figures": self.figures,
            "notes": self.notes,
        }


def machine() -> dict[str, object]:
    """Enough to tell two machines' figures apart."""
    cpu = platform.processor()
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
        cpu = next(line.split(":", 1)[1].strip() for line in lines if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "system": platform.platform(),
        "python": platform.python_version(),
    }


def ratio(numerator: float, denominator: float) -> float | None:
    return round(numerator / denominator, 3) if denominator else None


def write_report(run: RunPaths, report: BenchReport) -> Path:
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    path = run.bench / f"bench-{stamp}.json"
    write_json_atomic(path, report.as_dict())
    report.path = path
    return path
