"""One self-contained HTML page to review a run's documents and their spans.

The records go into the page as JSON and the browser renders one page of
documents at a time, so the file stays usable with thousands of documents and
needs no server or network. Every text reaches the page as data and is put in
the document with `textContent`, never parsed as HTML: documents are model
output and may contain markup.
"""

from __future__ import annotations

import base64
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup

from gen.core.errors import UsageError
from gen.core.files import check_writable, write_atomic
from gen.core.pack_quality import QUESTIONS
from gen.core.packs import negative_labels
from gen.core.records import Record
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from gen.inspect.stats import StatsOptions, chart_png, compute_stats
from gen.quality.stored import FAILED_KEY, read_scored, with_quality
from gen.quality.stored import META_KEY as QUALITY_KEY
from gen.translate.stored import META_KEY as TRANSLATED_KEY
from labeling.planned import META_KEY as PLAN_KEY

#: Record tables of a run folder that the page can show.
TABLES = ("labeled", "documents", "translated", "wikipedia", "queries", "dataset")

#: Documents rendered per page in the browser.
PAGE_SIZE = 50

#: displaCy-like colours for the taxonomy; other labels take the palette in turn.
LABEL_COLORS = {
    "health": "#7aecec",
    "politic": "#bfeeb7",
    "sexuality": "#feca74",
    "judicial": "#ff9561",
    "philosophy": "#aa9cfc",
    "ethnic": "#c887fb",
}
#: The colour of labels that mean "not sensitive" (`other`): pale, so it reads as no label.
NEGATIVE_COLOR = "#e4e7d2"
PALETTE = (
    "#9cc9cc", "#ffeb80", "#ff8197", "#f0d0ff", "#bfe1d9", "#fcd9a4",
    "#c4e0a0", "#d9c4f0", "#f5b7b1", "#a9cce3", "#f9e79f", "#d5dbdb",
)  # fmt: skip


def default_tables(run: Path) -> list[str]:
    """The labeled documents (or, before labeling, the raw ones) and the negatives
    and queries next to them; the built dataset only when asked, as it repeats them."""
    paths = RunPaths(run)
    first = "labeled" if _has_records(paths.labeled) else "documents"
    return [
        name
        for name in (first, "translated", "wikipedia", "queries")
        if _has_records(paths.root / name)
    ]


def _has_records(folder: Path) -> bool:
    return RecordTable(folder).exists()


@dataclass(frozen=True)
class PageOptions:
    #: HTML file to write (default `RUN/inspect.html`).
    out: Path | None = None
    #: Record tables to show (default: see `default_tables`); rejects are always shown.
    tables: tuple[str, ...] = ()
    #: Labels meaning "not sensitive" (categories.yaml), drawn in a pale neutral colour.
    negative_labels: tuple[str, ...] = field(default_factory=negative_labels)


def label_colors(labels: Iterable[str], negative: Iterable[str] = ()) -> dict[str, str]:
    """A colour per label: the taxonomy's own, pale for `negative` labels, else the palette."""
    colors = {}
    others = 0
    negative = set(negative)
    for label in sorted(set(labels)):
        if label in negative:
            colors[label] = NEGATIVE_COLOR
        elif label in LABEL_COLORS:
            colors[label] = LABEL_COLORS[label]
        else:
            colors[label] = PALETTE[others % len(PALETTE)]
            others += 1
    return colors


def document_entry(record: Record, table: str, *, rejected_reason: str | None = None) -> dict:
    """What the page knows of one record; spans as compact rows to keep the file small."""
    if rejected_reason is not None:
        status, reasons = "rejected", [rejected_reason]
    elif record.flags:
        status, reasons = "flagged", [f"flag: {flag}" for flag in record.flags]
    else:
        status, reasons = "ok", []
    raw = record.meta.get("raw")
    return {
        "id": record.id,
        "text": record.text,
        "table": table,
        "category": record.category,
        "doc_type": record.doc_type,
        "language": record.language,
        "source": record.source,
        "model": record.model or "",
        "status": status,
        "reasons": reasons,
        "raw": raw if isinstance(raw, str) and raw != record.text else "",
        "plan": plan_rows(record),
        "quality": quality_rows(record),
        "translation": translation_source(record),
        "spans": [
            [s.start, s.end, s.label, s.source, s.quality, _finite(s.score)]
            for s in sorted(record.spans, key=lambda s: (s.start, -s.end))
        ],
    }


def translation_source(record: Record) -> dict | None:
    """For a translation (`gen translate`): the source's text, language and spans (those
    carried, and those dropped, with the reason after their source), shown beside it; else
    None."""
    info = record.meta.get(TRANSLATED_KEY)
    if not isinstance(info, dict) or not isinstance(info.get("text"), str):
        return None
    carried = [
        [start, end, span.label, span.source, "carried", None]
        for (start, end), span in zip(info.get("origins") or [], record.spans, strict=False)
    ]
    dropped = [
        [
            d["start"],
            d["end"],
            d["label"],
            f"{d['source']}, dropped: {d['reason']}",
            "dropped",
            None,
        ]
        for d in info.get("dropped") or []
    ]
    return {
        "id": info.get("id"),
        "language": info.get("language"),
        "text": info["text"],
        "spans": sorted(carried + dropped, key=lambda s: (s[0], -s[1])),
    }


