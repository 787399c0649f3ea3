"""`gen stats`: print and write the tables to check before training."""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from gen.cli.options import prompts_option, run_option
from gen.core.packs import negative_labels
from gen.core.runs import RunPaths
from gen.inspect import stats as stats_stage


@click.command("stats")
@run_option
@prompts_option
def stats(run_dir: Path, prompts_dir: Path | None) -> None:
    """Label shares, documents per category/type/split, rejects; Markdown, CSV and PNG."""
    options = stats_stage.StatsOptions(negative_labels=negative_labels(prompts_dir))
    computed = stats_stage.run(RunPaths(run_dir), options)
    console = Console()
    for name, frame in computed.tables().items():
        table = Table(title=name, title_justify="left")
        for column in frame.columns:
            table.add_column(str(column))
        for row in frame.itertuples(index=False):
            table.add_row(*map(str, row))
        console.print(table)
    click.echo(f"written: {', '.join(str(path) for path in computed.written)}")
