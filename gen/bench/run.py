"""`gen bench`: what the pipeline costs on top of the bare engine, measured in one run.

The key figure is the ratio of the pipeline's generation throughput (`gen documents`
end to end: prompts, requests, cleaning, checks, crash-safe storage) to the raw engine's
on the same model, prompts, seeds and token limit. The raw engine loop comes from the
backend's module (`BackendSpec.raw_engine`: a bare llama-cpp-python loop for llama.cpp,
plain HTTP requests for a server); a backend without one is measured without the ratio.
The raw loop runs before and after the pipeline so that drift of a shared machine hits
both. `run` is the sequence of named steps; each measurement is in `gen.bench.measure`.
"""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from gen.backends import default_backend_options, make_backend, raw_engine
from gen.backends.base import Backend, GenerationRequest, RawEngine
from gen.backends.spec import BackendOptions
from gen.bench.measure import (
    aligner_documents_per_second,
    measure_labeling,
    measure_pipeline,
    timed_loop,
)
from gen.bench.report import BenchReport, Throughput, ratio, write_report
from gen.core.packs import LanguagePack, load_language_pack
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from gen.generate.options import DocumentsOptions
from gen.generate.plan import plan_item
from gen.generate.plan_spec import ALL, PlanSpec
from gen.generate.preflight import TokenLimit, token_limit
from gen.generate.requests import Prompter
from labeling.options import LabelOptions
from labeling.strategies import strategies as label_strategies


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
    backend: BackendOptions = field(default_factory=default_backend_options)

    @property
    def spec(self) -> PlanSpec:
        return PlanSpec(language=self.language, category=self.category, seed=self.seed)

    def documents_options(self, n: int | None = None) -> DocumentsOptions:
        return DocumentsOptions(
            self.spec,
            n or self.n,
            self.max_tokens,
            self.prompt_format,
            self.prompts_dir,
            self.backend,
        )

    def as_dict(self) -> dict[str, Any]:
        values = asdict(self)
        values["prompts_dir"] = str(self.prompts_dir or "")
        values["backend"] = type(self.backend).__name__
        return values


@contextmanager
def scratch_run() -> Iterator[RunPaths]:
    with tempfile.TemporaryDirectory(prefix="gen-bench-") as folder:
        yield RunPaths(Path(folder))


def bench_requests(
    pack: LanguagePack, backend: Backend, options: BenchOptions, limit: TokenLimit
) -> list[GenerationRequest]:
    """The first n requests of the plan, exactly as `gen documents` sends them."""
    prompter = Prompter(pack, backend, prompt_format=options.prompt_format, limit=limit)
    return [prompter.request(plan_item(pack, options.spec, i))[1] for i in range(options.n)]


def sequential_options(options: BackendOptions) -> BackendOptions | None:
    """The same backend with one request in flight, when it has a `concurrency` option."""
    if "concurrency" not in {option.name for option in dataclasses.fields(options)}:
        return None
    return replace(options, concurrency=1)  # type: ignore[call-arg]