def plan_rows(record: Record) -> list[list]:
    """The facts a document was planned to disclose (`gen documents --disclosures planned`):
    [category, text, found (exact/fuzzy/missing), score] each; [] for other records."""
    disclosures = record.meta.get(PLAN_KEY)
    if not isinstance(disclosures, dict):
        return []
    return [
        [fact.get("category"), fact.get("text"), fact.get("found"), _finite(fact.get("score"))]
        for fact in disclosures.get("planned") or []
    ]


def quality_rows(record: Record) -> list[list]:
    """The quality scores of `gen score`, in question order: [name, score, None] each,
    [name, None, reason] for a question whose answer failed; [] for a record never scored."""
    scores = record.meta.get(QUALITY_KEY) or {}
    failed = record.meta.get(FAILED_KEY) or {}
    return [
        [name, _finite(scores.get(name)), failed.get(name)]
        for name in QUESTIONS
        if name in scores or name in failed
    ]


def _finite(score: float | None) -> float | None:
    """NaN is not JSON: a score that is not a number shows as no score."""
    return score if score is not None and math.isfinite(score) else None


def collect_documents(paths: RunPaths, tables: Sequence[str] = ()) -> list[dict]:
    """Entries of the chosen tables, then every stage's rejects with their reason."""
    if not paths.root.is_dir():
        raise UsageError(f"run folder {paths.root} not found; expected the --run folder of gen")
    chosen = list(tables) if tables else default_tables(paths.root)
    unknown = [name for name in chosen if name not in TABLES]
    if unknown:
        raise UsageError(f"unknown table {unknown[0]!r}; expected one of {', '.join(TABLES)}")
    entries = []
    scored = read_scored(paths)
    for name in chosen:
        folder = paths.root / name
        if not _has_records(folder):
            raise UsageError(f"no records in {folder}; run the stage that writes {name} first")
        records = with_quality(RecordTable(folder).read(), scored)
        entries += [document_entry(record, name) for record in records]
    for folder in paths.reject_folders():
        entries += [
            document_entry(
                record,
                f"rejects/{folder.name}",
                rejected_reason=f"rejected by {folder.name}: "
                f"{record.meta.get('reason') or 'no reason given'}",
            )
            for record in RecordTable(folder).read()
        ]
    if not entries:
        raise UsageError(f"no documents in {paths.root}: run `gen documents` first")
    return entries


def run_chart(paths: RunPaths, options: StatsOptions) -> tuple[bytes | None, str]:
    """The `gen stats` charts of the run, or why there are none."""
    try:
        return chart_png(compute_stats(paths, options)), ""
    except UsageError as exc:
        return None, f"No statistics charts: {exc}"


def _script_json(payload: Any) -> Markup:
    """JSON that cannot close its <script> element, whatever the texts contain."""
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    for char, escaped in (("&", "\\u0026"), ("<", "\\u003c"), (">", "\\u003e")):
        text = text.replace(char, escaped)
    return Markup(text)


def render_page(
    documents: list[dict],
    *,
    title: str,
    negative: Iterable[str] = (),
    chart: bytes | None = None,
    chart_note: str = "",
) -> str:
    environment = Environment(
        loader=PackageLoader("gen.inspect", "templates"), autoescape=select_autoescape(["j2"])
    )
    labels = {span[2] for doc in documents for span in doc["spans"]}
    statuses = {status: sum(doc["status"] == status for doc in documents) for status in
                ("ok", "flagged", "rejected")}  # fmt: skip
    summary = (
        f"{len(documents)} documents ({statuses['flagged']} flagged, {statuses['rejected']} "
        f"rejected), {sum(len(doc['spans']) for doc in documents)} spans, {len(labels)} labels. "
        "Hover a highlight for its source and alignment."
    )
    colors = label_colors(labels, negative)
    data = {"documents": documents, "colors": colors, "page_size": PAGE_SIZE}
    return environment.get_template("inspect.html.j2").render(
        title=title,
        summary=summary,
        chart=base64.b64encode(chart).decode("ascii") if chart else "",
        chart_note=chart_note,
        data_json=_script_json(data),
    )


def run(paths: RunPaths, options: PageOptions) -> Path:
    """Write the review page of the run atomically; returns where."""
    target = Path(options.out) if options.out else paths.root / "inspect.html"
    if options.out:
        check_writable(target, "--out")
    documents = collect_documents(paths, options.tables)
    chart, chart_note = run_chart(paths, StatsOptions(negative_labels=options.negative_labels))
    page = render_page(
        documents,
        title=f"gen inspect: {paths.root.resolve().name}",
        negative=options.negative_labels,
        chart=chart,
        chart_note=chart_note,
    )
    write_atomic(target, page.encode("utf-8"))
    return target
