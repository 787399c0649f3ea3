"""`gen bench`: what the pipeline costs on top of the bare engine, measured in one run.

The key figure is the ratio of the pipeline's generation throughput (`gen documents`
end to end: prompts, requests, cleaning, checks, crash-safe storage) to the raw engine's
on the same model, prompts, seeds and token limit. The raw engine is a bare
llama-cpp-python loop for llama.cpp and plain HTTP requests for a server. It is
measured before and after the pipeline so that drift of a shared machine hits both.
"""

from __future__ import annotations

import os
import platform
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import httpx

from gen.backends import BackendOptions, make_backend
from gen.backends.base import Backend, GenerationRequest
from gen.backends.llama_cpp import LlamaCppBackend, sampling_arguments
from gen.backends.openai_backend import OpenAIBackend, auth_headers
from gen.core.packs import LanguagePack, load_language_pack
from gen.core.records import Record
from gen.core.runs import RunPaths
from gen.core.store import RecordTable, write_json_atomic
from gen.generate.plan import ALL, PlanSpec, plan_item
from gen.generate.run import DocumentRun, DocumentsOptions, DocumentsSummary, generate_documents
from gen.text.sentences import split_sentences
from labeling.align.aligner import align_document
from labeling.pipeline import STRATEGIES, LabelOptions, label_documents
from labeling.strategies.attempts import FAILED, SKIPPED

#: The pipeline may add at most this share on top of the raw engine.
OVERHEAD_TARGET = 0.05
#: Tag the simulated censored answers use for the aligner measurement.
_ALIGN_TAGS = {"HEALTH_DATA": "health"}


@dataclass(frozen=True)
class BenchOptions:
    n: int = 4
    max_tokens: int = 128
    language: str = "en"
    category: str = ALL
    seed: int = 0
    prompts_dir: Path | None = None
    #: None: generation.yaml's format ("chat" needs a backend that knows its template).
    prompt_format: str | None = None

    def documents_options(self, spec: PlanSpec) -> DocumentsOptions:
        return DocumentsOptions(spec, self.n, self.max_tokens, self.prompt_format)


@dataclass(frozen=True)
class Throughput:
    """Completion tokens and documents over wall-clock seconds."""

    label: str
    documents: int
    completion_tokens: int
    seconds: float

    @property
    def tokens_per_second(self) -> float:
        return self.completion_tokens / self.seconds if self.seconds else 0.0

    @property
    def documents_per_hour(self) -> float:
        return 3600 * self.documents / self.seconds if self.seconds else 0.0

    def merged(self, other: Throughput) -> Throughput:
        return Throughput(
            self.label,
            self.documents + other.documents,
            self.completion_tokens + other.completion_tokens,
            self.seconds + other.seconds,
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            **asdict(self),
            "tokens_per_second": round(self.tokens_per_second, 2),
            "documents_per_hour": round(self.documents_per_hour, 1),
        }


@dataclass
class BenchReport:
    model_id: str
    backend: dict[str, object]
    options: BenchOptions
    rows: list[Throughput] = field(default_factory=list)
    figures: dict[str, float | None] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        options = asdict(self.options)
        options["prompts_dir"] = str(self.options.prompts_dir or "")
        return {
            "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "machine": machine(),
            "model": self.model_id,
            "backend": self.backend,
            "options": options,
            "throughput": [row.as_dict() for row in self.rows],
            "figures": self.figures,
            "notes": self.notes,
        }


def machine() -> dict[str, object]:
    """Enough to tell two machines' figures apart."""
    cpu = platform.processor()
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
        cpu = next(line.split(":", 1)[1].strip() for line in lines if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "system": platform.platform(),
        "python": platform.python_version(),
    }


def ratio(numerator: float, denominator: float) -> float | None:
    return round(numerator / denominator, 3) if denominator else None


def timed_loop(label: str, requests: Sequence[GenerationRequest], run_one: Callable) -> Throughput:
    """Runs `run_one(request) -> completion tokens` over `requests` and times the whole loop.

    A bare llama.cpp loop makes its calls on the backend's engine thread, like the pipeline:
    llama.cpp's OpenMP build keeps one thread team per calling thread, and on 2 cores an
    idle team left by another thread halves the speed.
    """
    started = time.perf_counter()
    tokens = sum(run_one(request) for request in requests)
    return Throughput(label, len(requests), tokens, time.perf_counter() - started)


