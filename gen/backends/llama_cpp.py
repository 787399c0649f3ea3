"""llama.cpp in process, through llama-cpp-python.

llama-cpp-python keeps the KV cache of the previous prompt and only evaluates
the part of a new prompt after the longest common prefix, so callers that send
prompts sharing a long prefix (few-shot labeling) one after the other get the
prefix for free.

Every call into the engine runs on one dedicated thread, with the threads this process
may use now (`gen.backends.llama_engine`).

A request its caller may abandon (Ctrl-C) has its prompt evaluated a piece at a time before
`create_completion`, which evaluates a prompt in one call that nothing stops: the 400 tokens
of a planned document's prompt are about 4 CPU-seconds of the embedded model (13 s on a busy
machine), and a stopping run waited for them.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from gen.backends.base import (
    Capabilities,
    ChatTemplate,
    Completion,
    GenerationRequest,
    SamplingParams,
    check_abandoned,
)
from gen.backends.llama_engine import EngineThread
from gen.backends.models import LocalModelOptions
from gen.backends.scoring import label_first_tokens, logprobs_of
from gen.backends.spec import BackendSpec, cli
from gen.core.errors import ModelError

#: Prompt tokens evaluated in one engine call when the request may be abandoned: the check
#: between two pieces stops it (32 tokens of the embedded model: under a second on a busy
#: machine; the whole prompt in one call took as many CPU-seconds as pieces of 32 or 64).
PROMPT_PIECE = 32


@dataclass(frozen=True)
class LlamaCppOptions(LocalModelOptions):
    n_gpu_layers: int = field(
        default=0,
        metadata=cli("--n-gpu-layers", "Layers to offload to the GPU (llama.cpp; -1 = all)."),
    )
    threads: int | None = field(
        default=None,
        metadata=cli(
            "--threads",
            "CPU threads of llama.cpp (default: the cores divided among the gen model "
            "processes running on this machine, re-counted before each request).",
            min=1,
        ),
    )


def sampling_arguments(sampling: SamplingParams, seed: int | None) -> dict[str, Any]:
    """llama-cpp-python's `create_completion` arguments for our sampling settings."""
    return {
        "max_tokens": sampling.max_tokens,
        "temperature": sampling.temperature,
        "top_p": sampling.top_p,
        "top_k": sampling.top_k,
        "repeat_penalty": sampling.repeat_penalty,
        "stop": list(sampling.stop) or None,
        "seed": seed,
    }


class LlamaCppBackend(EngineThread):
    name = "llama.cpp"
    #: llama-cpp-python generates one sequence at a time.
    concurrency = 1
    capabilities = Capabilities(counts_tokens=True, grammar=True, logprobs=True)

    def __init__(
        self,
        model_path: Path,
        *,
        n_ctx: int = 4096,
        n_gpu_layers: int = 0,
        threads: int | None = None,
    ) -> None:
        model_path = Path(model_path)
        if model_path.is_dir():
            inside = ", ".join(sorted(p.name for p in model_path.glob("*.gguf"))[:3])
            raise ModelError(
                f"--model {model_path} is a folder; llama.cpp expects a .gguf file"
                + (f" (this folder has {inside})" if inside else "")
                + "; for a Hugging Face model folder use --backend transformers"
            )
        if not model_path.is_file():
            raise ModelError(f"model file {model_path} not found; expected a .gguf file")
        try:
            from llama_cpp import Llama
        except ImportError as exc:  # pragma: no cover - a broken install
            raise ModelError(f"llama-cpp-python is not importable: {exc}") from None
        self.load_model(
            threads,
            Llama,
            lambda exc: f"llama.cpp cannot load {model_path}: {exc}; is it a GGUF file?",
            model_path=str(model_path),
            n_ctx=n_ctx,
            n_gpu_layers=n_gpu_layers,
        )
        self.model_path = model_path
        self.model_id = model_path.name
        self.n_ctx = n_ctx
        self.n_gpu_layers = n_gpu_layers
        self._grammars: dict[str, Any] = {}

    def count_tokens(self, text: str) -> int:
        return len(self._llama.tokenize(text.encode(), add_bos=False, special=True))

    def _grammar(self, source: str) -> Any:
        if source not in self._grammars:
            from llama_cpp import LlamaGrammar

            try:
                self._grammars[source] = LlamaGrammar.from_string(source, verbose=False)
            except (ValueError, RuntimeError) as exc:
                raise ModelError(f"llama.cpp rejected the grammar: {exc}") from None
        return self._grammars[source]

    def close(self) -> None:
        """Leave the machine's cores to the other model processes."""
        self.cores.close()

    def generate(self, request: GenerationRequest) -> Completion:
        return self.on_engine_thread(self._generate, request)

    def _generate(self, request: GenerationRequest) -> Completion:
        check_abandoned(request)  # abandoned while it waited for the engine thread
        started = time.perf_counter()
        tokens = self._llama.tokenize(request.prompt.encode(), special=True)
        try:
            if 0 < len(tokens) < self.n_ctx:  # else create_completion says what is wrong
                self._evaluate(tokens, len(tokens) - 1, request)
            result = self._llama.create_completion(
                prompt=tokens or request.prompt,
                grammar=self._grammar(request.grammar) if request.grammar else None,
                stopping_criteria=_abandoned_criteria(request),
                **sampling_arguments(request.sampling, request.seed),
            )
        except ValueError as exc:  # e.g. the prompt does not fit the context window
            raise ModelError(f"llama.cpp refused the request: {exc}") from None
        check_abandoned(request)  # stopped at a token because it was abandoned
        choice = result["choices"][0]
        usage = result["usage"]
        return Completion(
            text=choice["text"],
            prompt_tokens=usage["prompt_tokens"],
            completion_tokens=usage["completion_tokens"],
            seconds=time.perf_counter() - started,
            finish_reason=choice.get("finish_reason") or "stop",
        )

    def _evaluate(
        self, tokens: list[int], end: int, request: GenerationRequest | None = None
    ) -> None:
        """Put `tokens[:end]` in the KV cache, evaluating only what follows their longest
        common prefix with the previous prompt and at least the last token (whose logits are
        read); a request that may be abandoned goes `PROMPT_PIECE` tokens at a time, checked
        before each. `create_completion` then finds the prompt there but for its last token."""
        llama = self._llama
        cached = min(llama.longest_token_prefix(llama._input_ids.tolist(), tokens), len(tokens) - 1)
        llama.n_tokens = cached
        abandonable = request is not None and request.abandon is not None
        piece = PROMPT_PIECE if abandonable else max(1, end - cached)
        for start in range(cached, end, piece):
            if request is not None:
                check_abandoned(request)
            llama.eval(tokens[start : min(start + piece, end)])

    def label_logprobs(self, prompt: str, labels: Sequence[str]) -> list[float]:
        return self.on_engine_thread(self._label_logprobs, prompt, labels)

    def _label_logprobs(self, prompt: str, labels: Sequence[str]) -> list[float]:
        """One forward pass over what the prompt does not share with the previous one
        (the KV cache keeps the rest, as for `create_completion`), then the first-token
        distribution at its end."""
        llama = self._llama
        firsts = label_first_tokens(self._tokens, prompt, labels)
        tokens = llama.tokenize(prompt.encode(), special=True)
        if len(tokens) >= self.n_ctx:
            raise ModelError(
                f"llama.cpp refused the request: the prompt has {len(tokens)} tokens, "
                f"the context {self.n_ctx}"
            )
        self._evaluate(tokens, len(tokens))
        logits = np.ctypeslib.as_array(llama._ctx.get_logits_ith(-1), shape=(llama.n_vocab(),))
        return logprobs_of(logits, firsts)

    def _tokens(self, text: str) -> list[int]:
        return self._llama.tokenize(text.encode(), add_bos=False, special=True)

    def chat_template(self) -> ChatTemplate | None:
        source = self._llama.metadata.get("tokenizer.chat_template")
        if not source:
            return None
        model = self._llama._model
        return ChatTemplate(
            source=source,
            bos_token=model.token_get_text(self._llama.token_bos()),
            eos_token=model.token_get_text(self._llama.token_eos()),
        )

    def describe(self) -> dict[str, object]:
        return {
            "backend": self.name,
            "model_path": str(self.model_path),
            "n_ctx": self.n_ctx,
            "n_gpu_layers": self.n_gpu_layers,
            "threads": self._threads,
        }


