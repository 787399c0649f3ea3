"""`gen label`: character spans for the documents of a run folder."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import click

from gen.backends import make_backend
from gen.cli.options import (
    backend_options,
    backend_options_from,
    prompts_option,
    run_option,
    seed_option,
    shard_option,
)
from gen.core.runs import RunPaths
from gen.core.shards import Shard
from labeling.pipeline import (
    BOTH,
    STAGE,
    STRATEGY_CHOICES,
    LabelOptions,
    LabelSummary,
    label_documents,
    require_documents,
)


def _counts(counter: Counter[str]) -> str:
    return ", ".join(f"{key} {count}" for key, count in counter.most_common())


def _number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def report(summary: LabelSummary, run: RunPaths) -> None:
    """What was labeled, what failed and why, and how much the strategies agree."""
    click.echo(
        f"{summary.labeled}/{summary.documents} documents labeled with strategy {summary.strategy} "
        f"({summary.new_labeled} new) in {run.labeled}"
    )
    for strategy, statuses in summary.statuses.items():
        line = f"  {strategy}: {_counts(statuses)}"
        reasons = summary.reasons.get(strategy)
        if reasons:
            line += f" (reasons: {_counts(reasons)})"
        click.echo(line)
    if summary.spans:
        click.echo(f"  spans: {_counts(summary.spans)}")
    if summary.rejects:
        click.echo(f"failed or flagged answers, with reason and raw output: {run.rejects(STAGE)}")
    if summary.strategy == BOTH and not summary.agreement:
        click.echo("agreement: no document where both strategies gave a usable answer")
    if summary.agreement:
        click.echo("agreement of the two strategies per category (token level):")
        click.echo(f"  {'category':<12} {'docs':>5} {'tokens':>7} {'kappa':>6} {'F1':>6}")
        for category, row in summary.agreement.items():
            click.echo(
                f"  {category:<12} {row['documents']:>5} {row['tokens']:>7} "
                f"{_number(row['kappa']):>6} {_number(row['f1']):>6}"
            )


@click.command()
@run_option
@click.option(
    "--strategy",
    type=click.Choice(STRATEGY_CHOICES),
    default=BOTH,
    show_default=True,
    help="sentences: one label per sentence; censor: tags in a rewrite, aligned back; "
    "both: the two, with their agreement.",
)
@backend_options
@seed_option
@prompts_option
@click.option(
    "--prompt-format",
    default=None,
    help="'chat' (the model's template) or a raw format from prompts/formats.yaml "
    "(default: labeling.yaml's format).",
)
@click.option(
    "--overwrite",
    is_flag=True,
    help="Delete RUN/labeled and its rejects first and label everything again.",
)
@shard_option
def label(
    run_dir: Path,
    strategy: str,
    seed: int,
    prompts_dir: Path | None,
    prompt_format: str | None,
    overwrite: bool,
    shard: Shard,
    **kwargs: Any,
) -> None:
    """Label RUN/documents with character spans into RUN/labeled (resumable)."""
    backend_opts = backend_options_from(kwargs)
    options = LabelOptions(
        strategy=strategy,
        seed=seed,
        context_tokens=backend_opts.n_ctx,
        prompt_format=prompt_format,
        overwrite=overwrite,
        shard=shard,
    )
    run = RunPaths(run_dir)
    require_documents(run)
    summary = label_documents(run, make_backend(backend_opts), options, prompts_dir)
    report(summary, run)
