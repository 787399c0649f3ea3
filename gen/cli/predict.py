"""`gen predict`: apply a trained detector to records or text files."""

from __future__ import annotations

from pathlib import Path

import click

from gen.core.record_files import skipped_line
from gen.predict.loader import detector_info, load_detector
from gen.predict.run import SPLITS, check_out, predict_to_file, read_inputs, unread_lines


@click.command("predict")
@click.argument("source", metavar="INPUT", type=click.Path(path_type=Path))
@click.option(
    "--model",
    type=click.Path(file_okay=False, path_type=Path),
    required=True,
    help="A model folder written by gen train (--out).",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("predictions.jsonl"),
    show_default=True,
    help="Output records with spans: .jsonl or .parquet.",
)
@click.option(
    "--split",
    type=click.Choice(SPLITS),
    default="test",
    show_default=True,
    help="When INPUT is a run folder: which split of its newest export (all: the dataset).",
)
@click.option(
    "--window",
    type=click.IntRange(min=2),
    default=None,
    help="Window length (spacy: words, transformers: tokens); default: the model's.",
)
@click.option(
    "--overlap",
    type=click.IntRange(min=0),
    default=None,
    help="Overlap between windows, in the same unit; default: the model's.",
)
def predict(
    source: Path,
    model: Path,
    out: Path,
    split: str,
    window: int | None,
    overlap: int | None,
) -> None:
    """Find sensitive spans in INPUT (JSONL/Parquet records, a record folder, a run folder
    with --split, or .txt files) with a detector from gen train; long
    documents are windowed with overlap and merged back to exact character offsets."""
    detector_info(model)  # a wrong --model folder is named before INPUT is read
    check_out(out)
    skipped: list[Path] = []
    records = read_inputs(source, split, skipped)  # bad input is refused before the model loads
    if skipped:
        click.echo(skipped_line(skipped, "that are not .txt"))
    detector = load_detector(model, window=window, overlap=overlap)
    report = predict_to_file(detector, records, out)
    for line in unread_lines(report.unread):
        click.echo(line, err=True)
    left_out = f"; {len(report.unread)} the detector could not read left out" * bool(report.unread)
    click.echo(
        f"{report.documents} documents, {report.spans} spans in {report.seconds:.1f} s "
        f"({report.documents_per_second:.1f} documents/s) -> {report.out}{left_out}"
    )
