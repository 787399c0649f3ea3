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
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from gen.core.errors import CorruptFileError, StorageError


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def storage_error(path: Path, exc: OSError) -> StorageError:
    if exc.errno == errno.ENOSPC:
        return StorageError(f"disk full while writing {path}; free some space and re-run to resume")
    return StorageError(
        f"cannot write {path}: {exc.strerror or exc}; check that {Path(path).parent} is a "
        "writable folder"
    )


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
