"""Features of the encoder detector: token vectors of a GGUF model, cached, pooled per unit.

A text is cut into labeling units (gen.text.units: sentences or clauses, with the rules of
its language pack); a unit's features are the mean of the vectors of the tokens that
overlap it (gen.backends.llama_cpp_encoder). Adding the next unit's mean (a decoder only
looks left) was measured and dropped: trained on 69 planned documents of the 1.5B model,
gold dev token micro-F1 0.27 with it, 0.35 without (docs/training.md).

Token vectors cost one forward pass per text, so they are cached on disk, one file per
text, under the model's sha256 and the window settings: a second training, a learning
curve, or a labeling run over texts already seen reads them in milliseconds. The cache
is `$GEN_CACHE_DIR/encoder` (default `~/.cache/gen/encoder`); a damaged file is computed
again.
"""

from __future__ import annotations

import hashlib
import io
import os
import zipfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import numpy as np

from gen.backends.llama_cpp_encoder import LlamaCppEncoder, TokenVectors
from gen.backends.models import file_sha256
from gen.core.files import write_atomic
from gen.core.progress import progress
from gen.core.records import Span
from gen.text.token_offsets import TextNotMapped

Range = tuple[int, int]
T = TypeVar("T")
#: Texts per `encode` call. Several short texts can share one forward pass as separate
#: sequences, but on two CPU cores that measured 8% slower than one text per pass
#: (bench/bench_encoder.py: 51.2 against 55.8 tokens/s with the 1.5B model).
GROUP = 1


def cache_root() -> Path:
    base = os.environ.get("GEN_CACHE_DIR") or Path.home() / ".cache" / "gen"
    return Path(base) / "encoder"


@dataclass(frozen=True)
class EncoderSpec:
    """What decides a token vector: the model file's content and the windows."""

    path: Path
    sha256: str
    window: int
    overlap: int

    @classmethod
    def of(cls, path: Path, window: int, overlap: int) -> EncoderSpec:
        return cls(Path(path), file_sha256(Path(path)), window, overlap)


class TokenVectorCache:
    """Token vectors per text, computed once per (model sha256, windows, text)."""

    def __init__(self, spec: EncoderSpec) -> None:
        self.spec = spec
        self.folder = cache_root() / f"{spec.sha256[:16]}-w{spec.window}-o{spec.overlap}"
        self._encoder: LlamaCppEncoder | None = None
        self.hits = 0
        self.misses = 0

    def _path(self, text: str) -> Path:
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        return self.folder / digest[:2] / f"{digest}.npz"

    def _read(self, text: str) -> TokenVectors | None:
        try:
            with np.load(self._path(text)) as stored:
                return TokenVectors(stored["offsets"], stored["vectors"].astype(np.float32))
        except (OSError, ValueError, KeyError, zipfile.BadZipFile, EOFError):
            return None

    def _write(self, text: str, vectors: TokenVectors) -> None:
        buffer = io.BytesIO()
        # float16 halves the cache; the head standardizes features, so nothing is lost.
        np.savez(buffer, offsets=vectors.offsets, vectors=vectors.vectors.astype(np.float16))
        path = self._path(text)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, buffer.getvalue(), durable=False)

    def encoder(self) -> LlamaCppEncoder:
        if self._encoder is None:
            self._encoder = LlamaCppEncoder(
                self.spec.path,
                window=self.spec.window,
                overlap=self.spec.overlap,
            )
        return self._encoder

    def pooled(
        self,
        texts: Sequence[str],
        description: str,
        pool: Callable[[int, TokenVectors], T],
    ) -> list[T | TextNotMapped]:
        """`pool(index, vectors)` of each text, or why its tokens cannot be mapped to it (not
        cached: the next run asks the encoder again). Each text's vectors are pooled as they
        are read or computed and then dropped: a training over a few hundred documents that
        held every document's token vectors (a few MB each with a 1.5B model) kept them all
        until its last document (bench/encoder_pace.py)."""
        places: dict[str, list[int]] = {}
        for index, text in enumerate(texts):
            places.setdefault(text, []).append(index)
        found: list[T | TextNotMapped | None] = [None] * len(texts)
        misses = self.misses
        for text, vectors in self._each(list(places), description):
            for index in places[text]:
                found[index] = (
                    vectors if isinstance(vectors, TextNotMapped) else pool(index, vectors)
                )
        self.hits += len(texts) - (self.misses - misses)
        return found  # type: ignore[return-value]

    def _each(
        self, texts: list[str], description: str
    ) -> Iterator[tuple[str, TokenVectors | TextNotMapped]]:
        """Each of `texts` (distinct) with its vectors, one at a time: cached ones first."""
        missing = []
        for text in texts:
            stored = self._read(text)
            if stored is None:
                missing.append(text)
            else:
                yield text, stored
        self.misses += len(missing)
        if not missing:
            return
        with progress(f"{description}: token vectors", len(missing)) as reporter:
            for start in range(0, len(missing), GROUP):
                group = missing[start : start + GROUP]
                for text, computed in zip(group, self.encoder().encode(group), strict=True):
                    if isinstance(computed, TokenVectors):
                        self._write(text, computed)
                    yield text, computed
                reporter.advance(len(group))


_shared: dict[tuple[EncoderSpec, Path], TokenVectorCache] = {}


def shared_cache(spec: EncoderSpec) -> TokenVectorCache:
    """One cache, and so one loaded encoder, per spec and cache folder in a process: training,
    scoring and a learning curve's points share it (each loaded model would take its share
    of cores); a changed `GEN_CACHE_DIR` gets a cache of its own."""
    key = (spec, cache_root())
    if key not in _shared:
        _shared[key] = TokenVectorCache(spec)
    return _shared[key]


def unit_features(vectors: TokenVectors, units: Sequence[Range]) -> np.ndarray:
    """(units, dim): each unit's mean token vector."""
    dimension = vectors.vectors.shape[1]
    means = np.zeros((len(units), dimension), np.float32)
    starts, ends = vectors.offsets[:, 0], vectors.offsets[:, 1]
    for index, (start, end) in enumerate(units):
        # Tokens that overlap [start, end): offsets are sorted by start and by end.
        first = int(np.searchsorted(ends, start, side="right"))
        last = int(np.searchsorted(starts, end, side="left"))
        if last > first:
            means[index] = vectors.vectors[first:last].mean(axis=0)
    return means


def unit_labels(
    text: str, units: Sequence[Range], spans: Sequence[Span], labels: Sequence[str], cover: float
) -> list[str | None]:
    """The label each unit learns: the label whose spans cover the largest share of the
    unit's visible characters, when that share is at least `cover`, or which holds more
    than half of one of its spans (a fact told in a clause of a longer sentence); else
    None."""
    wanted = set(labels)
    result: list[str | None] = []
    for start, end in units:
        visible = sum(not c.isspace() for c in text[start:end]) or 1
        best, best_share = None, 0.0
        for span in spans:
            if span.label not in wanted:
                continue
            low, high = max(start, span.start), min(end, span.end)
            if high <= low:
                continue
            inside = sum(not c.isspace() for c in text[low:high])
            span_visible = sum(not c.isspace() for c in text[span.start : span.end]) or 1
            share = inside / visible
            if (share >= cover or inside * 2 > span_visible) and share > best_share:
                best, best_share = span.label, share
        result.append(best)
    return result
