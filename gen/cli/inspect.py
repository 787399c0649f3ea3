"""`gen inspect`: one HTML page to review documents, spans, flags and rejects."""

from __future__ import annotations

from pathlib import Path

import click

from gen.cli.options import prompts_option, run_option
from gen.core.packs import negative_labels
from gen.core.runs import RunPaths
from gen.inspect import page


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
    type=click.Choice(page.TABLES),
    multiple=True,
    help="Record table to show; repeat for several  [default: labeled (else documents), "
    "wikipedia, queries]. Rejects are always shown.",
)
@prompts_option
def inspect_command(
    run_dir: Path, out: Path | None, tables: tuple[str, ...], prompts_dir: Path | None
) -> None:
    """Write a self-contained HTML page with every document and its highlighted spans."""
    options = page.PageOptions(out=out, tables=tables, negative_labels=negative_labels(prompts_dir))
    target = page.run(RunPaths(run_dir), options)
    click.echo(f"wrote {target}")
