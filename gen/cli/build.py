"""`gen build`: merge labeled documents, negatives and queries into RUN/dataset."""

from __future__ import annotations

from pathlib import Path

import click

from gen.cli.options import prompts_option, run_option, seed_option
from gen.core.packs import negative_labels
from gen.dataset.assemble import build_dataset
from gen.dataset.options import BUILD_SPAN_SOURCES, LABEL_SCHEMES, OVERLAP_POLICIES, BuildOptions
from gen.quality.filter import REASONS, MinQuality


def _names(value: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in value.split(",") if part.strip())


@click.command("build")
@run_option
@seed_option
@prompts_option
@click.option(
    "--negatives-share",
    type=click.FloatRange(min=0, max=1, max_open=True),
    default=BuildOptions.negatives_share,
    show_default=True,
    help="Wikipedia paragraphs as a fraction of all documents (0 = none).",
)
@click.option(
    "--queries/--no-queries",
    "include_queries",
    default=True,
    show_default=True,
    help="Include the Faker queries.",
)
@click.option(
    "--translated/--no-translated",
    "include_translated",
    default=True,
    show_default=True,
    help="Include the translations of gen translate (RUN/translated).",
)
@click.option(
    "--scheme",
    type=click.Choice(LABEL_SCHEMES),
    default=BuildOptions.scheme,
    show_default=True,
    help="categories: GDPR categories; categories+pii: plus PII types; "
    "binary: every kept span labeled 'sensitive'.",
)
@click.option(
    "--sources",
    default=",".join(BUILD_SPAN_SOURCES),
    show_default=True,
    help="Span sources to keep, comma-separated, highest priority first.",
)
@click.option(
    "--overlap",
    type=click.Choice(OVERLAP_POLICIES),
    default="priority",
    show_default=True,
    help="Which span wins when spans of two sources overlap.",
)
@click.option(
    "--clean/--no-clean",
    default=False,
    show_default=True,
    help="Lowercase and drop special characters except periods (spans remapped).",
)
@click.option("--exclude-flagged", is_flag=True, help="Leave out documents the labeler flagged.")
@click.option(
    "--keep-echoes",
    is_flag=True,
    help="Keep generated documents flagged prompt_echo (words of their prompt, a bracketed "
    "slot, a made-up placeholder person...), which are left out by default.",
)
@click.option(
    "--min-quality",
    default=None,
    show_default="none: every document kept",
    metavar="SCORES",
    help="Leave out generated documents below these quality scores of gen score: one "
    "value for every score (0.5), name=value pairs (real=0.5,facts=0.6), or both. "
    "Scores: real, language, persona, facts; a document is judged on the questions it was "
    "asked.",
)
@click.option(
    "--dedup-threshold",
    type=click.FloatRange(min=0, max=1, min_open=True),
    default=0.9,
    show_default=True,
    help="Similarity above which a text is removed as a near-duplicate.",
)
@click.option(
    "--group-threshold",
    type=click.FloatRange(min=0, max=1, min_open=True),
    default=0.5,
    show_default=True,
    help="Similarity above which texts must stay in the same split.",
)
def build(
    run_dir: Path,
    seed: int,
    prompts_dir: Path | None,
    sources: str,
    min_quality: str | None,
    **options: object,
) -> None:
    """Assemble RUN/dataset from RUN/labeled, RUN/translated, RUN/gold, RUN/wikipedia and
    RUN/queries."""
    build_options = BuildOptions(
        seed=seed,
        sources=_names(sources),
        negative_labels=negative_labels(prompts_dir),
        min_quality=MinQuality.parse(min_quality) if min_quality is not None else None,
        **options,
    )
    report = build_dataset(run_dir, build_options)
    click.echo(
        f"inputs: {', '.join(report.inputs_found)}"
        + (f" (missing: {', '.join(report.inputs_missing)})" if report.inputs_missing else "")
    )
    click.echo(
        f"dataset: {report.records} records in {report.groups} groups "
        f"({', '.join(f'{k} {v}' for k, v in sorted(report.by_source.items()))})"
    )
    click.echo(f"negatives: {report.negatives_used} of {report.negatives_available} available")
    if report.queries:
        share = report.queries_without_spans / report.queries
        click.echo(
            f"queries: {report.queries} kept, {report.queries_without_spans} without any span "
            f"({share:.1%})"
        )
    if build_options.min_quality is not None:
        below = {k: v for k, v in report.removed.items() if k in REASONS}
        click.echo(
            f"quality filter {build_options.min_quality}: {sum(below.values())} documents "
            "removed"
            + (f" ({', '.join(f'{k} {v}' for k, v in sorted(below.items()))})" if below else "")
        )
    removed = ", ".join(f"{k} {v}" for k, v in sorted(report.removed.items())) or "none"
    click.echo(f"removed records: {removed}")
    dropped = ", ".join(f"{k} {v}" for k, v in sorted(report.spans_dropped.items())) or "none"
    click.echo(f"spans: {report.spans_kept} kept; dropped: {dropped}")
