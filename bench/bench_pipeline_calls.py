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
from pathlib import Path

from gen.backends import make_backend
from gen.backends.base import Backend, GenerationRequest
from gen.backends.llama_cpp import LlamaCppOptions, RawLlamaCpp
from gen.bench.measure import measure_pipeline
from gen.bench.run import BenchOptions, bench_requests, scratch_run
from gen.core.packs import load_language_pack
from gen.core.runs import RunPaths
from gen.generate.preflight import token_limit

#: One document through the measured side: (completion tokens, wall seconds, engine seconds).
Call = tuple[int, float, float]


def through_backend(backend: Backend, request: GenerationRequest) -> Call:
    started = time.perf_counter()
    completion = backend.generate(request)
    return completion.completion_tokens, time.perf_counter() - started, completion.seconds


def through_pipeline(run: RunPaths, options: BenchOptions, backend: Backend, number: int) -> Call:
    """`gen documents` asked for one more document than the scratch run holds."""
    _, summary = measure_pipeline("pipeline", run, options.documents_options(number + 1), backend)
    return summary.completion_tokens, summary.wall_seconds, summary.generation_seconds


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
    totals = [0.0] * 5  # raw tokens, raw seconds, side tokens, side seconds, engine seconds
    with scratch_run() as run:
        for number, request in enumerate(requests):
            started = time.perf_counter()
            raw_tokens = raw.complete(request)
            raw_seconds = time.perf_counter() - started
            if args.side == "backend":
                tokens, seconds, engine = through_backend(backend, request)
            else:
                tokens, seconds, engine = through_pipeline(run, options, backend, number)
            for index, value in enumerate((raw_tokens, raw_seconds, tokens, seconds, engine)):
                totals[index] += value
            print(
                f"{number}: raw {raw_tokens} tokens {raw_tokens / raw_seconds:.2f}/s | "
                f"{args.side} {tokens} tokens {tokens / seconds:.2f}/s "
                f"({engine:.1f} of {seconds:.1f} s in the engine)",
                flush=True,
            )
    raw_rate, side_rate = totals[0] / totals[1], totals[2] / totals[3]
    print(
        f"raw {raw_rate:.2f} tokens/s, {args.side} {side_rate:.2f} tokens/s, ratio "
        f"{side_rate / raw_rate:.3f}; outside the engine {1 - totals[4] / totals[3]:.2%} of "
        f"the {args.side}'s time"
    )


if __name__ == "__main__":
    main()
