"""`gen export`: split RUN/dataset and write it in a trainer's format."""

from __future__ import annotations

from pathlib import Path

import click

from gen.cli.options import run_option, seed_option
from gen.dataset.splits import parse_ratios
from gen.export.run import ALIGNMENT_MODES, FORMATS, ExportOptions, export_run
from gen.text.words import TAG_SCHEMES


@click.command("export")
@run_option
@seed_option
@click.option("--format", "format_name", type=click.Choice(sorted(FORMATS)), required=True)
@click.option(
    "--split",
    "split_text",
    default="0.8,0.1,0.1",
    show_default=True,
    help="train,dev,test fractions (or train,test).",
)
@click.option(
    "--holdout-doc-types",
    default="",
    help="Comma-separated document types kept whole for the test split.",
)
@click.option(
    "--scheme",
    type=click.Choice(TAG_SCHEMES),
    default="io",
    show_default=True,
    help="Tag scheme of conll and hf-tokens.",
)
@click.option(
    "--tokenizer",
    type=click.Path(exists=True, path_type=Path),
    default=None,
    help="hf-tokens: a local tokenizer folder or tokenizer.json.",
)
@click.option(
    "--length", type=int, default=100, show_default=True, help="hf-tokens: window length in tokens."
)
@click.option(
    "--stride",
    type=int,
    default=None,
    help="hf-tokens: token overlap between windows (default 20); "
    "sentences-context: words between chunk starts (default 6).",
)
@click.option(
    "--chunk-width",
    type=int,
    default=7,
    show_default=True,
    help="sentences-context: words per chunk.",
)
@click.option(
    "--context-width",
    type=int,
    default=15,
    show_default=True,
    help="sentences-context: words of context around a chunk.",
)
@click.option(
    "--separator",
    default="[SEP]",
    show_default=True,
    help="sentences-context: text between chunk and context.",
)
@click.option(
    "--alignment-mode",
    type=click.Choice(ALIGNMENT_MODES),
    default="expand",
    show_default=True,
    help="spacy: how spans snap to token edges.",
)
def export(
    run_dir: Path,
    seed: int,
    format_name: str,
    split_text: str,
    holdout_doc_types: str,
    **options: object,
) -> None:
    """Write RUN/export/FORMAT/{train,dev,test}.* with a manifest and a dataset card."""
    holdout = [name.strip() for name in holdout_doc_types.split(",") if name.strip()]
    report = export_run(
        run_dir, format_name, parse_ratios(split_text), seed, ExportOptions(**options), holdout
    )
    counts = ", ".join(f"{name} {count}" for name, count in report.counts.items())
    click.echo(f"{format_name}: {counts} records -> {report.folder}")
    unaligned = report.details.get("unaligned_spans", {})
    if any(unaligned.values()):
        click.echo(f"spans not aligned to tokens (listed in manifest.json): {unaligned}")