class RawLlamaCpp:
    """A bare llama-cpp-python loop with the settings of the llama.cpp backend."""

    def __init__(self, backend: LlamaCppBackend) -> None:
        from llama_cpp import Llama

        self.backend = backend
        self.llama = backend.on_engine_thread(
            Llama,
            model_path=str(backend.model_path),
            n_ctx=backend.n_ctx,
            n_gpu_layers=backend.n_gpu_layers,
            n_threads=os.cpu_count(),
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

    def prefix_reuse_gain(self, requests: Sequence[GenerationRequest]) -> float | None:
        """Prompt evaluation with the KV cache of the previous prompt kept vs cleared."""

        def cold(request: GenerationRequest) -> int:
            self.llama.reset()
            return self.complete(request, max_tokens=1)

        cleared = timed_loop("cleared", requests, cold)
        kept = timed_loop("kept", requests, lambda r: self.complete(r, max_tokens=1))
        return ratio(cleared.seconds, kept.seconds)


class RawServer:
    """Plain sequential HTTP requests with the exact bodies the openai backend sends."""

    def __init__(self, backend: OpenAIBackend) -> None:
        self.backend = backend
        self.client = httpx.Client(
            base_url=backend.base_url, headers=auth_headers(backend.api_key_env), timeout=600.0
        )

    def complete(self, request: GenerationRequest) -> int:
        body = self.backend.request_body(request)
        response = self.client.post("/v1/completions", json=body)
        response.raise_for_status()
        return int(response.json()["usage"]["completion_tokens"])


def bench_requests(
    pack: LanguagePack, spec: PlanSpec, backend: Backend, options: BenchOptions
) -> list[GenerationRequest]:
    """The first n requests of the plan, exactly as `gen documents` would send them."""
    run = DocumentRun(RunPaths(Path("unused")), pack, backend, options.documents_options(spec))
    return [run.request(plan_item(pack, spec, index))[1] for index in range(options.n)]


def measure_pipeline(
    label: str,
    run: RunPaths,
    pack: LanguagePack,
    spec: PlanSpec,
    backend: Backend,
    options: BenchOptions,
) -> tuple[Throughput, DocumentsSummary]:
    """`gen documents` into a scratch run folder: throughput and its summary."""
    summary = generate_documents(run, pack, backend, options.documents_options(spec))
    throughput = Throughput(
        label, summary.new_accepted, summary.completion_tokens, summary.wall_seconds
    )
    return throughput, summary


def measure_labeling(
    run: RunPaths, backend: Backend, strategy: str, options: BenchOptions, context_tokens: int
) -> tuple[Throughput, float | None]:
    """`gen label --strategy S --overwrite` on the run's documents: throughput, failure rate."""
    label_options = LabelOptions(
        strategy=strategy,
        seed=options.seed,
        context_tokens=context_tokens,
        prompt_format=options.prompt_format,
        overwrite=True,
    )
    summary = label_documents(run, backend, label_options, options.prompts_dir)
    statuses = summary.statuses.get(strategy, Counter())
    asked = sum(statuses.values()) - statuses[SKIPPED]
    throughput = Throughput(
        f"labeling: {strategy}",
        summary.new_labeled,
        summary.completion_tokens,
        summary.wall_seconds,
    )
    return throughput, ratio(statuses[FAILED], asked)


def censor_every_third_sentence(text: str, language: str) -> str:
    """A censored answer as the censor strategy expects it, made without a model."""
    pieces, position = [], 0
    for number, (start, end) in enumerate(split_sentences(text, language)):
        if number % 3 == 1:
            pieces += [text[position:start], "[HEALTH_DATA]"]
            position = end
    return "".join([*pieces, text[position:]])


def aligner_documents_per_second(documents: Sequence[Record], min_seconds: float = 0.5) -> float:
    pairs = [(d.text, censor_every_third_sentence(d.text, d.language)) for d in documents if d.text]
    if not pairs:
        return 0.0
    aligned, started = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - started) < min_seconds:
        for original, censored in pairs:
            align_document(original, censored, _ALIGN_TAGS)
        aligned += len(pairs)
    return round(aligned / elapsed, 1)


