"""Does the encoder's token-vector pass slow down inside one long process?

    .venv/bin/python bench/encoder_pace.py [--encoder MODEL.gguf] [--n 300] [--threads 2] \
        [--window 50] [--json FILE]

In one process, the training's feature pass (gen.train.encoder_trainer, as `gen train
--trainer encoder` runs it) over `--n` documents, with the token-vector cache in a fresh
temporary folder so every document is really computed. The documents are the kept runs
under bench/runs/ and the gold sets, shuffled with a fixed seed and cycled when `--n`
asks for more (a repeat gets a numbered line at its end: no two texts are the same, so
nothing comes from the cache).

For the first, middle and last `--window` documents it prints seconds per document,
milliseconds per token (documents differ in length), the process's resident memory (RSS)
at the window's end, the tokens llama.cpp's KV cache holds after the window's last
document (one window of that document at most: the cache is cleared before each pass; the
encoder decodes through the context directly, so llama-cpp-python's prompt reuse is not
involved) and the Python objects alive. A pace or a memory that grows from the first
window to the last is what this looks for; absolute seconds follow the machine's load, so
run it alone on an idle machine.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import resource
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from gen.backends.llama_cpp_encoder import DEFAULT_OVERLAP, DEFAULT_WINDOW, LlamaCppEncoder
from gen.backends.models import embedded_model_path
from gen.core.record_files import read_record_file
from gen.core.records import Record
from gen.train import TrainSettings
from gen.train.encoder_features import EncoderSpec, shared_cache
from gen.train.encoder_trainer import _units
from gen.train.units import special_labels

BENCH = Path(__file__).resolve().parent
SOURCES = (
    *sorted((BENCH / "runs").glob("*.parquet")),
    *sorted(p for p in (BENCH / "runs").glob("*/documents") if p.is_dir()),
    *sorted((BENCH / "gold").glob("*.jsonl")),
)


def documents(n: int, seed: int = 0) -> list[Record]:
    """`n` records with texts no two the same: the pool shuffled, cycled, repeats numbered
    at their end (so their spans stay where they were)."""
    pool: dict[str, Record] = {}
    for path in SOURCES:
        for record in read_record_file(path, "records"):
            pool.setdefault(record.text, record)
    records = list(pool.values())
    random.Random(seed).shuffle(records)
    chosen = []
    for index in range(n):
        record, lap = records[index % len(records)], index // len(records)
        text = record.text + (f"\n\n({lap + 1}-{index + 1})" if lap else "")
        chosen.append(replace(record, id=f"pace-{index + 1}", text=text))
    return chosen


def rss_mb() -> float:
    """The process's resident memory now (Linux), else its peak."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def kv_tokens(encoder: LlamaCppEncoder) -> int:
    """Tokens of sequence 0 that llama.cpp's KV cache holds (positions 0..max)."""
    import llama_cpp

    def held() -> int:
        memory = encoder._llama._ctx.memory
        return int(llama_cpp.llama_memory_seq_pos_max(memory, 0)) + 1 if memory else 0

    return encoder.on_engine_thread(held)


@dataclass
class Pace:
    """One entry per document: seconds since the previous one ended, tokens, state after."""

    encoder: LlamaCppEncoder
    marks: set[int]
    last: float = 0.0
    seconds: list[float] = field(default_factory=list)
    tokens: list[int] = field(default_factory=list)
    state: dict[int, dict[str, float]] = field(default_factory=dict)

    def wrap(self) -> None:
        """Time every `encode` call the feature pass makes (one document each)."""
        encode = self.encoder.encode

        def timed(texts):  # type: ignore[no-untyped-def]
            found = encode(texts)
            now = time.perf_counter()
            self.seconds.append(now - self.last)
            self.last = now
            self.tokens.append(sum(len(v.offsets) for v in found if hasattr(v, "offsets")))
            if len(self.seconds) in self.marks:
                self.state[len(self.seconds)] = {
                    "rss_mb": round(rss_mb(), 1),
                    "kv_tokens": kv_tokens(self.encoder),
                    "python_objects": len(gc.get_objects()),
                }
            return found

        self.encoder.encode = timed  # type: ignore[method-assign]


def windows(n: int, size: int) -> list[tuple[int, int]]:
    """First, middle and last `size` documents (1-based, inclusive)."""
    size = min(size, n)
    middle = max(1, (n - size) // 2 + 1)
    starts = dict.fromkeys((1, middle, n - size + 1))
    return [(start, start + size - 1) for start in starts]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--encoder", type=Path, default=None)
    parser.add_argument("--n", type=int, default=300)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--window", type=int, default=50, help="documents per window")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args()
    if args.n < 1 or args.window < 1:
        sys.exit("--n and --window must be at least 1")
    path = args.encoder or embedded_model_path()
    records = documents(args.n)
    spans = windows(args.n, args.window)
    with tempfile.TemporaryDirectory(prefix="encoder-pace-") as scratch:
        os.environ["GEN_CACHE_DIR"] = scratch
        spec = EncoderSpec.of(path, DEFAULT_WINDOW, DEFAULT_OVERLAP)
        cache = shared_cache(spec)
        cache._encoder = LlamaCppEncoder(
            path, window=spec.window, overlap=spec.overlap, threads=args.threads
        )
        cache._encoder.encode(["A first pass maps the weights."])
        pace = Pace(cache._encoder, {end for _, end in spans})
        pace.wrap()
        start_rss = rss_mb()
        pace.last = started = time.perf_counter()
        units = _units(records, spec, TrainSettings(), special_labels(), "pace", unread := {})
        total = time.perf_counter() - started
    rows = []
    for first, last in spans:
        seconds, tokens = pace.seconds[first - 1 : last], pace.tokens[first - 1 : last]
        rows.append(
            {
                "documents": f"{first}-{last}",
                "s_per_document": round(sum(seconds) / len(seconds), 3),
                "ms_per_token": round(1000 * sum(seconds) / max(1, sum(tokens)), 2),
                "tokens_per_document": round(sum(tokens) / len(tokens)),
                **pace.state[last],
            }
        )
    report = {
        "encoder": path.name,
        "dimension": cache._encoder.dimension,
        "threads": cache._encoder.cores.threads(),
        "documents": args.n,
        "units": len(units.labels),
        "unread": len(unread),
        "seconds": round(total, 1),
        "rss_mb_before": round(start_rss, 1),
        "windows": rows,
    }
    print(
        f"{args.n} documents, encoder {path.name} (dim {report['dimension']}, "
        f"{report['threads']} threads), {report['seconds']} s, RSS before {start_rss:.0f} MB\n"
    )
    print(
        "| documents | s/document | ms/token | tokens/document | RSS MB | KV tokens "
        "| Python objects |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for row in rows:
        print("| " + " | ".join(str(value) for value in row.values()) + " |")
    print("\n" + json.dumps(report))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
