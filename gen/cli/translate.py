"""`gen translate`: labeled records into another language, spans carried over."""

from __future__ import annotations

from collections import Counter
from functools import partial
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
from gen.translate.carry import CARRIED
from gen.translate.run import SOURCE_TABLES, TranslateOptions, TranslateRun
from gen.translate.stored import STAGE
from gen.translate.summary import TranslateSummary


def _counts(counter: Counter[str]) -> str:
    return ", ".join(f"{key.replace('_', ' ')} {count}" for key, count in counter.most_common())


def report(summary: TranslateSummary, paths: RunPaths) -> None:
    """What was translated, what became of the spans, and what failed and why."""
    click.echo(
        f"{summary.translated} records translated into {summary.language} "
        f"({summary.new_translated} new) in {paths.translated}"
    )
    if summary.retried:
        click.echo(f"  asked again: {summary.retried} records rejected before")
    if summary.skipped:
        click.echo(f"  not translated: {_counts(summary.skipped)}")
    if summary.spans:
        share = summary.carried / summary.spans
        ways = Counter({k: v for k, v in summary.fates.items() if k in CARRIED})
        click.echo(
            f"  spans carried over: {summary.carried} of {summary.spans} ({share:.1%}): "
            f"{_counts(ways)}"
        )
        if summary.dropped:
            click.echo(f"  spans dropped: {_counts(summary.dropped)}")
    if summary.extra or summary.tag_problems:
        click.echo(f"  tags without a span: {_counts(summary.extra + summary.tag_problems)}")
    if summary.rejected:
        click.echo(
            f"  records not translated: {_counts(summary.rejected)} (reason and the model's "
            f"answers: {paths.rejects(STAGE)})"
        )
    if summary.new_translated and summary.model_seconds:
        per = summary.model_seconds / (summary.new_translated + summary.new_rejected)
        click.echo(
            f"  {per:.1f} s of model time per record, "
            f"{summary.completion_tokens / summary.model_seconds:.1f} tokens/s"
        )


@click.command()
@run_option
@click.option(
    "--to",
    "to",
    required=True,
    help="Language to translate into: a pack of the prompts folder with a translation.yaml "
    "(en, it, de, es, fr).",
)
@click.option(
    "--from",
    "from_language",
    default=None,
    help="Translate only the records of this language (default: every record not already "
    "in the --to language).",
)
@click.option(
    "--source",
    default="labeled",
    show_default=True,
    help=f"What to translate: a table of the run ({', '.join(SOURCE_TABLES)}), or a record "
    "file or folder (JSONL, Parquet, e.g. a gold set).",
)
@click.option(
    "--piece-words",
    type=click.IntRange(10, 2000),
    default=None,
    help="Translate in pieces of about this many words, cut between sentences (default: "
    "the pack's piece_words).",
)
@click.option(
    "--prompt-format",
    default=None,
    help="'chat' (the model's template) or a raw format from prompts/formats.yaml "
    "(default: translation.yaml's format).",
)
@click.option(
    "--retry-rejected",
    is_flag=True,
    help="Translate again the records in RUN/rejects/translate for this language (after a fix "
    "or with another model); those that fail again go back there.",
)
@seed_option
@shard_option
@backend_options
@prompts_option
def translate(
    run_dir: Path,
    to: str,
    from_language: str | None,
    source: str,
    piece_words: int | None,
    prompt_format: str | None,
    retry_rejected: bool,
    seed: int,
    shard: Shard,
    prompts_dir: Path | None,
    **kwargs: Any,
) -> None:
    """Translate labeled records into another language, each span wrapped in a tag naming
    its label so the translation's spans are exact, into RUN/translated (resumable).

    A span whose tag the model loses is found again in the translation, or dropped and
    counted with its reason; `gen build` takes the translations like any other records.
    """
    backend_opts = backend_options_from(kwargs)
    paths = RunPaths(run_dir)
    options = TranslateOptions(
        to=to,
        source=source,
        from_language=from_language,
        prompt_format=prompt_format,
        context_tokens=backend_opts.n_ctx,
        seed=seed,
        piece_words=piece_words,
        shard=shard,
        retry_rejected=retry_rejected,
        prompts_dir=prompts_dir,
        load_backend=partial(make_backend, backend_opts),
    )
    report(TranslateRun(paths, options).execute(), paths)
