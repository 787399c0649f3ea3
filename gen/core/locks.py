"""OS file locks that mark a table part as being written by one process.

`flock` locks belong to the kernel: they vanish when their holder exits, however it
exits (Ctrl-C, `kill -9`, a node crash on NFS once the server notices), so a crashed
writer never leaves a table locked. NFS clients emulate `flock` with byte-range locks
that the server arbitrates between machines; Lustre needs the `flock` mount option.
The holder writes who it is into the lock file, so a refused writer can say who holds it.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import socket
import sys
import time
from pathlib import Path
from typing import IO

from gen.core.errors import TableBusyError, warn
from gen.core.shards import shard_count

LOCK = "_lock"
#: Errors of file systems that do not implement locks at all.
_UNSUPPORTED = {errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS}


def _holder_line() -> str:
    command = " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]) if sys.argv else "?"
    return json.dumps(
        {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "since": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
            "command": command[:200],
        }
    )


def describe_holder(path: Path) -> str:
    """Who holds the lock at `path`, from what the holder wrote into it."""
    try:
        info = json.loads(path.read_text(encoding="utf-8"))
        return f"pid {info['pid']} on {info['host']} since {info['since']}: {info['command']}"
    except (OSError, ValueError, KeyError, TypeError):
        return "a process that has not said who it is yet"


class FileLock:
    """An exclusive, non-blocking lock on one file."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._handle: IO[str] | None = None

    def acquire(self) -> bool:
        """True when this process now holds the lock; False when another one does.

        A holder may remove the lock file as it releases it (`release(remove=True)`): a lock
        taken on a file that is no longer at `path` is let go and taken again on the file
        that is, so two processes never hold "the" lock on two different files."""
        while True:
            handle = open(self.path, "a+", encoding="utf-8")  # noqa: SIM115 (open until release)
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                handle.close()
                return False
            except OSError as exc:
                if exc.errno not in _UNSUPPORTED:
                    handle.close()
                    raise
                warn(
                    f"the file system of {self.path.parent} does not support file locks; make "
                    "sure only one process writes this table (see docs/scaling.md)"
                )
            if _is_at(handle, self.path):
                break
            handle.close()
        handle.seek(0)
        handle.truncate()
        handle.write(_holder_line() + "\n")
        handle.flush()
        self._handle = handle
        return True

    def release(self, *, remove: bool = False) -> None:
        """Let the lock go; with `remove`, delete the lock file first (while still holding
        it), for a lock file that would otherwise stay beside the user's files."""
        if self._handle is not None:
            if remove:
                with contextlib.suppress(OSError):
                    self.path.unlink()
            self._handle.close()  # closing the descriptor releases the lock
            self._handle = None


def _is_at(handle: IO[str], path: Path) -> bool:
    """Whether the open file `handle` is the file at `path` (not one removed meanwhile)."""
    try:
        found = os.stat(path)
    except FileNotFoundError:
        return False
    opened = os.fstat(handle.fileno())
    return (found.st_dev, found.st_ino) == (opened.st_dev, opened.st_ino)


def is_locked(path: Path) -> bool:
    """Whether some process holds the lock at `path` (a shared probe, never blocking)."""
    try:
        with open(path, encoding="utf-8") as handle:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            except OSError as exc:
                if exc.errno in _UNSUPPORTED:
                    return False
                raise
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
            return False
    except FileNotFoundError:
        return False


def lock_part(parts: list[Path], part: Path, *, whole_table: bool) -> FileLock:
    """Lock `part` (one of a table's `parts`, the table folder first) for writing.

    Refused when another process writes it, or writes a part that could hold the same
    ids: for whole-table operations any other part; else a part of a different
    number of shards (the unsharded table folder included). Raises OSError when the
    lock file cannot be made."""
    lock = FileLock(part / LOCK)
    if not lock.acquire():
        raise TableBusyError(
            f"{part} is being written by another process ({describe_holder(lock.path)}); "
            "wait for it to end, or give each machine its own --shard K/N"
        )
    table = parts[0] if parts else part
    for other in parts:
        conflicting = whole_table or shard_count(table, other) != shard_count(table, part)
        if other != part and conflicting and is_locked(other / LOCK):
            lock.release()
            raise TableBusyError(
                f"{other} is being written by another process ({describe_holder(other / LOCK)}),"
                f" which could write the same records as this one into {part}; run the shards "
                "of one table with the same N, after any unsharded run has ended"
            )
    return lock
