"""`gen train`: train a detector on the run's export and score it."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import click

from gen.cli import when_interrupted
from gen.cli.options import note_ignored, run_option, seed_option
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from gen.evaluate.report import render_text
from gen.predict.loader import TRAINERS, trainer_class
from gen.predict.run import unread_lines
from gen.text.units import UNITS
from gen.train import DEVICES, IDENTIFIER_MODELS, SPACY_COMPONENTS, TrainSettings
from gen.train.curve import parse_shares, summarize
from gen.train.run import WHOLE_SCORES, train_detector
from gen.train.scoring import GoldSet


@click.command("train")
@run_option
@seed_option
@click.option(
    "--trainer",
    type=click.Choice(list(TRAINERS)),
    default="spacy",
    show_default=True,
    help="spacy: CPU, nothing downloaded; encoder: a head over --encoder's vectors (CPU, "
    "learns special categories from tens of documents); transformers: fine-tunes --base-model "
    "(CPU or GPU).",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    show_default="RUN/models/TRAINER",
    help="Model folder.",
)
@click.option(
    "--gold",
    type=click.Path(path_type=Path),
    default=None,
    show_default="RUN/gold when it holds records",
    help="Also score on this gold set (JSONL/Parquet records with id, text, spans).",
)
@click.option(
    "--learning-curve",
    "curve",
    default=None,
    show_default="none",
    help="Train on these shares of the train split too, e.g. 0.1,0.25,0.5,1.0; "
    "writes curve.md and curve.png.",
)
@click.option(
    "--component",
    type=click.Choice(SPACY_COMPONENTS),
    default="ner",
    show_default=True,
    help="spacy: ner (entities, no overlap) or spancat (scored spans).",
)
@click.option(
    "--base-model",
    default=None,
    show_default="none: spacy trains from scratch",
    help="spacy: an installed pipeline or folder whose tok2vec is reused; "
    "transformers (required): a local model folder.",
)
@click.option(
    "--epochs",
    type=click.IntRange(min=1),
    default=20,
    show_default=True,
    help="Passes over the train split; the best epoch on dev is kept.",
)
@click.option(
    "--patience",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Stop after this many dev evaluations (epochs) without improvement (0: never).",
)
@click.option(
    "--batch-size",
    type=click.IntRange(min=1),
    default=None,
    show_default="spacy 200, transformers 8",
    help="spacy: words per batch; transformers: windows per batch.",
)
@click.option(
    "--learning-rate",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    show_default="the trainer's own",
    help="Step size of the optimizer.",
)
@click.option(
    "--max-span-words",
    type=click.IntRange(min=1),
    default=12,
    show_default=True,
    help="spancat: longest candidate span in words.",
)
@click.option(
    "--length",
    type=click.IntRange(min=1),
    default=256,
    show_default=True,
    help="transformers: window length in tokens.",
)
@click.option(
    "--stride",
    type=click.IntRange(min=0),
    default=64,
    show_default=True,
    help="transformers: overlap between windows in tokens.",
)
@click.option(
    "--class-weights",
    default="sqrt",
    show_default=True,
    help="transformers: sqrt or inverse (of the tag frequency), none, or a JSON file "
    "{tag: weight}.",
)
@click.option(
    "--device",
    type=click.Choice(DEVICES),
    default="auto",
    show_default=True,
    help="transformers: where to train; auto takes CUDA when torch sees it.",
)
@click.option(
    "--threads",
    type=click.IntRange(min=1),
    default=None,
    show_default="the cores this process may use",
    help="transformers: torch threads.",
)
@click.option(
    "--train-embeddings",
    is_flag=True,
    default=False,
    help="transformers: fine-tune the word embeddings too (frozen by default: most of the "
    "weights, and what a few hundred documents teach least).",
)
@click.option(
    "--snap-to-units/--no-snap-to-units",
    default=True,
    show_default=True,
    help="transformers: the special categories that score higher on dev when their "
    "predictions snap to --unit units do so.",
)
@click.option(
    "--encoder",
    type=click.Path(dir_okay=False, path_type=str),
    default=None,
    show_default="the embedded SmolLM2-135M",
    help="encoder: the GGUF model whose token vectors the detector reads (the writer model "
    "is a good choice); its sha256 is stored with the detector.",
)
@click.option(
    "--unit",
    type=click.Choice(UNITS),
    default="clause",
    show_default=True,
    help="encoder: what one predicted span covers; transformers: what predictions snap to.",
)
@click.option(
    "--unit-cover",
    type=click.FloatRange(min=0, max=1, min_open=True),
    default=0.5,
    show_default=True,
    help="encoder: a unit learns a label whose spans cover this share of it (or that holds "
    "most of one of its spans); transformers: a unit takes a snapped label this share of its "
    "words have.",
)
@click.option(
    "--fill-unplanned",
    type=click.FloatRange(min=0, max=1),
    default=0.7,
    show_default=True,
    help="encoder: units of planned documents outside their planned spans that a cross-fitted "
    "head scores at least this for a category learn it (the writer tells facts nobody "
    "planned); 0: off.",
)
@click.option(
    "--identifiers",
    type=click.Choice(IDENTIFIER_MODELS),
    default="spacy",
    show_default=True,
    help="encoder: spacy trains a spaCy model for the identifier labels (names, IBANs...) into "
    "the same folder; none: special categories only.",
)
def train(
    run_dir: Path, out: Path | None, gold: Path | None, curve: str | None, **options: object
) -> None:
    """Train a detector on RUN/export (re-exported when missing or stale), keep the best
    checkpoint on dev, score test (and --gold) and write a model card next to the model."""
    when_interrupted(
        "the model folder was left as it was (a training replaces it only when it ends); "
        "re-run the same command to train again"
    )
    shares = parse_shares(curve) if curve else None
    if gold is None and RecordTable(RunPaths(run_dir).gold).exists():
        gold = RunPaths(run_dir).gold
    settings = TrainSettings(**options)  # type: ignore[arg-type]
    for name, context in trainer_class(settings.trainer)().unused(settings).items():
        note_ignored(name, context)
    report = train_detector(run_dir, settings, out=out, gold=gold, curve_shares=shares)
    if report.removed_leftovers:
        click.echo(
            f"removed {len(report.removed_leftovers)} staging folder(s) left by interrupted "
            "trainings"
        )
    for line in _gold_lines(report.gold):
        click.echo(line)
    if report.reexported:
        click.echo(f"export written first ({report.reexported})")
    unread = report.info.get("unread_documents", {})
    for line in unread_lines(unread):
        click.echo(line, err=True)
    if unread:
        click.echo(f"{len(unread)} documents the encoder could not read were left out of training")
    cpu = report.info.get("train_cpu_seconds")
    click.echo(f"trained in {report.train_seconds:.1f} s ({cpu} s CPU) -> {report.folder}")
    for scored in report.scored:
        metrics = ", ".join(f"{k} {v:.3f}" for k, v in summarize(scored.evaluation).items())
        left_out = f" ({len(scored.unread)} unread left out)" * bool(scored.unread)
        click.echo(
            f"{scored.name}: {scored.documents} documents{left_out}, "
            f"{scored.documents_per_second:.1f} documents/s; {metrics}"
        )
        for note, labels in (
            ("predictions left out (labels the set never uses)", scored.ignored_labels),
            ("labels the model never learned", scored.unknown_labels),
        ):
            if labels:
                click.echo(f"  {note}: {', '.join(labels)}")
        for line in unread_lines(scored.unread):
            click.echo(f"  {line}")
    shown = report.scored[-1]
    click.echo(f"\nScores on {shown.name}:")
    click.echo(render_text(shown.evaluation, whole=WHOLE_SCORES), nl=False)
    if report.curve:
        click.echo(f"learning curve -> {report.folder / 'curve.md'}, curve.png")
        click.echo((report.folder / "curve.md").read_text(encoding="utf-8"), nl=False)
    folder = report.folder
    tables = ", ".join(str(folder / f"{scored.name}.txt") for scored in report.scored)
    click.echo(f"\nmodel: {folder}")
    click.echo(f"card {folder / 'README.md'}, scores {folder / 'scores.json'} (tables: {tables})")
    click.echo(f"next: gen predict --model {folder} INPUT --out predictions.jsonl")


def _gold_lines(gold: GoldSet | None) -> list[str]:
    """What the gold score leaves out, and which of its documents the test split scores
    against other spans: the two tables differ on those, and the output says why."""
    if gold is None:
        return []
    lines = []
    if gold.left_out:
        lines.append(
            f"gold: {len(gold.left_out)} records left out of the score (e.g. {gold.left_out[0]}): "
            "they are in the train or dev split (gen build --sources gold took them from RUN/gold)"
        )
    if gold.differs:
        what = Counter(gold.differs.values())
        changed = ", ".join(f"the {kind} of {what[kind]}" for kind in sorted(what))
        lines.append(
            f"gold: gen build changed {changed} of the {gold.in_test} gold documents in the "
            f"test split too (e.g. {next(iter(gold.differs))}; its --sources, --scheme, "
            "overlaps or --clean): the test table judges them against the dataset's spans, "
            "the gold table against the gold file's"
        )
    return lines
