"""Two model processes on one machine: tokens/s of each, alone and side by side.

    .venv/bin/python bench/bench_processes.py [--model FILE.gguf] [--tokens 128]

Runs the llama.cpp backend in separate processes that each generate `--tokens` tokens
(greedy, the same prompt), first one alone, then two at once, in three settings:

- `all cores each`: every process uses every core (`--threads` = cores), as gen did before
  the processes shared the machine;
- `shared` (the default): each process uses the cores divided among the gen model
  processes (gen.backends.cpu_share);
- `all cores, passive wait`: every core each, with OMP_WAIT_POLICY=PASSIVE (threads sleep
  instead of spinning while they wait for each other).

Run it on an otherwise idle machine: every figure is a wall-clock rate.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

WORKER = """
import json, sys, time
from pathlib import Path
from gen.backends.base import GenerationRequest, SamplingParams
from gen.backends.llama_cpp import LlamaCppBackend
from gen.backends.models import embedded_model_path
model, tokens, threads, start_at = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
backend = LlamaCppBackend(Path(model) if model else embedded_model_path(), n_ctx=1024,
                          threads=int(threads) or None)
prompt = "Write a long letter to a landlord about a broken boiler, with every detail."
request = GenerationRequest(prompt=prompt, seed=1, sampling=SamplingParams(
    temperature=0.0, max_tokens=tokens, stop=()))
backend.generate(GenerationRequest(prompt="Hi", sampling=SamplingParams(max_tokens=1)))
time.sleep(max(0.0, start_at - time.time()))
started = time.perf_counter()
completion = backend.generate(request)
seconds = time.perf_counter() - started
print(json.dumps({"tokens": completion.completion_tokens, "seconds": seconds,
                  "threads": backend.describe()["threads"]}))
"""

SETTINGS = {
    "all cores each": {"threads": "cores", "env": {}},
    "shared": {"threads": "0", "env": {}},
    "all cores, passive wait": {"threads": "cores", "env": {"OMP_WAIT_POLICY": "PASSIVE"}},
}


def run_processes(count: int, model: str, tokens: int, setting: dict) -> list[dict]:
    """`count` workers started together; each one's tokens/s once all have loaded."""
    cores = str(len(os.sched_getaffinity(0)))
    threads = cores if setting["threads"] == "cores" else setting["threads"]
    env = {**os.environ, **setting["env"], "PYTHONPATH": str(Path(__file__).parents[1])}
    start_at = str(time.time() + 20)  # loading the model: start generating together
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, model, str(tokens), threads, start_at],
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(count)
    ]
    results = []
    for worker in workers:
        output, _ = worker.communicate()
        result = json.loads(output.strip().splitlines()[-1])
        result["tokens_per_second"] = result["tokens"] / result["seconds"]
        results.append(result)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="", help="GGUF file (default: the embedded model)")
    parser.add_argument("--tokens", type=int, default=128)
    args = parser.parse_args()
    print(f"{'setting':<26} {'processes':>9} {'threads':>7} {'tokens/s each':>20}")
    for name, setting in SETTINGS.items():
        for count in (1, 2):
            results = run_processes(count, args.model, args.tokens, setting)
            rates = " / ".join(f"{r['tokens_per_second']:.1f}" for r in results)
            threads = "/".join(str(r["threads"]) for r in results)
            print(f"{name:<26} {count:>9} {threads:>7} {rates:>20}", flush=True)


if __name__ == "__main__":
    main()
