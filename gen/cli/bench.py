"""`gen bench`: throughput of the pipeline against the bare engine, as a table and JSON."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from gen.bench.report import OVERHEAD_TARGET, BenchReport
from gen.bench.run import BenchOptions, run
from gen.cli.options import (
    backend_options,
    backend_options_from,
    language_option,
    prompts_option,
    run_option,
    seed_option,
)
from gen.core.runs import RunPaths

FIGURE_NAMES = {
    "pipeline_to_engine_ratio": "pipeline / raw engine tokens/s",
    "pipeline_time_outside_engine": "share of pipeline time spent outside the engine",
    "document_rejection_rate": "document rejection rate",
    "prefix_reuse_gain": "prefix reuse gain (prompt evaluation)",
    "concurrency_gain": "concurrency gain",
    "aligner_documents_per_second": "aligner documents/s",
    "sentences_failure_rate": "labeling failure rate: sentences",
    "censor_failure_rate": "labeling failure rate: censor",
    "pipeline_warmup_seconds": "pipeline start-up, one document (s)",
}


def print_report(report: BenchReport, console: Console) -> None:
    table = Table(title=f"gen bench: {report.backend.get('backend')} {report.model_id}")
    for column in ("measurement", "documents", "tokens", "seconds", "tokens/s", "documents/h"):
        table.add_column(column, justify="left" if column == "measurement" else "right")
    for row in report.rows:
        table.add_row(
            row.label,
            str(row.documents),
            str(row.completion_tokens),
            f"{row.seconds:.1f}",
            f"{row.tokens_per_second:.1f}",
            f"{row.documents_per_hour:.0f}",
        )
    console.print(table)
    for key, value in report.figures.items():
        console.print(f"{FIGURE_NAMES.get(key, key)}: {'n/a' if value is None else value}")
    overhead = report.figures.get("pipeline_to_engine_ratio")
    if overhead is not None:
        verdict = "within" if 1 - overhead <= OVERHEAD_TARGET else "above"
        console.print(
            f"pipeline overhead {1 - overhead:+.1%} ({verdict} the {OVERHEAD_TARGET:.0%} target)"
        )
    for note in report.notes:
        console.print(f"note: {note}")


@click.command()
@run_option
@backend_options
@click.option(
    "--n",
    "n",
    type=click.IntRange(min=1),
    default=4,
    show_default=True,
    help="Documents per measurement.",
)
@click.option(
    "--max-tokens",
    type=click.IntRange(min=16),
    default=128,
    show_default=True,
    help="Tokens per document.",
)
@click.option("--category", default="all", show_default=True, help="Plan category.")
@click.option(
    "--prompt-format",
    default=None,
    show_default="generation.yaml's format",
    help="'chat' (the model's template) or a raw format from prompts/formats.yaml, e.g. alpaca.",
)
@language_option
@seed_option
@prompts_option
def bench(run_dir: Path, **kwargs: Any) -> None:
    """Throughput of generation, labeling and alignment against the bare engine.

    Prints a table and writes RUN/bench/bench-<time>.json.
    """
    options = BenchOptions(
        n=kwargs["n"],
        max_tokens=kwargs["max_tokens"],
        language=kwargs["language"],
        category=kwargs["category"],
        seed=kwargs["seed"],
        prompts_dir=kwargs["prompts_dir"],
        prompt_format=kwargs["prompt_format"],
        backend=backend_options_from(kwargs),
    )
    report = run(RunPaths(run_dir), options)
    print_report(report, Console(width=max(100, Console().width)))
    click.echo(f"written: {report.path}")
