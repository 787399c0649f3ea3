"""When to stop asking a backend that keeps failing.

One failed request is the item's problem: it is stored with its reason and the run
goes on. Many failures in a row mean the backend itself is down or broken, and
every further item would fail the same way, so the stage stops (its finished
records are kept; re-running resumes).
"""

from __future__ import annotations

from gen.core.errors import GenError

#: This many backend failures in a row means the backend is broken, not the item.
MAX_CONSECUTIVE_ERRORS = 5


class BackendBrokenError(GenError):
    """The backend failed `limit` times in a row."""


class ErrorStreak:
    """Counts consecutive backend failures; a success ends the streak."""

    def __init__(self, limit: int = MAX_CONSECUTIVE_ERRORS) -> None:
        self.limit = limit
        self.count = 0

    def succeeded(self) -> None:
        self.count = 0

    def failed(self, error: object) -> None:
        """Count a failure; raise BackendBrokenError once `limit` are in a row."""
        self.count += 1
        if self.count >= self.limit:
            raise BackendBrokenError(
                f"the backend failed {self.count} times in a row; last error: {error}; "
                "re-run the same command to resume"
            )
