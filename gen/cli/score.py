"""`gen score`: quality scores for the generated documents of a run folder."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

import click

from gen.backends import make_backend
from gen.cli.options import backend_options, backend_options_from, prompts_option, run_option
from gen.core.runs import RunPaths
from gen.quality.run import ScoreOptions, ScoreSummary, generated_documents, run
from gen.quality.stored import STAGE


def report(summary: ScoreSummary, paths: RunPaths) -> None:
    """What was scored, each question's mean score, and the answers that failed and why."""
    click.echo(
        f"{summary.scored}/{summary.documents} documents scored by {summary.model} "
        f"({summary.new_scored} new) in {paths.quality}"
    )
    for name, counts in summary.questions.items():
        line = f"  {name}: {counts.scored} scored"
        if counts.mean is not None:
            line += f", mean {counts.mean:.2f}"
        if counts.failed:
            reasons = ", ".join(f"{key} {count}" for key, count in counts.failed.most_common())
            line += f"; failed: {reasons}"
        click.echo(line)
    if summary.failed:
        click.echo(
            f"{summary.failed} failed answers, with reason and detail: {paths.rejects(STAGE)}"
        )


@click.command()
@run_option
@backend_options
@prompts_option
@click.option(
    "--prompt-format",
    default=None,
    help="'chat' (the model's template) or a raw format from prompts/formats.yaml "
    "(default: quality.yaml's format).",
)
@click.option(
    "--overwrite",
    is_flag=True,
    help="Delete RUN/quality and its rejects first and score everything again (needed to "
    "score with another model).",
)
def score(
    run_dir: Path,
    prompts_dir: Path | None,
    prompt_format: str | None,
    overwrite: bool,
    **kwargs: Any,
) -> None:
    """Score every generated document of RUN/documents with the yes/no questions of
    quality.yaml (real, language, persona, facts) into RUN/quality (resumable).

    A score is the probability of a yes answer after one forward pass; `gen build
    --min-quality` keeps the documents that reach the thresholds.
    """
    backend_opts = backend_options_from(kwargs)
    paths = RunPaths(run_dir)
    generated_documents(paths)  # nothing to score: refused before a model is loaded
    options = ScoreOptions(
        context_tokens=backend_opts.n_ctx,
        prompt_format=prompt_format,
        overwrite=overwrite,
        prompts_dir=prompts_dir,
        load_backend=partial(make_backend, backend_opts),
    )
    report(run(paths, options), paths)
