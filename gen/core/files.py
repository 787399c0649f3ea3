"""Files written whole or not at all: under a temporary name, fsynced, then renamed.

Every stage writes its outputs through these helpers, so a crash, a full disk or an
unwritable folder leaves the previous file (or none), never half of one, and the error
is one line naming the file. `gen.core.store` builds its record tables on them.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from gen.core.errors import CorruptFileError, StorageError, UsageError


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def existing_folder(path: Path) -> Path:
    """The folder that holds `path`, or the nearest one above it that exists: the folder
    that must let `path` (and any folder missing on the way) be made."""
    folder = Path(path).parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return folder


def storage_error(path: Path, exc: OSError) -> StorageError:
    if exc.errno == errno.ENOSPC:
        return StorageError(f"disk full while writing {path}; free some space and re-run to resume")
    return StorageError(
        f"cannot write {path}: {exc.strerror or exc}; check that {existing_folder(path)}"
        " is a writable folder"
    )


def check_writable(target: Path, option: str, *, replaced_folder: bool = False) -> None:
    """Refuse, before any work, an output place that cannot be written: a UsageError naming
    `option` and the folder that refuses (a read-only mount, no permission, a file where a
    folder should be).

    `target` is a file to write, or with `replaced_folder` a folder written in whole (made
    beside it, then renamed into place): then an existing `target` must be writable too,
    as a read-only mount point cannot be replaced."""
    target = Path(target)
    folders = [existing_folder(target)]
    if replaced_folder and target.is_dir():
        folders.append(target)
    for folder in folders:
        problem = _unwritable(folder)
        if problem:
            raise UsageError(f"{option} {target}: {folder} {problem}; choose a writable place")


def _unwritable(folder: Path) -> str | None:
    """Why nothing can be written in `folder`, found by making (and removing) an empty file
    there: the mode bits say nothing of immutable folders, ACLs or network file systems."""
    if not folder.is_dir():
        return "is a file, not a folder"
    try:
        handle, probe = tempfile.mkstemp(prefix=".gen-write-check-", dir=folder)
    except OSError as exc:
        return f"is not writable ({exc.strerror or exc})"
    os.close(handle)
    os.unlink(probe)
    return None


def _write_then_rename(path: Path, write: Callable[[Path], object], durable: bool) -> None:
    """`write` a temporary file next to `path`, fsync it, rename it over `path`; on failure
    nothing is left but the previous file, and the error is one clear line."""
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write(tmp)
        if durable:
            with open(tmp, "rb+") as handle:
                os.fsync(handle.fileno())
        os.replace(tmp, path)
        if durable:
            _fsync_dir(path.parent)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise storage_error(path, exc) from exc


def write_atomic(path: Path, data: bytes, *, durable: bool = True) -> None:
    """Write a whole file or nothing.

    `durable=False` skips the fsyncs, for caches whose readers can tell a file
    lost to a power cut from a good one and simply fetch it again.
    """
    _write_then_rename(path, lambda tmp: tmp.write_bytes(data), durable)


def write_json_atomic(path: Path, payload: Any) -> None:
    text = json.dumps(payload, indent=2, sort_keys=True, ensure_ascii=False, default=str)
    write_atomic(path, (text + "\n").encode())


def read_json_object(path: Path) -> dict[str, Any]:
    """A JSON object gen wrote (a manifest), or one line saying the file is damaged."""
    try:
        value = json.loads(Path(path).read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        problem = f"not valid JSON ({exc})"
    except OSError as exc:
        raise StorageError(f"cannot read {path}: {exc.strerror or exc}") from None
    else:
        if isinstance(value, dict):
            return value
        problem = f"a JSON {type(value).__name__}, not an object"
    raise CorruptFileError(
        f"{path} is {problem}; it was damaged outside gen: restore it from a backup or move "
        "it away, then re-run"
    )


def write_table_atomic(path: Path, table: pa.Table) -> None:
    """Write one Parquet file or nothing."""
    _write_then_rename(path, lambda tmp: pq.write_table(table, tmp, compression="zstd"), True)
