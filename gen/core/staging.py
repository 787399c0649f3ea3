"""Folders replaced whole: written beside their place first, and who may clean up.

A command that replaces the folder `PARENT/NAME` (an export format's files, a trained
model) writes `PARENT/.NAME.<token>.tmp/`, then renames the old `PARENT/NAME` to
`.NAME.<token>.old` and the staging folder to `NAME`, and deletes the `.old` one. While
it does so it holds an OS lock on `PARENT/.NAME.lock` (gen.core.locks, as record tables
do), and removes that file when it lets the lock go.

A process killed in between leaves its `.tmp`/`.old` folder behind. The next command
writing into `PARENT` removes every such folder whose lock nobody holds: the kernel
releases a lock when its holder dies (even by `kill -9`), so a free lock means nobody
is writing that folder. A pid file would be wrong on shared storage (another machine's
pid) and after pid reuse; an age limit would either wait long for cleanup or delete the
folder of a slow command still running.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

from gen.core.errors import StorageError, TableBusyError
from gen.core.files import storage_error
from gen.core.locks import FileLock, describe_holder, is_locked

_LEFTOVER = re.compile(r"^\.(?P<name>.+)\.[0-9a-f]{32}\.(?:tmp|old)$")


def _lock_path(folder: Path, name: str) -> Path:
    return folder / f".{name}.lock"


@contextlib.contextmanager
def folder_lock(folder: Path, name: str, writer: str) -> Iterator[None]:
    """Hold the lock of `folder/name`, or fail with one line naming the `writer` (the
    command, e.g. "`gen export --format spacy`") that holds it."""
    lock = FileLock(_lock_path(folder, name))
    try:
        folder.mkdir(parents=True, exist_ok=True)
        acquired = lock.acquire()
    except OSError as exc:
        raise storage_error(lock.path, exc) from exc
    if not acquired:
        raise TableBusyError(
            f"{folder / name} is being written by another {writer} "
            f"({describe_holder(lock.path)}); wait for it to end"
        )
    try:
        yield
    finally:
        lock.release(remove=True)


def remove_leftovers(folder: Path, held: str) -> list[Path]:
    """Delete the staging and `.old` folders in `folder` of writers that died; return what
    was removed.

    `held` is the name whose lock the caller holds (its leftovers are stale). Folders of
    a name being written elsewhere are left alone: they are listed before the locks are
    probed, and a writer takes its lock before it makes its folder, so a folder found
    with a free lock is one nobody writes.
    """
    removed = []
    for path in sorted(folder.glob(".*")):
        match = _LEFTOVER.match(path.name)
        if not match or not path.is_dir():
            continue
        name = match["name"]
        if name != held and is_locked(_lock_path(folder, name)):
            continue
        shutil.rmtree(path, ignore_errors=True)
        if not path.exists():
            removed.append(path)
    return removed


def new_staging(folder: Path, name: str) -> Path:
    staging = folder / f".{name}.{uuid.uuid4().hex}.tmp"
    try:
        staging.mkdir()
    except OSError as exc:
        raise storage_error(staging, exc) from exc
    return staging


def swap_in(staging: Path, target: Path) -> None:
    """Make `staging` the folder `target` in two renames; the old one is deleted after."""
    old = staging.with_suffix(".old")
    try:
        if target.exists():
            target.rename(old)
        staging.rename(target)
    except OSError as exc:
        if old.exists() and not target.exists():
            with contextlib.suppress(OSError):
                old.rename(target)
        raise StorageError(f"cannot replace {target}: {exc.strerror or exc}") from exc
    shutil.rmtree(old, ignore_errors=True)