def _abandoned_criteria(request: GenerationRequest) -> Any:
    """A stopping criterion that llama.cpp checks after every token: true once `request` is
    abandoned (Ctrl-C), so the engine stops there instead of at the end of the answer (the
    prompt's evaluation stops between two pieces: `_evaluate`)."""
    abandon = request.abandon
    if abandon is None:
        return None
    from llama_cpp import StoppingCriteriaList

    return StoppingCriteriaList([lambda input_ids, logits: abandon.is_set()])


class RawLlamaCpp:
    """A bare llama-cpp-python loop with the settings of the llama.cpp backend: a second
    engine on the same model file, called on the backend's engine thread (llama.cpp's
    OpenMP build keeps one thread team per calling thread; on 2 cores an idle team
    left by another thread halves the speed)."""

    def __init__(self, backend: LlamaCppBackend) -> None:
        from llama_cpp import Llama

        self.backend = backend
        self.llama = backend.on_engine_thread(
            Llama,
            model_path=str(backend.model_path),
            n_ctx=backend.n_ctx,
            n_gpu_layers=backend.n_gpu_layers,
            n_threads=backend.cores.threads(),
            n_threads_batch=backend.cores.threads(),
            verbose=False,
        )

    def complete(self, request: GenerationRequest, *, max_tokens: int | None = None) -> int:
        arguments = sampling_arguments(request.sampling, request.seed)
        if max_tokens:
            arguments["max_tokens"] = max_tokens
        result = self.backend.on_engine_thread(
            self.llama.create_completion, prompt=request.prompt, **arguments
        )
        return int(result["usage"]["completion_tokens"])

    def figures(self, requests: Sequence[GenerationRequest]) -> dict[str, float | None]:
        """The prefix-reuse gain: prompt evaluation with the KV cache of the previous
        prompt kept, against cleared (labeling prompts share a long few-shot prefix)."""

        def elapsed(keep_cache: bool) -> float:
            started = time.perf_counter()
            for request in requests:
                if not keep_cache:
                    self.llama.reset()
                self.complete(request, max_tokens=1)
            return time.perf_counter() - started

        cleared, kept = elapsed(keep_cache=False), elapsed(keep_cache=True)
        return {"prefix_reuse_gain": round(cleared / kept, 3) if kept else None}


def create(options: LlamaCppOptions) -> LlamaCppBackend:
    return LlamaCppBackend(
        options.model_path(),
        n_ctx=options.n_ctx,
        n_gpu_layers=options.n_gpu_layers,
        threads=options.threads,
    )


BACKEND = BackendSpec(
    name="llama.cpp", options=LlamaCppOptions, create=create, raw_engine=RawLlamaCpp, rank=0
)
