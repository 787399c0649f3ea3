"""Progress for long runs: a live bar on a terminal, plain log lines otherwise."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

console = Console(stderr=True)

#: The part of a longer run that the bars opened now belong to (see `progress_stage`).
_stage: ContextVar[str] = ContextVar("progress_stage", default="")


@contextmanager
def progress_stage(name: str) -> Iterator[None]:
    """Name the part of a longer run that the bars opened inside belong to (one point of a
    learning curve...): `progress` shows it after their own description, so a bar says
    which part it measures without the code that opens it knowing about the whole."""
    token = _stage.set(name)
    try:
        yield
    finally:
        _stage.reset(token)


def say(message: str) -> None:
    """One line on stderr about the run itself (what was resumed), beside the bars."""
    console.print(message, highlight=False, markup=False, soft_wrap=True)


@dataclass
class ProgressReporter:
    """Counts done items and extra fields (tokens/s, failures) for display."""

    description: str
    total: int
    done: int = 0
    fields: dict[str, str] = field(default_factory=dict)
    _bar: Progress | None = None
    _task: int | None = None
    _last_log: float = 0.0
    _logged: int | None = None
    log_every: float = 10.0
    #: When the reporter was made, and its count then (a resumed run's own speed).
    _started: float = 0.0
    _start_count: int = 0

    def __post_init__(self) -> None:
        self._started, self._start_count = time.monotonic(), self.done

    def advance(self, n: int = 1, **fields: object) -> None:
        reached = self.done < self.total <= self.done + n
        self.done += n
        # A total that was an estimate (spaCy's batches per epoch vary with the shuffle)
        # grows with the count, so a bar never says "224/220".
        self.total = max(self.total, self.done)
        self._show(**fields, final=reached)

    def update(self, **fields: object) -> None:
        self._show(**fields, final=False)

    def _show(self, *, final: bool, **fields: object) -> None:
        self.fields.update({k: str(v) for k, v in fields.items()})
        extra = " ".join(f"{k}={v}" for k, v in self.fields.items())
        if self._bar is not None and self._task is not None:
            self._bar.update(self._task, completed=self.done, total=self.total, extra=extra)
            return
        now = time.monotonic()
        if final or now - self._last_log >= self.log_every:
            self._last_log = now
            self._logged = self.done
            parts = (f"{self.description}: {self.done}/{self.total}", self._left(now), extra)
            print(" ".join(part for part in parts if part), file=sys.stderr)

    def _left(self, now: float) -> str:
        """`left H:MM:SS` at the speed of this run so far (as the bar's ETA column), or ""
        before anything is done or once everything is."""
        done = self.done - self._start_count
        if done <= 0 or self.done >= self.total:
            return ""
        seconds = round((now - self._started) / done * (self.total - self.done))
        return f"left {seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"

    def finish(self) -> None:
        """The last count, when the log lines have not said it yet (a total that grew)."""
        if self._bar is None and self._logged not in (None, self.done):
            self._show(final=True)


@contextmanager
def progress(description: str, total: int, *, done: int = 0) -> Iterator[ProgressReporter]:
    if _stage.get():
        description = f"{description} [{_stage.get()}]"
    reporter = ProgressReporter(description=description, total=total, done=done)
    if not console.is_terminal:
        yield reporter
        reporter.finish()
        return
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        TextColumn("{task.fields[extra]}"),
    )
    with Progress(*columns, console=console, transient=False) as bar:
        reporter._bar = bar
        reporter._task = bar.add_task(description, total=total, completed=done, extra="")
        yield reporter
