"""`gen import`: bring outside texts into a run, as documents to label or as gold, and gen's
own kept records as they are."""

from __future__ import annotations

from pathlib import Path

import click
from click.core import ParameterSource

from gen.cli.options import language_option, prompts_option, run_option
from gen.core.errors import UsageError, warn
from gen.core.record_files import skipped_line
from gen.importing import READERS, RecordDefaults
from gen.importing.gold import OVERLAPS, RESOLVE_HINT
from gen.importing.inputs import expand_lists
from gen.importing.records import RECORDS, RecordOptions
from gen.importing.run import TARGETS, import_files

#: The options that say how to read outside files: gen's own records are read as they are.
NOT_FOR_RECORDS = (
    "format_name",
    "category",
    "doc_type",
    "language",
    "text_field",
    "annotator",
    "label_map",
    "drop_unmapped",
    "allow_unknown_labels",
    "overlaps",
)


@click.command("import")
@click.argument("files", nargs=-1, required=True)
@run_option
@click.option(
    "--as",
    "target",
    type=click.Choice(TARGETS),
    required=True,
    help="documents: RUN/documents, to label with gen label; gold: RUN/gold (source = gold); "
    "records: gen's own records (a kept run) into RUN/labeled as they are, spans with their "
    "sources and meta kept, for gen build.",
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
    "--overlaps",
    type=click.Choice(OVERLAPS),
    default="refuse",
    show_default=True,
    help="--as gold, a record whose spans overlap: refuse it (kept in RUN/rejects/import, the "
    "others are imported), or keep the longest span of each overlap, or the one that starts "
    "first; identical spans are merged either way.",
)
@click.option(
    "--overwrite",
    is_flag=True,
    help="Replace stored records whose id comes again with another text or other fields "
    "(without it, such an import is refused).",
)
@click.option(
    "--sources",
    default=None,
    show_default="every span source",
    help="--as records: keep only the spans of these sources, comma-separated (planned,faker); "
    "the others are counted.",
)
@click.option(
    "--refind",
    is_flag=True,
    help="--as records: find the planned facts of inline-style documents again with today's "
    "finder (a layout's field values keep their stored spans).",
)
def import_command(
    files: tuple[str, ...],
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
    overlaps: str,
    overwrite: bool,
    sources: str | None,
    refind: bool,
) -> None:
    """Bring outside texts into RUN/documents (to label) or RUN/gold (checked spans), or
    gen's own kept records into RUN/labeled (--as records).

    FILE... are plain text, JSONL or Parquet records, CoNLL (IO/BIO) or spaCy DocBin files,
    or annotation tools' exports: Label Studio JSON, doccano or Prodigy JSONL, BRAT .ann
    with its .txt (docs/import.md); folders are read recursively (files no reader takes are
    skipped and listed); @LIST stands for the paths of a list file, one a line, relative to
    its folder. Every span, label, category and language is validated before anything is
    written."""
    if target == RECORDS:
        context = click.get_current_context()
        for name in NOT_FOR_RECORDS:
            if context.get_parameter_source(name) == ParameterSource.COMMANDLINE:
                flag = "--" + name.removesuffix("_name").replace("_", "-")
                raise UsageError(
                    f"{flag} does not apply to --as records: gen's own records are imported "
                    "as they are"
                )
    records_options = None
    if target == RECORDS or sources is not None or refind:
        records_options = RecordOptions.parse(sources, refind)
    defaults = RecordDefaults(
        category=category,
        doc_type=doc_type,
        language=language,
        text_field=text_field,
        annotator=annotator,
    )
    report = import_files(
        run_dir,
        expand_lists(files),
        target,
        defaults,
        format_name,
        prompts_dir=prompts_dir,
        overwrite=overwrite,
        label_map=label_map,
        drop_unmapped=drop_unmapped,
        allow_unknown_labels=allow_unknown_labels,
        overlaps=overlaps,
        records_options=records_options,
    )
    spans = ", ".join(f"{label} {n}" for label, n in sorted(report.spans.items())) or "none"
    replaced = f", {report.replaced} replaced" if report.replaced else ""
    click.echo(
        f"{report.added} records added{replaced} to {report.table} "
        f"({report.already_present} already there); spans: {spans}"
    )
    if report.notes:
        click.echo("notes: " + ", ".join(f"{note} {n}" for note, n in report.notes.items()))
    if report.refused:
        click.echo(
            f"refused records are kept in {report.rejects} with their reason; the first: "
            f"{report.refused[0].meta['detail']}; {RESOLVE_HINT}"
        )
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
