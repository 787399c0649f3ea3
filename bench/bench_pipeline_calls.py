"""The pipeline against the bare engine, one document at a time, alternating.

    .venv/bin/python bench/bench_pipeline_calls.py --model FILE.gguf [--n 8] [--max-tokens 256]
        [--side pipeline|backend]

`gen bench` times the raw loop before and after the pipeline; on a machine whose speed drifts
from one request to the next, a few documents cannot tell the pipeline's cost from the
drift. Here each plan item is sent twice in a row: once through the bare llama-cpp-python
loop (`gen.backends.llama_cpp.RawLlamaCpp`, the same prompt, seed and limits), once through
`gen documents` resumed for that one item (prompts, engine thread, checks, crash-safe
storage), so drift hits both sides alike; `--side backend` sends it through the backend's
`generate` alone (its engine thread and stop criterion, no stage). Prints each pair and the
totals: the ratio of tokens/s, and the share of the other side's time outside the engine.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from functools import reduce
from pathlib import Path

from gen.backends import make_backend
from gen.backends.base import Backend, GenerationRequest
from gen.backends.llama_cpp import LlamaCppOptions, RawLlamaCpp
from gen.bench.measure import measure_pipeline, timed_loop
from gen.bench.report import Throughput, ratio
from gen.bench.run import BenchOptions, bench_requests, scratch_run
from gen.core.packs import load_language_pack
from gen.core.runs import RunPaths
from gen.generate.preflight import token_limit


def through_backend(backend: Backend, request: GenerationRequest) -> tuple[Throughput, float]:
    """One document through the backend's `generate`, and its seconds in the engine."""
    started = time.perf_counter()
    completion = backend.generate(request)
    seconds = time.perf_counter() - started
    return Throughput("backend", 1, completion.completion_tokens, seconds), completion.seconds


def through_pipeline(
    run: RunPaths, options: BenchOptions, backend: Backend, number: int
) -> tuple[Throughput, float]:
    """`gen documents` asked for one more document than the scratch run holds, and its
    seconds in the engine."""
    row, summary = measure_pipeline("pipeline", run, options.documents_options(number + 1), backend)
    return row, summary.generation_seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, required=True)
    parser.add_argument("--n", type=int, default=8)
    parser.add_argument("--max-tokens", type=int, default=256)
    parser.add_argument("--side", choices=("pipeline", "backend"), default="pipeline")
    args = parser.parse_args()
    options = BenchOptions(
        n=args.n, max_tokens=args.max_tokens, backend=LlamaCppOptions(model=args.model)
    )
    pack = load_language_pack(options.language, None)
    limit = token_limit(pack, options.spec, options.max_tokens)
    backend = make_backend(options.backend)
    requests = bench_requests(pack, backend, options, limit)
    raw = RawLlamaCpp(backend)
    for warm_up in (raw.complete, backend.generate):  # weights paged in, both contexts made
        warm_up(replace(requests[0], sampling=replace(requests[0].sampling, max_tokens=4)))
    raw_rows: list[Throughput] = []
    side_rows: list[Throughput] = []
    engine_seconds = 0.0
    with scratch_run() as run:
        for number, request in enumerate(requests):
            raw_row = timed_loop("raw engine", [request], raw.complete)
            if args.side == "backend":
                side_row, engine = through_backend(backend, request)
            else:
                side_row, engine = through_pipeline(run, options, backend, number)
            raw_rows.append(raw_row)
            side_rows.append(side_row)
            engine_seconds += engine
            print(
                f"{number}: raw {raw_row.completion_tokens} tokens "
                f"{raw_row.tokens_per_second:.2f}/s | {args.side} {side_row.completion_tokens} "
                f"tokens {side_row.tokens_per_second:.2f}/s "
                f"({engine:.1f} of {side_row.seconds:.1f} s in the engine)",
                flush=True,
            )
    raw_total, side_total = (
        reduce(Throughput.merged, raw_rows),
        reduce(Throughput.merged, side_rows),
    )
    print(
        f"raw {raw_total.tokens_per_second:.2f} tokens/s, {args.side} "
        f"{side_total.tokens_per_second:.2f} tokens/s, ratio "
        f"{ratio(side_total.tokens_per_second, raw_total.tokens_per_second)}; outside the "
        f"engine {1 - engine_seconds / side_total.seconds:.2%} of the {args.side}'s time"
    )


if __name__ == "__main__":
    main()
