"""A GGUF model as a text encoder: one final-layer vector per token, through llama.cpp.

The model that writes the documents already knows the language; its hidden states are the
features of the encoder detector (gen.train.encoder_trainer), which needs no download.
llama.cpp runs the model with `embedding=True` and no pooling, so `embed` returns one
vector per token. A decoder only looks left, so a long text is cut into windows of
`window` tokens that overlap by `overlap`: each token takes its vector from the first
window that holds it, where it has the most left context (at least `overlap` tokens,
except at the start of the text).

Token offsets: each token's piece is read whole (llama-cpp-python's `detokenize` cuts a
piece longer than 32 bytes to nothing: Qwen2.5 has single tokens for runs of spaces), and
the pieces are aligned to the text (gen.text.token_offsets), so offsets are exact for any
text; a text whose pieces cannot be aligned gets `TextNotMapped` instead of vectors, and
the other texts are encoded.
"""

from __future__ import annotations

import atexit
import ctypes
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from gen.backends.llama_engine import EngineThread
from gen.core.errors import ModelError
from gen.text.token_offsets import TextNotMapped, token_offsets

#: Tokens per window, and the overlap that gives a window's first tokens their context.
DEFAULT_WINDOW = 2048
DEFAULT_OVERLAP = 256


@dataclass
class TokenVectors:
    """One text's tokens: character `offsets` (n, 2) into the text, `vectors` (n, dim)."""

    offsets: np.ndarray
    vectors: np.ndarray


class LlamaCppEncoder(EngineThread):
    """Final-layer token vectors of a GGUF model (llama.cpp, no pooling)."""

    def __init__(
        self,
        model_path: Path,
        *,
        window: int = DEFAULT_WINDOW,
        overlap: int = DEFAULT_OVERLAP,
        threads: int | None = None,
        n_gpu_layers: int = 0,
    ) -> None:
        model_path = Path(model_path)
        if not model_path.is_file():
            raise ModelError(f"encoder {model_path} not found; expected a .gguf file")
        if not 0 <= overlap < window:
            raise ModelError(f"window overlap {overlap} must be in [0, {window})")
        try:
            import llama_cpp
        except ImportError as exc:  # pragma: no cover - a broken install
            raise ModelError(f"llama-cpp-python is not importable: {exc}") from None
        self.window, self.overlap = window, overlap
        self.load_model(
            threads,
            _quiet_llama,
            lambda exc: f"llama.cpp cannot load {model_path} as an encoder: {exc}",
            model_path=str(model_path),
            embedding=True,
            pooling_type=llama_cpp.LLAMA_POOLING_TYPE_NONE,
            n_ctx=window,
            n_batch=window,
            n_ubatch=window,
            n_gpu_layers=n_gpu_layers,
        )
        self.model_path = model_path
        self.dimension = int(self._llama.n_embd())
        self._pieces: dict[int, bytes] = {}
        # Freed before the interpreter tears down the modules llama.cpp's finalizer needs.
        atexit.register(self.close)

    def close(self) -> None:
        """Free the model and leave the machine's cores to the other model processes."""
        if hasattr(self, "_llama"):
            self._llama.close()
            del self._llama
        self.cores.close()

    def encode(self, texts: Sequence[str]) -> list[TokenVectors | TextNotMapped]:
        """The vectors of every token of each text (none for an empty text), or why its
        tokens cannot be mapped to it. Windows of several texts share one forward pass as
        separate sequences, up to `window` tokens."""
        return self.on_engine_thread(self._encode, list(texts))

    def _encode(self, texts: list[str]) -> list[TokenVectors | TextNotMapped]:
        encoded: list[TokenVectors | TextNotMapped] = []
        jobs = []
        for text in texts:
            tokens = self._llama.tokenize(text.encode("utf-8"), add_bos=False, special=False)
            try:
                offsets = token_offsets([self._piece(token) for token in tokens], text)
            except TextNotMapped as exc:
                encoded.append(TextNotMapped(f"{self.model_path.name}: {exc}"))
                continue
            vectors = np.empty((len(tokens), self.dimension), np.float32)
            encoded.append(TokenVectors(offsets, vectors))
            step = self.window - self.overlap
            for begin in range(0, max(len(tokens) - self.overlap, 1), step):
                if begin < len(tokens):
                    jobs.append((vectors, begin, tokens[begin : begin + self.window]))
        batch: list[tuple[np.ndarray, int, list[int]]] = []
        for job in jobs:
            if batch and sum(len(j[2]) for j in batch) + len(job[2]) > self.window:
                self._decode(batch)
                batch = []
            batch.append(job)
        if batch:
            self._decode(batch)
        return encoded

    def _piece(self, token: int) -> bytes:
        """The bytes of one token, however long (a run of spaces can be one token)."""
        piece = self._pieces.get(token)
        if piece is None:
            import llama_cpp

            vocab, size = self._llama._model.vocab, 64
            buffer = ctypes.create_string_buffer(size)
            length = llama_cpp.llama_token_to_piece(vocab, token, buffer, size, 0, False)
            if length < 0:  # the piece is longer than the buffer: -length bytes
                buffer = ctypes.create_string_buffer(-length)
                length = llama_cpp.llama_token_to_piece(vocab, token, buffer, -length, 0, False)
            piece = self._pieces[token] = buffer.raw[:length]
        return piece

    def _decode(self, batch: list[tuple[np.ndarray, int, list[int]]]) -> None:
        """One forward pass over windows of one or more texts; each token of a window keeps
        its vector unless an earlier window (more left context) already gave it one."""
        import llama_cpp

        llama = self._llama
        llama._ctx.kv_cache_clear()
        llama._batch.reset()
        for sequence, (_, _, tokens) in enumerate(batch):
            llama._batch.add_sequence(tokens, sequence, True)
        llama._ctx.decode(llama._batch)
        total = sum(len(tokens) for _, _, tokens in batch)
        pointer = llama_cpp.llama_get_embeddings(llama._ctx.ctx)
        if not pointer:
            raise ModelError(f"{self.model_path.name} gave no token vectors")
        rows = np.ctypeslib.as_array(pointer, shape=(total, self.dimension))
        row = 0
        for vectors, begin, tokens in batch:
            keep = 0 if begin == 0 else self.overlap
            vectors[begin + keep : begin + len(tokens)] = rows[row + keep : row + len(tokens)]
            row += len(tokens)


def _quiet_llama(**kwargs: Any) -> Any:
    """llama.cpp's context prints a note on the pooling type to stderr even when quiet."""
    import llama_cpp
    from llama_cpp._utils import suppress_stdout_stderr

    with suppress_stdout_stderr(disable=False):
        return llama_cpp.Llama(**kwargs)
