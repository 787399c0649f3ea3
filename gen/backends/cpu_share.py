"""Sharing the machine's cores between gen's model processes.

llama.cpp's threads meet at a barrier after every step of a forward pass. When two
processes each run one thread per core, the kernel keeps pushing a thread of one off its
core for the other, and the partner thread waits at the barrier for a whole time slice:
both processes slow down many times over (`bench/bench_processes.py` measures it). So
every gen process that runs a model in process registers itself here (one small file per
process in a folder of the user's temporary directory) and asks, before each request, how
many threads it may use: the cores divided among the live model processes. A process that
starts later makes the earlier ones give cores up at their next request; one that ends
(or is killed: its file is then stale and removed) gives them back.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from gen.core.errors import warn

#: Seconds between two counts of the registry (a request takes far longer).
RECOUNT_SECONDS = 1.0


def available_cores() -> int:
    """Cores this process may run on (its CPU affinity), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def registry_folder() -> Path:
    """One folder per user; `GEN_PROCESS_DIR` moves it (tests, containers sharing a mount)."""
    override = os.environ.get("GEN_PROCESS_DIR")
    if override:
        return Path(override)
    user = os.getuid() if hasattr(os, "getuid") else "user"
    return Path(tempfile.gettempdir()) / f"gen-model-processes-{user}"


def _start_ticks(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (Linux), which tells a live
    process from a later one that got the same pid; None where /proc is absent."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rpartition(")")[2].split()[19]


def _alive(entry: dict[str, object]) -> bool:
    pid = int(str(entry.get("pid", 0)))
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    started = entry.get("started")
    return started is None or started == _start_ticks(pid)


@dataclass
class CoreShare:
    """This process's place among the model processes of the machine.

    `fixed`: a thread count the user chose (`--threads`); the process still registers,
    so that the others leave it its share."""

    fixed: int | None = None
    cores: int = field(default_factory=lambda: available_cores())
    folder: Path = field(default_factory=registry_folder)
    _file: Path | None = None
    _counted_at: float = float("-inf")
    _others: list[dict[str, object]] = field(default_factory=list)

    def register(self, description: str) -> None:
        """Add this process to the registry and say once if others are running."""
        pid = os.getpid()
        entry = {"pid": pid, "started": _start_ticks(pid), "command": description}
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            path = self.folder / f"{pid}.json"
            path.write_text(json.dumps(entry), encoding="utf-8")
        except OSError:  # a read-only or full temp folder must not stop a run
            return
        self._file = path
        atexit.register(self.close)
        others = self.others()
        if others:
            names = ", ".join(f"pid {o['pid']} ({o.get('command', '?')})" for o in others)
            warn(
                f"{len(others)} other gen model process(es) on this machine: {names}; "
                f"this one uses {self.threads()} of {self.cores} cores (--threads sets it); "
                "one model process at a time is fastest"
            )

    def close(self) -> None:
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.unlink()
            self._file = None

    def others(self) -> list[dict[str, object]]:
        """The other live model processes; stale files (killed processes) are removed."""
        now = time.monotonic()
        if now - self._counted_at < RECOUNT_SECONDS:
            return self._others
        self._counted_at = now
        found = []
        for path in self.folder.glob("*.json"):
            if path == self._file:
                continue
            try:
                entry = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if _alive(entry):
                found.append(entry)
            else:
                with contextlib.suppress(OSError):
                    path.unlink()
        self._others = sorted(found, key=lambda entry: int(str(entry.get("pid", 0))))
        return self._others

    def threads(self) -> int:
        """Threads for the next request: `fixed`, or the cores divided among the live
        model processes (at least 1)."""
        if self.fixed:
            return self.fixed
        return max(1, self.cores // (len(self.others()) + 1))


def command_line() -> str:
    """How this process was started, short: `gen documents`, `gen label`..."""
    words = [Path(sys.argv[0]).name, *sys.argv[1:2]] if sys.argv else ["python"]
    return " ".join(words)