def run_bench(backend_options: BackendOptions, options: BenchOptions) -> BenchReport:
    pack = load_language_pack(options.language, options.prompts_dir)
    spec = PlanSpec(language=options.language, category=options.category, seed=options.seed)
    backend = make_backend(backend_options)
    report = BenchReport(backend.model_id, dict(backend.describe()), options)
    requests = bench_requests(pack, spec, backend, options)

    raw: RawLlamaCpp | RawServer | None = None
    if isinstance(backend, LlamaCppBackend):
        raw = RawLlamaCpp(backend)
    elif isinstance(backend, OpenAIBackend):
        raw = RawServer(backend)
    else:
        report.notes.append(f"no raw-engine loop for the {backend.name} backend")

    # Warm both paths outside the timings: weights paged in, and the pipeline's one-time
    # start-up (e.g. loading the language detector) paid by a one-document run, so the
    # ratio compares steady-state throughput; the start-up is reported on its own.
    with tempfile.TemporaryDirectory(prefix="gen-bench-") as scratch:
        warmup, _ = measure_pipeline(
            "warm-up", RunPaths(Path(scratch)), pack, spec, backend, replace(options, n=1)
        )
    report.figures["pipeline_warmup_seconds"] = round(warmup.seconds, 2)
    if raw is not None:
        warm = replace(requests[0], sampling=replace(requests[0].sampling, max_tokens=4))
        timed_loop("warm-up", [warm], raw.complete)
        before = timed_loop("raw engine", requests, raw.complete)
    with tempfile.TemporaryDirectory(prefix="gen-bench-") as scratch:
        run = RunPaths(Path(scratch))
        pipeline, summary = measure_pipeline(
            f"pipeline (concurrency {backend.concurrency})", run, pack, spec, backend, options
        )
        report.rows.append(pipeline)
        if backend.concurrency == 1:
            # Immune to engine speed drift: the same requests, timed inside and outside.
            report.figures["pipeline_time_outside_engine"] = round(
                1 - summary.generation_seconds / summary.wall_seconds, 4
            )
        if raw is not None:
            after = timed_loop("raw engine", requests, raw.complete)
            engine = before.merged(after)
            report.rows.insert(0, engine)
            report.figures["pipeline_to_engine_ratio"] = ratio(
                pipeline.tokens_per_second, engine.tokens_per_second
            )
        rejected = sum(summary.rejected.values())
        report.figures["document_rejection_rate"] = ratio(rejected, pipeline.documents + rejected)
        documents = RecordTable(run.documents).read()
        report.figures["aligner_documents_per_second"] = aligner_documents_per_second(documents)
        if not documents:
            report.notes.append("no document passed the checks: labeling was not measured")
        for strategy in STRATEGIES if documents else ():
            labeling, failure_rate = measure_labeling(
                run, backend, strategy, options, backend_options.n_ctx
            )
            report.rows.append(labeling)
            report.figures[f"{strategy}_failure_rate"] = failure_rate

    if isinstance(raw, RawLlamaCpp):
        report.figures["prefix_reuse_gain"] = raw.prefix_reuse_gain(requests)
    if isinstance(backend, OpenAIBackend) and backend.concurrency > 1:
        single = make_backend(replace(backend_options, concurrency=1))
        with tempfile.TemporaryDirectory(prefix="gen-bench-") as scratch:
            sequential, _ = measure_pipeline(
                "pipeline (concurrency 1)", RunPaths(Path(scratch)), pack, spec, single, options
            )
        report.rows.append(sequential)
        report.figures["concurrency_gain"] = ratio(
            pipeline.tokens_per_second, sequential.tokens_per_second
        )
    return report


def write_report(run: RunPaths, report: BenchReport) -> Path:
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    path = run.bench / f"bench-{stamp}.json"
    write_json_atomic(path, report.as_dict())
    return path
