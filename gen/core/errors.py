"""Errors the CLI turns into one clear message instead of a traceback, and warnings."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager


class GenError(Exception):
    """An expected failure: the message names the thing and what was expected."""

    exit_code = 1

    @property
    def problems(self) -> list[str]:
        """Every problem found, one line each, for a command that lists them all (`gen packs
        check`); the message itself is one line and counts the others."""
        return [str(self)]


class UsageError(GenError):
    """Bad input from the user (options, YAML, paths): exit status 2."""

    exit_code = 2


class ConfigError(UsageError):
    """A prompt YAML or other configuration file is invalid."""

    def __init__(self, message: str, problems: list[str] | None = None) -> None:
        super().__init__(message)
        self._problems = problems or [message]

    @property
    def problems(self) -> list[str]:
        return list(self._problems)


class ModelError(GenError):
    """The model file is missing/unreadable or the backend failed to load it."""

    exit_code = 2


class TableBusyError(UsageError):
    """Another process is writing the table: running both would double its records."""


class StorageError(GenError):
    """Writing a run folder failed (disk full, permissions); nothing half-written is left."""


class CorruptFileError(GenError):
    """A file of a run folder is damaged (truncated, garbage): the message says which, and
    what to do with it."""


class InvalidSpanError(GenError):
    """A span does not fit its text; raised before anything is written."""


class IncompleteError(GenError):
    """A stage ran to its end with fewer records than asked; the message says why.
    Exit status 3, so scripts can tell it from a crash (1) and from bad input (2)."""

    exit_code = 3


#: The warnings said in the current scope (`warnings_once`), else in the process.
_warned: set[str] = set()


def warn(message: str) -> None:
    """One line on stderr for something the user should know but that stops nothing;
    each message once per command (`warnings_once`), however often a loop meets it."""
    if message not in _warned:
        _warned.add(message)
        print(f"warning: {message}", file=sys.stderr)


@contextmanager
def warnings_once() -> Iterator[None]:
    """A scope that says each warning once, whatever was said before it: `gen.cli` runs
    every command in one, so a process that runs several (tests, a notebook) sees each
    command's warnings; the warnings said before it count again after it."""
    global _warned
    outer, _warned = _warned, set()
    try:
        yield
    finally:
        _warned = outer
