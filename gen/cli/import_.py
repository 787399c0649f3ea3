"""`gen import`: bring outside texts into a run, as documents to label or as gold."""

from __future__ import annotations

from pathlib import Path

import click

from gen.cli.options import language_option, prompts_option, run_option
from gen.core.errors import warn
from gen.core.record_files import skipped_line
from gen.importing import READERS, RecordDefaults
from gen.importing.run import TARGETS, import_files


@click.command("import")
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@run_option
@click.option(
    "--as",
    "target",
    type=click.Choice(TARGETS),
    required=True,
    help="documents: RUN/documents, to label with gen label; gold: RUN/gold (source = gold).",
)
@click.option(
    "--format",
    "format_name",
    type=click.Choice(list(READERS)),
    default=None,
    show_default="from each file's content or suffix",
    help="Input format.",
)
@click.option(
    "--category",
    default="other",
    show_default=True,
    help="Category of records that do not say theirs (gen label asks about this category).",
)
@click.option(
    "--doc-type",
    default="imported",
    show_default=True,
    help="Document type of records that do not say theirs.",
)
@language_option
@prompts_option
@click.option(
    "--text-field",
    default=None,
    show_default="the one string field of the task data",
    help="Label Studio: the task data field that holds the text.",
)
@click.option(
    "--annotator",
    default=None,
    show_default="the latest annotation of each item",
    help="Where several people annotated an item, take this person's (Label Studio user id "
    "or e-mail, Prodigy session or annotator id); items they did not annotate are left out.",
)
@click.option(
    "--label-map",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    show_default="labels as they are",
    help="YAML file `labels: {THEIR_LABEL: gen_label}` (null leaves a label out), applied "
    "to every format.",
)
@click.option(
    "--drop-unmapped",
    is_flag=True,
    help="--as gold: leave out (and count) the spans of labels that gen does not know and "
    "the label map does not map, instead of refusing the import.",
)
@click.option(
    "--allow-unknown-labels",
    is_flag=True,
    help="--as gold: import as they are the spans of labels that gen does not know (no "
    "category of the packs nor PII label) and the label map does not map, instead of "
    "refusing the import; the summary counts them.",
)
@click.option(
    "--overwrite",
    is_flag=True,
    help="Replace stored records whose id comes again with another text or other fields "
    "(without it, such an import is refused).",
)
def import_command(
    files: tuple[Path, ...],
    run_dir: Path,
    target: str,
    format_name: str | None,
    category: str,
    doc_type: str,
    language: str,
    prompts_dir: Path | None,
    text_field: str | None,
    annotator: str | None,
    label_map: Path | None,
    drop_unmapped: bool,
    allow_unknown_labels: bool,
    overwrite: bool,
) -> None:
    """Bring outside texts into RUN/documents (to label) or RUN/gold (checked spans).

    FILE... are plain text, JSONL or Parquet records, CoNLL (IO/BIO) or spaCy DocBin files,
    or annotation tools' exports: Label Studio JSON, doccano or Prodigy JSONL, BRAT .ann
    with its .txt (docs/import.md); folders are read recursively (files no reader takes are
    skipped and listed); every span, label, category and language is validated before
    anything is written."""
    defaults = RecordDefaults(
        category=category,
        doc_type=doc_type,
        language=language,
        text_field=text_field,
        annotator=annotator,
    )
    report = import_files(
        run_dir,
        files,
        target,
        defaults,
        format_name,
        prompts_dir=prompts_dir,
        overwrite=overwrite,
        label_map=label_map,
        drop_unmapped=drop_unmapped,
        allow_unknown_labels=allow_unknown_labels,
    )
    spans = ", ".join(f"{label} {n}" for label, n in sorted(report.spans.items())) or "none"
    replaced = f", {report.replaced} replaced" if report.replaced else ""
    click.echo(
        f"{report.added} records added{replaced} to {report.table} "
        f"({report.already_present} already there); spans: {spans}"
    )
    if report.notes:
        click.echo("notes: " + ", ".join(f"{note} {n}" for note, n in report.notes.items()))
    if report.unknown_labels:
        unknown = ", ".join(f"{label} {n}" for label, n in sorted(report.unknown_labels.items()))
        click.echo(f"labels gen does not know, kept (--allow-unknown-labels): {unknown}")
    if report.skipped:
        click.echo(skipped_line(report.skipped, "no reader takes"))
    if report.labeled_before:
        warn(
            f"{len(report.labeled_before)} replaced documents are labeled in their old version "
            f"in {run_dir / 'labeled'} (e.g. {report.labeled_before[0]}): relabel with "
            "gen label --overwrite"
        )
