"""`gen packs check`: every file of every language pack loaded, its prompts rendered."""

from __future__ import annotations

from pathlib import Path

import click

from gen.cli.options import prompts_option
from gen.core.errors import UsageError
from gen.packs.check import check_packs


@click.group("packs")
def packs() -> None:
    """Check the language packs in prompts/ (one line per problem)."""


@packs.command("check")
@click.option(
    "--language",
    "languages",
    multiple=True,
    help="Only this pack (repeatable; default: every pack in the prompts folder).",
)
@click.option(
    "--personas",
    type=click.IntRange(min=1),
    default=200,
    show_default=True,
    help="Personas drawn per pack to render every template with.",
)
@prompts_option
def check(languages: tuple[str, ...], personas: int, prompts_dir: Path | None) -> None:
    """Load every file of every pack (or --language), render every template for a sample of
    personas, and print one line per problem; exit status 2 when there is any."""
    reports = check_packs(prompts_dir, list(languages) or None, personas)
    for report in reports:
        for problem in report.problems:
            click.echo(problem)
        if not report.problems:
            click.echo(
                f"{report.code}: ok ({len(report.files)} files, {report.personas} personas, "
                f"{report.prompts} prompts rendered)"
            )
    failed = [report for report in reports if report.problems]
    if failed:
        count = sum(len(report.problems) for report in failed)
        raise UsageError(
            f"{count} problem{'s' if count > 1 else ''} in "
            + ", ".join(report.code for report in failed)
        )
