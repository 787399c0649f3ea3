"""`gen review push|pull|export|report`: a round trip through Label Studio."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from gen.cli.options import F, compose_options, prompts_option, run_option, seed_option
from gen.core.errors import GenError
from gen.predict.run import unread_lines
from gen.review.connection import API_KEY_ENV, DEFAULT_URL, Connection
from gen.review.gold import ReviewResult
from gen.review.offsets import OFFSET_UNITS
from gen.review.pull import PullOptions, import_export_file, pull
from gen.review.push import TABLES, PushOptions, push, report_lines, write_task_file
from gen.review.report import render_report, review_report
from gen.review.sample import STRATA
from gen.review.select import RULES

connection_options = compose_options(
    click.option(
        "--url",
        envvar="LABEL_STUDIO_URL",
        default=DEFAULT_URL,
        show_default=True,
        help="Label Studio server (or set LABEL_STUDIO_URL).",
    ),
    click.option(
        "--api-key-env",
        default=API_KEY_ENV,
        show_default=True,
        help="Environment variable holding the access token; the token is never stored.",
    ),
    click.option(
        "--timeout",
        type=click.FloatRange(min=1),
        default=30.0,
        show_default=True,
        help="Seconds to wait for one answer.",
    ),
    click.option(
        "--retries",
        type=click.IntRange(min=0),
        default=2,
        show_default=True,
        help="Retries of a refused connection or a 5xx/429 answer, with backoff.",
    ),
    click.option(
        "--ca-bundle",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        show_default="the system's certificate authorities",
        help="PEM certificate of a private authority to verify the server's TLS certificate "
        "(verification is always on).",
    ),
)


def project_option(default: str) -> Callable[[F], F]:
    return click.option(
        "--project", default=None, show_default=default, help="Project title or id."
    )


def table_option(default: str) -> Callable[[F], F]:
    return click.option(
        "--table",
        type=click.Choice(TABLES),
        default=None,
        show_default=default,
        help="Record table the documents come from.",
    )


def unit_option(default: str) -> Callable[[F], F]:
    return click.option(
        "--offsets",
        "unit",
        type=click.Choice(OFFSET_UNITS),
        default=None,
        show_default=default,
        help="How the server counts offsets: codepoint (Label Studio 1.23, measured) or utf16 "
        "(JavaScript string units). Pulled spans are re-anchored on their stored text either "
        "way.",
    )


#: The defaults of the options above in every command but push: what the push recorded.
AS_PUSHED = "as pushed"


prefer_option = click.option(
    "--prefer",
    default="latest",
    show_default=True,
    help="Whose spans are gold when several reviewers annotated a task: latest, earliest, "
    "or a reviewer's e-mail (else the latest); every reviewer's spans are kept in meta.",
)


def _connection(kwargs: dict[str, Any]) -> Connection:
    return Connection(
        url=kwargs.pop("url"),
        api_key_env=kwargs.pop("api_key_env"),
        timeout=kwargs.pop("timeout"),
        retries=kwargs.pop("retries"),
        ca_bundle=kwargs.pop("ca_bundle"),
    )


@click.group("review")
def review() -> None:
    """Review and correct labels in Label Studio, and pull them back as gold."""


@review.command("push")
@run_option
@connection_options
@project_option("gen review: RUN-NAME")
@table_option("labeled")
@click.option(
    "--sample",
    type=click.IntRange(min=1),
    default=None,
    show_default="every document",
    help="Push N documents.",
)
@click.option(
    "--stratify",
    type=click.Choice(STRATA),
    default=None,
    show_default="category",
    help="Strata of the sample take turns; flagged, disagreeing and low-score documents first.",
)
@click.option(
    "--select",
    type=click.Choice(RULES),
    default=None,
    show_default="none: the stratified sample",
    help="Pick the --sample N documents a detector learns most from instead: uncertain (its "
    "scores nearest its thresholds), disagreement (its spans against the table's), or random; "
    "documents already in the project or in RUN/gold are left out.",
)
@click.option(
    "--detector",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    show_default="none; required by uncertain and disagreement",
    help="Model folder of gen train (--out) that --select uncertain or disagreement scores with.",
)
@seed_option
@unit_option("codepoint")
@prompts_option
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    show_default="none: push to the server",
    help="Write tasks.json and label_config.xml to this folder instead of pushing.",
)
def push_command(run_dir: Path, **kwargs: Any) -> None:
    """Send documents to a Label Studio project as tasks, with the labelers' spans as
    predictions (one per span source). Pushing again adds only what is missing."""
    connection = _connection(kwargs)
    out = kwargs.pop("out")
    options = PushOptions(
        table=kwargs["table"] or "labeled",
        project=kwargs["project"],
        sample=kwargs["sample"],
        stratify=kwargs["stratify"],
        select=kwargs["select"],
        detector=kwargs["detector"],
        seed=kwargs["seed"],
        unit=kwargs["unit"] or "codepoint",
        prompts_dir=kwargs["prompts_dir"],
    )
    if out is not None:
        tasks, config, chosen = write_task_file(run_dir, out, options)
        line = f"wrote {len(chosen.records)} tasks to {tasks} and the labeling config to {config}"
        if chosen.skipped:
            line += f"; {chosen.skipped} already reviewed (in RUN/gold) were left out"
        if chosen.unread:
            line += f"; {len(chosen.unread)} the detector could not read were left out"
        click.echo(line)
        _left_out(chosen.unread, chosen.note)
        return
    report = push(run_dir, connection, options)
    for line in report_lines(report):
        click.echo(line)
    _left_out(report.unread, report.note)


def _left_out(unread: dict[str, str], note: str | None) -> None:
    """The documents the detector could not read, and a note on a short sample."""
    for line in [*unread_lines(unread), *[note] * bool(note)]:
        click.echo(line, err=True)


def _finish(result: ReviewResult, run_dir: Path) -> None:
    for record_id in result.disagreements:
        click.echo(f"warning: reviewers disagree on {record_id} (flag review_disagreement)")
    for record in result.rejected:
        click.secho(f"refused: {record.meta['reason']}", fg="yellow", err=True)
    click.echo(
        f"wrote {len(result.gold)} gold records to {run_dir / 'gold'}; "
        f"{result.unannotated} tasks without a submitted annotation, "
        f"{len(result.rejected)} refused (kept in {run_dir / 'rejects' / 'review'})"
    )
    if result.rejected:
        raise GenError(
            f"{len(result.rejected)} tasks refused; fix them in Label Studio and pull again"
        )


def _pull_options(kwargs: dict[str, Any]) -> PullOptions:
    return PullOptions(
        project=kwargs.get("project"),
        prefer=kwargs["prefer"],
        table=kwargs["table"],
        unit=kwargs["unit"],
    )


@review.command("pull")
@run_option
@connection_options
@project_option(AS_PUSHED)
@table_option(AS_PUSHED)
@unit_option(AS_PUSHED)
@prefer_option
def pull_command(run_dir: Path, **kwargs: Any) -> None:
    """Fetch the submitted annotations and write them as RUN/gold (source gold, reviewer and
    time in meta), span by span re-anchored and validated."""
    connection = _connection(kwargs)
    _finish(pull(run_dir, connection, _pull_options(kwargs)), run_dir)


@review.command("export")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@run_option
@table_option(AS_PUSHED)
@unit_option(AS_PUSHED)
@prefer_option
def export_command(file: Path, run_dir: Path, **kwargs: Any) -> None:
    """Write RUN/gold from a Label Studio JSON export FILE (for a server this machine
    cannot reach)."""
    _finish(import_export_file(run_dir, file, _pull_options(kwargs)), run_dir)


@review.command("report")
@run_option
@table_option(AS_PUSHED)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["table", "json"]),
    default="table",
    show_default=True,
    help="table: readable tables as wide as the terminal; json: every count, for scripts.",
)
def report_command(run_dir: Path, table: str | None, output_format: str) -> None:
    """Score the labelers against the pulled gold (per label and span source) and count
    what the reviewers kept, edited, deleted and added."""
    report = review_report(run_dir, table)
    if output_format == "json":
        click.echo(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
    else:
        click.echo(render_report(report), nl=False)
