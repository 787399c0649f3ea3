"""`gen eval GOLD PRED`: score predicted spans against a gold set."""

from __future__ import annotations

import json
from pathlib import Path

import click

from gen.cli.options import prompts_option
from gen.core.packs import negative_labels
from gen.evaluate.report import render_text
from gen.evaluate.run import GROUPINGS, Grouping, evaluate_files


@click.command("eval")
@click.argument("gold", type=click.Path(path_type=Path))
@click.argument("pred", type=click.Path(path_type=Path))
@click.option(
    "--by",
    type=click.Choice(GROUPINGS),
    default="label",
    show_default=True,
    help="Also score each gold category, or each predicted span source, separately.",
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["table", "json"]),
    default="table",
    show_default=True,
    help="table: readable tables as wide as the terminal; json: every score, for scripts.",
)
@click.option(
    "--negative",
    multiple=True,
    help="Label that means 'not sensitive' (counted as no label); repeat for several  "
    "[default: the labels of the categories with `sensitive: false` in categories.yaml].",
)
@prompts_option
def eval_command(
    gold: Path,
    pred: Path,
    by: Grouping,
    output_format: str,
    negative: tuple[str, ...],
    prompts_dir: Path | None,
) -> None:
    """Score the spans of PRED against GOLD (Parquet, JSONL or record folders, same ids
    and texts): token overlap per label, documents, SemEval entity schemes, confusion."""
    evaluation = evaluate_files(
        gold, pred, by=by, negative=negative or negative_labels(prompts_dir)
    )
    if output_format == "json":
        click.echo(json.dumps(evaluation.to_json(), indent=2, ensure_ascii=False))
    else:
        click.echo(render_text(evaluation), nl=False)
