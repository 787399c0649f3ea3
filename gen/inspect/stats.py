"""`gen stats`: the tables a user checks before training: label shares, document
counts, splits, rejects.

`compute_stats` only reads the run (the inspect page and the dataset card call it
too); `run` also writes Markdown, CSV and a PNG chart to `RUN/stats/`. The tables
themselves are pure functions of the records (`gen.inspect.tables`).
"""

from __future__ import annotations

import io
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from gen.core.errors import UsageError
from gen.core.files import read_json_object, write_atomic
from gen.core.packs import negative_labels
from gen.core.records import Record
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from gen.inspect.tables import document_table, label_table, markdown_table, split_table


@dataclass(frozen=True)
class StatsOptions:
    #: Export whose split manifest gives the splits table (default: the latest export).
    export_format: str | None = None
    #: Labels meaning "not sensitive" (categories.yaml); text outside every span counts
    #: as the first.
    negative_labels: tuple[str, ...] = field(default_factory=negative_labels)


@dataclass
class RunStats:
    """Statistics of one run folder; every table is a DataFrame ready for CSV or HTML."""

    run: Path
    #: Which records the tables describe: "dataset" after `gen build`, else the stage inputs.
    basis: str
    #: label, spans, chars, char_share, words, word_share (thesis Tables 3.2/3.3).
    labels: pd.DataFrame
    #: category, documents, avg_chars (thesis Tables 3.4/3.5, per category).
    categories: pd.DataFrame
    #: category, doc_type, documents, avg_chars.
    doc_types: pd.DataFrame
    #: split, category, doc_type, documents, avg_chars; empty before `gen export`.
    splits: pd.DataFrame
    #: Records refused per stage (and per reason where the stage gave one).
    rejected: dict[str, int] = field(default_factory=dict)
    #: Records carrying each flag (e.g. alignment_low).
    flagged: dict[str, int] = field(default_factory=dict)
    #: Models that wrote the documents.
    models: list[str] = field(default_factory=list)
    #: Export format whose split manifest the `splits` table comes from.
    export_format: str | None = None
    #: Files `run` wrote (Markdown, CSV, PNG); empty from `compute_stats`.
    written: list[Path] = field(default_factory=list)

    def tables(self) -> dict[str, pd.DataFrame]:
        counts = [("rejected", k, v) for k, v in self.rejected.items()]
        counts += [("flagged", k, v) for k, v in self.flagged.items()]
        return {
            "labels": self.labels,
            "categories": self.categories,
            "doc_types": self.doc_types,
            "splits": self.splits,
            "rejects": pd.DataFrame(counts, columns=["kind", "name", "records"]),
        }


def compute_stats(run: Path | RunPaths, options: StatsOptions | None = None) -> RunStats:
    """Statistics of `run`: the built dataset if any, else labeled documents, negatives and
    queries."""
    paths = run if isinstance(run, RunPaths) else RunPaths(Path(run))
    options = options or StatsOptions()
    basis, records = _records(paths)
    manifest_path = _export_manifest(paths, options.export_format)
    split_ids: dict[str, list[str]] = {}
    if manifest_path is not None:
        split_ids = read_json_object(manifest_path).get("splits", {})
    return RunStats(
        run=paths.root,
        basis=basis,
        labels=label_table(records, options.negative_labels[0]),
        categories=document_table(records, ["category"]),
        doc_types=document_table(records, ["category", "doc_type"]),
        splits=split_table(records, split_ids),
        rejected=_rejected_counts(paths),
        flagged=dict(sorted(Counter(f for r in _labeled(paths) for f in r.flags).items())),
        models=sorted({r.model for r in records if r.model}),
        export_format=None if manifest_path is None else manifest_path.parent.name,
    )


def _records(paths: RunPaths) -> tuple[str, list[Record]]:
    if RecordTable(paths.dataset).exists():
        return "dataset", RecordTable(paths.dataset).read()
    stages = [paths.labeled, paths.wikipedia, paths.queries]
    records = [r for folder in stages if folder.is_dir() for r in RecordTable(folder).read()]
    if not records:
        raise UsageError(
            f"no records in {paths.root}: expected {paths.dataset} (run `gen build`) or "
            f"labeled documents in {paths.labeled}"
        )
    return "stages", records


def _labeled(paths: RunPaths) -> list[Record]:
    return RecordTable(paths.labeled).read() if paths.labeled.is_dir() else []


def _export_manifest(paths: RunPaths, export_format: str | None) -> Path | None:
    if export_format is not None:
        path = paths.export / export_format / "manifest.json"
        return path if path.exists() else None
    manifests = sorted(paths.export.glob("*/manifest.json"), key=lambda p: p.stat().st_mtime)
    return manifests[-1] if manifests else None


def _rejected_counts(paths: RunPaths) -> dict[str, int]:
    counts: Counter[str] = Counter()
    for folder in paths.reject_folders():
        for record in RecordTable(folder).read():
            reason = record.meta.get("reason")
            counts[f"{folder.name}: {reason}" if reason else folder.name] += 1
    return dict(sorted(counts.items()))


def stats_markdown(stats: RunStats) -> str:
    """All tables as one Markdown document (also the statistics part of the dataset card)."""
    titles = {
        "labels": "Share of characters and words per label",
        "categories": "Documents per category",
        "doc_types": "Documents per category and document type",
        "splits": f"Documents per split ({stats.export_format or 'no export yet'})",
        "rejects": "Rejected and flagged records",
    }
    parts = []
    for name, frame in stats.tables().items():
        body = markdown_table(frame) if len(frame) else "_none_"
        parts.append(f"### {titles[name]}\n\n{body}\n")
    return "\n".join(parts)


def chart_png(stats: RunStats) -> bytes:
    """Bar charts of the label shares and of documents per category, as PNG bytes."""
    from matplotlib.figure import Figure  # Figure renders with Agg: no display needed

    figure = Figure(figsize=(10, 4), layout="constrained")
    share_axes, docs_axes = figure.subplots(1, 2)
    share_axes.bar(stats.labels["label"], stats.labels["char_share"] * 100, color="tab:red")
    share_axes.set_title("Characters per label (%)")
    docs_axes.bar(stats.categories["category"], stats.categories["documents"], color="tab:blue")
    docs_axes.set_title("Documents per category")
    for axes in (share_axes, docs_axes):
        axes.tick_params(axis="x", labelrotation=45)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100)
    return buffer.getvalue()


def run(paths: RunPaths, options: StatsOptions) -> RunStats:
    """Compute the statistics of the run and write them to `RUN/stats/` (Markdown, CSV, PNG)."""
    stats = compute_stats(paths, options)
    tables = []
    for name, frame in stats.tables().items():
        tables.append(paths.stats / f"{name}.csv")
        write_atomic(tables[-1], frame.to_csv(index=False).encode())
    markdown = paths.stats / "stats.md"
    write_atomic(markdown, f"# Statistics of {stats.run}\n\n{stats_markdown(stats)}".encode())
    chart = paths.stats / "chart.png"
    write_atomic(chart, chart_png(stats))
    stats.written = [markdown, *tables, chart]
    return stats
