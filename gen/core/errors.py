"""Errors the CLI turns into one clear message instead of a traceback."""

from __future__ import annotations


class GenError(Exception):
    """An expected failure: the message names the thing and what was expected."""

    exit_code = 1


class UsageError(GenError):
    """Bad input from the user (options, YAML, paths): exit status 2."""

    exit_code = 2


class ConfigError(UsageError):
    """A prompt YAML or other configuration file is invalid."""


class ModelError(GenError):
    """The model file is missing/unreadable or the backend failed to load it."""

    exit_code = 2


class StorageError(GenError):
    """Writing a run folder failed (disk full, permissions); nothing half-written is left."""


class InvalidSpanError(GenError):
    """A span does not fit its text; raised before anything is written."""
