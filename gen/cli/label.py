"""`gen label`: character spans for the documents of a run folder."""

from __future__ import annotations

from collections import Counter
from functools import partial
from pathlib import Path
from typing import Any

import click

import labeling.strategies as registry
from gen.backends import make_backend
from gen.cli.options import (
    backend_options,
    backend_options_from,
    given,
    note_ignored,
    prompts_option,
    run_option,
    seed_option,
    shard_option,
)
from gen.core.errors import UsageError
from gen.core.packs import load_categories
from gen.core.runs import RunPaths
from gen.core.shards import Shard
from gen.text.units import UNITS
from labeling.min_score import MinScore
from labeling.options import (
    ANSWER_MODES,
    CATEGORY_MODES,
    CONTEXT_MODES,
    DEFAULT_ANSWERS,
    DEFAULT_CATEGORIES,
    DEFAULT_CONTEXT,
    DEFAULT_MIN_SCORE,
    DEFAULT_UNIT,
    LabelOptions,
)
from labeling.run import STAGE, LabelSummary, require_documents, run
from labeling.strategies.detector import NAME as DETECTOR


def _counts(counter: Counter[str]) -> str:
    return ", ".join(f"{key} {count}" for key, count in counter.most_common())


def _number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def report(summary: LabelSummary, paths: RunPaths) -> None:
    """What was labeled, what failed and why, and how much the strategies agree."""
    click.echo(
        f"{summary.labeled}/{summary.documents} documents labeled with strategy {summary.strategy} "
        f"({summary.new_labeled} new) in {paths.labeled}"
    )
    for name, statuses in summary.statuses.items():
        line = f"  {name}: {_counts(statuses)}"
        reasons = summary.reasons.get(name)
        if reasons:
            line += f" (reasons: {_counts(reasons)})"
        click.echo(line)
    if summary.spans:
        click.echo(f"  spans: {_counts(summary.spans)}")
    if summary.rejects:
        click.echo(f"failed or flagged answers, with reason and raw output: {paths.rejects(STAGE)}")
    if len(summary.strategies) > 1 and not summary.agreement:
        click.echo("agreement: no document where two strategies gave a usable answer")
    for pair, rows in summary.agreement.items():
        click.echo(f"agreement of {pair} per category (token level):")
        click.echo(f"  {'category':<12} {'docs':>5} {'tokens':>7} {'kappa':>6} {'F1':>6}")
        for category, row in rows.items():
            click.echo(
                f"  {category:<12} {row['documents']:>5} {row['tokens']:>7} "
                + _agreement_cells(pair, row)
            )


def _agreement_cells(pair: str, row: dict[str, Any]) -> str:
    """Kappa and F1, or why there is nothing to compare (a side marked no token)."""
    first, _, second = pair.partition(" vs ")
    empty = [
        name
        for name, positives in ((first, row["first_positive"]), (second, row["second_positive"]))
        if not positives
    ]
    if len(empty) == 2:
        return "nothing to compare: neither marked a token"
    if empty:
        return f"nothing to compare: {empty[0]} marked no token"
    return f"{_number(row['kappa']):>6} {_number(row['f1']):>6}"


def _strategy_list(ctx: click.Context, param: click.Parameter, value: str) -> str:
    try:
        registry.parse_strategies(value)
    except UsageError as exc:
        raise click.BadParameter(str(exc)) from None
    return value


def _strategy_help() -> str:
    lines = "; ".join(f"{s.name}: {s.summary}" for s in registry.strategies())
    return f"{lines}. Several: a comma-separated list, all, or both (sentences,censor)."


@click.command()
@run_option
@click.option(
    "--strategy",
    default="sentences",
    show_default=True,
    callback=_strategy_list,
    metavar="NAMES",
    help=_strategy_help(),
)
@click.option(
    "--unit",
    type=click.Choice(UNITS),
    default=DEFAULT_UNIT,
    show_default=True,
    help="What one label of the sentences strategy covers: a sentence, or a clause (sentences "
    "cut at ; : dashes and before conjunctions). List items and form values are units too.",
)
@click.option(
    "--categories",
    type=click.Choice(CATEGORY_MODES),
    default=DEFAULT_CATEGORIES,
    show_default=True,
    help="own: ask a document about its own category (the thesis's prompt); all: a unit "
    "(sentences) or a passage (censor) may be any sensitive category of the language pack, "
    "or none, and every document is asked, negatives too.",
)
@click.option(
    "--answers",
    type=click.Choice(ANSWER_MODES),
    default=DEFAULT_ANSWERS,
    show_default=True,
    help="scored: compare the labels' probabilities, one forward pass per unit; generated: "
    "the model writes the labels; auto: scored where the backend can.",
)
@click.option(
    "--context",
    type=click.Choice(CONTEXT_MODES),
    default=DEFAULT_CONTEXT,
    show_default=True,
    help="Scored answers: the model reads each unit alone, or the whole document before it "
    "(read once per document; the units' prompts share it).",
)
@click.option(
    "--min-score",
    default=str(DEFAULT_MIN_SCORE),
    show_default=True,
    help="Drop scored spans whose label probability is below this: one value, or one for "
    "every label followed by label=value pairs.",
)
@click.option(
    "--detector",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    show_default="none: only --strategy detector needs one",
    help="--strategy detector: a detector folder written by gen train (e.g. RUN/models/encoder).",
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
    unit: str,
    categories: str,
    answers: str,
    context: str,
    min_score: str,
    detector: Path | None,
    seed: int,
    prompts_dir: Path | None,
    prompt_format: str | None,
    overwrite: bool,
    shard: Shard,
    **kwargs: Any,
) -> None:
    """Label RUN/documents with character spans into RUN/labeled (resumable)."""
    # Parsed here, not by click: a label is checked against the categories of --prompts.
    min_scores = MinScore.parse(min_score, load_categories(prompts_dir).sensitive)
    backend_opts = backend_options_from(kwargs)
    paths = RunPaths(run_dir)
    require_documents(paths)
    chosen = [registry.strategy(name) for name in registry.parse_strategies(strategy)]
    if all(item.name != DETECTOR for item in chosen):
        note_ignored("detector", f"--strategy {strategy}")
    needs_model = any(item.needs_model for item in chosen)
    options = LabelOptions(
        strategy=strategy,
        seed=seed,
        context_tokens=backend_opts.n_ctx,
        prompt_format=prompt_format,
        overwrite=overwrite,
        unit=unit,
        categories=categories,
        answers=answers,
        context=context,
        min_score=min_scores,
        detector=detector,
        detector_min_score=min_scores if given("min_score") else None,
        prompts_dir=prompts_dir,
        shard=shard,
        load_backend=partial(make_backend, backend_opts) if needs_model else None,
    )
    report(run(paths, options), paths)
