"""The measurements of `gen bench`, one function each: a timed loop of bare engine
calls, the documents stage, the labeling stage, the aligner."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence

from gen.backends.base import Backend, GenerationRequest
from gen.bench.report import Throughput, ratio
from gen.core.records import Record
from gen.core.runs import RunPaths
from gen.generate import run as documents_stage
from gen.generate.options import DocumentsOptions
from gen.generate.summary import DocumentsSummary
from gen.text.sentences import split_sentences
from labeling.align.aligner import align_document
from labeling.options import LabelOptions
from labeling.run import run as label_run
from labeling.strategies.outcome import FAILED, SKIPPED

#: Tag the simulated censored answers use for the aligner measurement.
_ALIGN_TAGS = {"HEALTH_DATA": "health"}


def timed_loop(
    label: str, requests: Sequence[GenerationRequest], run_one: Callable[[GenerationRequest], int]
) -> Throughput:
    """Runs `run_one(request) -> completion tokens` over `requests` and times the whole loop."""
    started = time.perf_counter()
    tokens = sum(run_one(request) for request in requests)
    return Throughput(label, len(requests), tokens, time.perf_counter() - started)


def measure_pipeline(
    label: str, run: RunPaths, options: DocumentsOptions, backend: Backend
) -> tuple[Throughput, DocumentsSummary]:
    """`gen documents` into a scratch run folder: throughput and its summary."""
    summary = documents_stage.run(run, options, backend)
    throughput = Throughput(
        label, summary.new_accepted, summary.completion_tokens, summary.wall_seconds
    )
    return throughput, summary


def measure_labeling(run: RunPaths, options: LabelOptions) -> tuple[Throughput, float | None]:
    """`gen label --strategy S --overwrite` on the run's documents: throughput, failure rate."""
    summary = label_run(run, options)
    statuses = summary.statuses.get(options.strategy, Counter())
    asked = sum(statuses.values()) - statuses[SKIPPED]
    throughput = Throughput(
        f"labeling: {options.strategy}",
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