class Bench:
    """One `gen bench`: a backend, its raw engine, the requests, and the report filled in."""

    def __init__(self, options: BenchOptions) -> None:
        self.options = options
        pack = load_language_pack(options.language, options.prompts_dir)
        pack.formats.check_option(options.prompt_format)
        limit = token_limit(pack, options.spec, options.max_tokens)  # before the model loads
        self.backend = make_backend(options.backend)
        self.requests = bench_requests(pack, self.backend, options, limit)
        self.raw: RawEngine | None = raw_engine(self.backend)
        self.report = BenchReport(
            self.backend.model_id, dict(self.backend.describe()), options.as_dict()
        )
        if self.raw is None:
            self.report.notes.append(f"no raw-engine loop for the {self.backend.name} backend")

    def warm_up(self) -> None:
        """Weights paged in, and the pipeline's one-time start-up (e.g. loading the language
        detector) paid by a one-document run outside the timings, so that the ratio compares
        steady-state throughput; the start-up is reported on its own."""
        with scratch_run() as run:
            warmup, _ = measure_pipeline(
                "warm-up", run, self.options.documents_options(n=1), self.backend
            )
        self.report.figures["pipeline_warmup_seconds"] = round(warmup.seconds, 2)
        if self.raw is not None:
            first = self.requests[0]
            timed_loop("warm-up", [replace(first, sampling=replace(first.sampling, max_tokens=4))],
                       self.raw.complete)  # fmt: skip

    def raw_loop(self) -> Throughput | None:
        return timed_loop("raw engine", self.requests, self.raw.complete) if self.raw else None

    def pipeline(self, run: RunPaths, raw_before: Throughput | None) -> Throughput:
        """`gen documents`, then the raw loop again, and their ratio."""
        backend = self.backend
        pipeline, summary = measure_pipeline(
            f"pipeline (concurrency {backend.concurrency})",
            run,
            self.options.documents_options(),
            backend,
        )
        figures = self.report.figures
        self.report.rows.append(pipeline)
        if backend.concurrency == 1:
            # Immune to engine speed drift: the same requests, timed inside and outside.
            figures["pipeline_time_outside_engine"] = round(
                1 - summary.generation_seconds / summary.wall_seconds, 4
            )
        raw_after = self.raw_loop()
        if raw_before and raw_after:
            engine = raw_before.merged(raw_after)
            self.report.rows.insert(0, engine)
            figures["pipeline_to_engine_ratio"] = ratio(
                pipeline.tokens_per_second, engine.tokens_per_second
            )
        rejected = sum(summary.rejected.values())
        figures["document_rejection_rate"] = ratio(rejected, pipeline.documents + rejected)
        return pipeline

    def labeling(self, run: RunPaths) -> None:
        """Each labeling strategy over the documents the pipeline wrote, and the aligner."""
        documents = RecordTable(run.documents).read()
        self.report.figures["aligner_documents_per_second"] = aligner_documents_per_second(
            documents
        )
        if not documents:
            self.report.notes.append("no document passed the checks: labeling was not measured")
            return
        for strategy in (s.name for s in label_strategies() if s.needs_model):
            label_options = LabelOptions(
                strategy=strategy,
                seed=self.options.seed,
                context_tokens=self.options.backend.n_ctx,
                prompt_format=self.options.prompt_format,
                overwrite=True,
                prompts_dir=self.options.prompts_dir,
                backend=self.backend,
            )
            throughput, failure_rate = measure_labeling(run, label_options)
            self.report.rows.append(throughput)
            self.report.figures[f"{strategy}_failure_rate"] = failure_rate

    def concurrency_gain(self, pipeline: Throughput) -> None:
        """With N requests in flight: the pipeline's throughput against one in flight."""
        backend = self.backend
        single_options = sequential_options(self.options.backend)
        if not (backend.capabilities.concurrent and backend.concurrency > 1 and single_options):
            return
        single = make_backend(single_options)
        with scratch_run() as run:
            sequential, _ = measure_pipeline(
                "pipeline (concurrency 1)", run, self.options.documents_options(), single
            )
        self.report.rows.append(sequential)
        self.report.figures["concurrency_gain"] = ratio(
            pipeline.tokens_per_second, sequential.tokens_per_second
        )


def run(paths: RunPaths, options: BenchOptions) -> BenchReport:
    """Measure, then write RUN/bench/bench-<time>.json; the report says where."""
    bench = Bench(options)
    bench.warm_up()
    raw_before = bench.raw_loop()
    with scratch_run() as scratch:
        pipeline = bench.pipeline(scratch, raw_before)
        bench.labeling(scratch)
    if bench.raw is not None:
        bench.report.figures.update(bench.raw.figures(bench.requests))
    bench.concurrency_gain(pipeline)
    write_report(paths, bench.report)
    return bench.report
