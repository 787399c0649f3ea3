"""`gen inspect`: one HTML page to review documents, spans, flags and rejects."""

from __future__ import annotations

from pathlib import Path

import click

from gen.cli.options import run_option
from gen.inspect.page import TABLES, write_inspect_page


@click.command("inspect")
@run_option
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="HTML file to write  [default: RUN/inspect.html]",
)
@click.option(
    "--table",
    "tables",
    type=click.Choice(TABLES),
    multiple=True,
    help="Record table to show; repeat for several  [default: labeled (else documents), "
    "wikipedia, queries]. Rejects are always shown.",
)
def inspect_command(run_dir: Path, out: Path | None, tables: tuple[str, ...]) -> None:
    """Write a self-contained HTML page with every document and its highlighted spans."""
    target = write_inspect_page(run_dir, out, tables)
    click.echo(f"wrote {target}")
