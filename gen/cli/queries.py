"""`gen queries`: short texts full of fictional identifiers, spans exact by construction."""

from __future__ import annotations

from pathlib import Path

import click

from gen.cli.options import prompts_option, run_option, seed_option, shard_option
from gen.core.packs import default_prompts_dir
from gen.core.runs import RunPaths
from gen.core.shards import Shard
from scraping.queries.generate import QuerySummary, generate_queries
from scraping.queries.values import LABELS


@click.command("queries")
@run_option
@click.option(
    "--n",
    "n",
    type=click.IntRange(min=1),
    default=1000,
    show_default=True,
    help="Number of queries in the run (re-running adds only the missing ones).",
)
@click.option(
    "--locale",
    default="en_US",
    show_default=True,
    help=(
        "Locale of the values (en_US, en_GB, en_IE, en_CA, en_AU, it_IT, it_CH, de_DE, de_AT, "
        "de_CH, fr_FR, fr_BE, fr_CH, es_ES, es_MX); picks prompts/queries/<lang>.yaml."
    ),
)
@seed_option
@prompts_option
@shard_option
def queries_command(
    run_dir: Path, n: int, locale: str, seed: int, prompts_dir: Path | None, shard: Shard
) -> None:
    """Fill query templates with Faker values into RUN/queries (resumable)."""
    summary = generate_queries(
        run_dir,
        locale=locale,
        n=n,
        seed=seed,
        prompts_dir=prompts_dir or default_prompts_dir(),
        shard=shard,
    )
    click.echo(label_table(summary))
    click.echo(f"records: {RunPaths(run_dir).queries}")


def label_table(summary: QuerySummary) -> str:
    """Spans per label, so the balance can be checked at a glance."""
    total = sum(summary.label_counts.values()) or 1
    width = max(len(label) for label in LABELS)
    lines = [
        f"queries: {summary.n} ({summary.written} new, {summary.already_done} already there)",
        f"{'label':<{width}}  {'spans':>6}  share",
    ]
    for label in LABELS:
        count = summary.label_counts.get(label, 0)
        lines.append(f"{label:<{width}}  {count:>6}  {count / total:6.1%}")
    lines.append(f"{'(no identifier)':<{width}}  {summary.negatives:>6}  queries")
    return "\n".join(lines)
