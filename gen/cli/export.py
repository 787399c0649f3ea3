"""`gen export`: split RUN/dataset and write it in a trainer's format.

The format options (`--scheme`, `--tokenizer`...) are not listed here: each
format declares its own (gen.export.registry), and this module turns them into
click options, once per name even when several formats share it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from gen.cli.options import given, note_ignored, prompts_option, run_option, seed_option
from gen.core.errors import warn
from gen.core.runs import RunPaths
from gen.dataset.splits import parse_ratios
from gen.export.registry import SharedOption, export_format, export_formats, shared_options
from gen.export.run import ExportOptions, run


def _click_type(shared: SharedOption) -> Any:
    spec = shared.spec
    if spec.choices:
        return click.Choice(spec.choices)
    if spec.type is Path:
        return click.Path(exists=spec.must_exist, path_type=Path)
    if spec.type is int and shared.minimum is not None:
        return click.IntRange(min=shared.minimum)
    return spec.type


def format_options(command: Any) -> Any:
    """One click option per option name the formats declare, in declaration order."""
    for shared in reversed(shared_options()):
        command = click.option(
            shared.spec.flag,
            shared.spec.name,
            type=_click_type(shared),
            default=shared.default,
            show_default=shared.show_default,
            help=shared.help,
        )(command)
    return command


@click.command("export")
@run_option
@seed_option
@click.option(
    "--format",
    "format_name",
    type=click.Choice(sorted(export_formats())),
    required=True,
    help="Trainer format to write (docs/export.md describes each).",
)
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
    show_default="none",
    help="Comma-separated document types kept whole for the test split.",
)
@prompts_option
@format_options
def export(
    run_dir: Path,
    seed: int,
    format_name: str,
    split_text: str,
    holdout_doc_types: str,
    prompts_dir: Path | None,
    **format_values: Any,
) -> None:
    """Write RUN/export/FORMAT/{train,dev,test}.* with a manifest and a dataset card."""
    chosen = export_format(format_name)
    settings = _given_settings(chosen.name, format_values)
    holdout = tuple(name.strip() for name in holdout_doc_types.split(",") if name.strip())
    options = ExportOptions(
        format_name, parse_ratios(split_text), seed, holdout, settings, prompts_dir
    )
    summary = run(RunPaths(run_dir), options)
    if summary.removed_leftovers:
        click.echo(
            f"removed {len(summary.removed_leftovers)} staging folder(s) "
            "left by interrupted exports"
        )
    counts = ", ".join(f"{name} {count}" for name, count in summary.counts.items())
    click.echo(f"{format_name}: {counts} records -> {summary.folder}")
    for name, count in summary.counts.items():
        if not count:
            warn(
                f"the {name} split is empty ({sum(summary.counts.values())} records, "
                f"--split {split_text}); a trainer needs records in train and dev"
            )
    unaligned = summary.details.get("unaligned_spans", {})
    if any(unaligned.values()):
        click.echo(f"spans not aligned to tokens (listed in manifest.json): {unaligned}")


def _given_settings(format_name: str, values: dict[str, Any]) -> dict[str, Any]:
    """The format options the user gave that `format_name` takes (the rest keep the
    format's own defaults); options of other formats are noted and ignored."""
    takes = {spec.name for spec in export_format(format_name).options()}
    for name in sorted(set(values) - takes):
        note_ignored(name, f"--format {format_name}")
    return {name: value for name, value in values.items() if name in takes and given(name)}
