"""The one thread that makes every llama.cpp call of a model, with this process's share of
the machine's cores; shared by the llama.cpp backend and the encoder.

llama.cpp's OpenMP build keeps a thread team per calling thread, and alternating callers
(the main thread, then a worker pool) halves its speed on small machines, so every call
into the engine runs on one dedicated thread. The engine's threads are set before each
request from `gen.backends.cpu_share`: the cores divided among the gen model processes of
the machine (or `--threads`).

Apart from `gen.backends.llama_cpp` because the encoder needs the thread and not the
backend.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from gen.backends import cpu_share
from gen.core.errors import ModelError

T = TypeVar("T")


class EngineThread:
    """One thread makes every llama.cpp call of a model (see the module docstring), with the
    threads this process may use now; shared by the backend and the encoder."""

    _llama: Any

    def load_model(
        self,
        threads: int | None,
        factory: Callable[..., Any],
        failure: Callable[[Exception], str],
        **kwargs: Any,
    ) -> None:
        """Start the engine thread and load the model on it with this process's share of
        cores; a model llama.cpp refuses gives the ModelError `failure(exc)`."""
        self._engine = ThreadPoolExecutor(max_workers=1, thread_name_prefix="llama.cpp")
        self.cores = cpu_share.CoreShare(fixed=threads)
        self.cores.register(cpu_share.command_line())
        self._threads = self.cores.threads()
        try:
            self._llama = self.on_engine_thread(
                factory,
                n_threads=self._threads,
                n_threads_batch=self._threads,
                verbose=False,
                **kwargs,
            )
        except (ValueError, RuntimeError) as exc:
            self.cores.close()
            raise ModelError(failure(exc)) from None

    def on_engine_thread(self, function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run `function` on the thread that makes every llama.cpp call of this process's
        model (also for a second engine measured beside it, see `gen bench`), with the
        threads this process may use now."""
        return self._engine.submit(self._with_threads, function, *args, **kwargs).result()

    def _with_threads(self, function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        threads = self.cores.threads()
        if threads != self._threads and hasattr(self, "_llama"):
            from llama_cpp import llama_set_n_threads

            llama_set_n_threads(self._llama._ctx.ctx, threads, threads)
            self._threads = threads
        return function(*args, **kwargs)
