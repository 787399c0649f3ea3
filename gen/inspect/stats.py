"""The tables a user checks before training: label shares, document counts, splits, rejects.

`compute_stats` is pure reading (the inspect page calls it too); `write_stats`
writes Markdown, CSV and a PNG chart to `RUN/stats/`.
"""

from __future__ import annotations

import io
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from gen.core.errors import UsageError
from gen.core.records import Record, Span
from gen.core.runs import RunPaths
from gen.core.store import RecordTable, read_json_object, write_atomic
from gen.text.words import word_owners, word_spans

#: Label name for characters and words outside every span.
NON_SENSITIVE = "other"


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


def compute_stats(run: Path, export_format: str | None = None) -> RunStats:
    """Statistics of `run`: the built dataset if any, else labeled documents + negatives + queries.

    Splits come from the export manifest of `export_format` (default: the latest export).
    """
    paths = RunPaths(Path(run))
    basis, records = _records(paths)
    manifest_path = _export_manifest(paths, export_format)
    split_ids: dict[str, list[str]] = {}
    if manifest_path is not None:
        split_ids = read_json_object(manifest_path).get("splits", {})
    return RunStats(
        run=paths.root,
        basis=basis,
        labels=label_table(records),
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


def _union_length(ranges: Iterable[tuple[int, int]]) -> int:
    total, reach = 0, 0
    for start, end in sorted(ranges):
        start = max(start, reach)
        if end > start:
            total += end - start
            reach = end
    return total


def label_table(records: Sequence[Record]) -> pd.DataFrame:
    """Share of characters and words per label; uncovered text counts as `other`."""
    chars: Counter[str] = Counter()
    words: Counter[str] = Counter()
    span_counts: Counter[str] = Counter()
    total_chars = total_words = 0
    for record in records:
        by_label: dict[str, list[Span]] = {}
        for span in record.spans:
            by_label.setdefault(span.label, []).append(span)
            span_counts[span.label] += 1
        for label, spans in by_label.items():
            chars[label] += _union_length((s.start, s.end) for s in spans)
        covered = _union_length((s.start, s.end) for s in record.spans)
        chars[NON_SENSITIVE] += len(record.text) - covered
        total_chars += len(record.text)
        owners = word_owners(word_spans(record.text), record.spans)
        words.update(NON_SENSITIVE if o is None else o.label for o in owners)
        total_words += len(owners)
    rows = [
        {
            "label": label,
            "spans": span_counts[label],
            "chars": chars[label],
            "char_share": round(chars[label] / total_chars, 4) if total_chars else 0.0,
            "words": words[label],
            "word_share": round(words[label] / total_words, 4) if total_words else 0.0,
        }
        for label in sorted(chars, key=lambda name: (name == NON_SENSITIVE, name))
    ]
    return pd.DataFrame(
        rows, columns=["label", "spans", "chars", "char_share", "words", "word_share"]
    )


def document_table(records: Sequence[Record], keys: list[str]) -> pd.DataFrame:
    """Documents and average length (characters) per combination of `keys`."""
    frame = pd.DataFrame(
        [{**{k: getattr(r, k) for k in keys}, "chars": len(r.text)} for r in records],
        columns=[*keys, "chars"],
    )
    table = frame.groupby(keys, sort=True).agg(
        documents=("chars", "size"), avg_chars=("chars", "mean")
    )
    return table.round({"avg_chars": 1}).reset_index()


def split_table(records: Sequence[Record], split_ids: dict[str, list[str]]) -> pd.DataFrame:
    """Documents and average length per split, category and document type."""
    by_id = {r.id: r for r in records}
    members = {split: [by_id[i] for i in ids if i in by_id] for split, ids in split_ids.items()}
    tables = [
        document_table(found, ["category", "doc_type"]).assign(split=split)
        for split, found in members.items()
        if found
    ]
    columns = ["split", "category", "doc_type", "documents", "avg_chars"]
    return pd.concat(tables)[columns] if tables else pd.DataFrame(columns=columns)


def markdown_table(frame: pd.DataFrame) -> str:
    """A GitHub-flavoured Markdown table (pandas needs `tabulate` for this; one table is enough)."""
    header = "| " + " | ".join(map(str, frame.columns)) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    body = ["| " + " | ".join(str(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join([header, rule, *body])


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


def write_stats(run: Path) -> tuple[RunStats, list[Path]]:
    """Compute the statistics of `run` and write them to `RUN/stats/` (Markdown, CSV, PNG)."""
    stats = compute_stats(run)
    folder = RunPaths(Path(run)).stats
    written = []
    for name, frame in stats.tables().items():
        path = folder / f"{name}.csv"
        write_atomic(path, frame.to_csv(index=False).encode())
        written.append(path)
    markdown = folder / "stats.md"
    write_atomic(markdown, f"# Statistics of {stats.run}\n\n{stats_markdown(stats)}".encode())
    chart = folder / "chart.png"
    write_atomic(chart, chart_png(stats))
    return stats, [markdown, *written, chart]
