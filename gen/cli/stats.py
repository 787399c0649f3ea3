"""`gen stats`: print and write the tables to check before training."""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from gen.cli.options import run_option
from gen.inspect.stats import write_stats


@click.command("stats")
@run_option
def stats(run_dir: Path) -> None:
    """Label shares, documents per category/type/split, rejects; Markdown, CSV and PNG."""
    computed, written = write_stats(run_dir)
    console = Console()
    for name, frame in computed.tables().items():
        table = Table(title=name, title_justify="left")
        for column in frame.columns:
            table.add_column(str(column))
        for row in frame.itertuples(index=False):
            table.add_row(*map(str, row))
        console.print(table)
    click.echo(f"written: {', '.join(str(path) for path in written)}")
