"""`gen review report`: the label quality of a run, measured on its reviewed documents.

The gold spans pulled from Label Studio are scored against the spans the
labelers wrote for the same documents (the `gen eval` metrics, per label and
per span source), and the reviewers' changes are counted per source: a
predicted span is kept (same edges and label in gold), edited (a gold span
overlaps it but differs), or deleted (no gold span overlaps it); a gold span
that no prediction of any source overlaps was added.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table

from gen.core.errors import UsageError
from gen.core.records import Record, Span
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from gen.evaluate.report import render_text, terminal_width
from gen.evaluate.run import Evaluation, evaluate
from gen.review.push import read_state, read_table

#: Row of the change table that counts every source's predictions together.
ALL_SOURCES = "all"


@dataclass
class Changes:
    kept: int = 0
    edited: int = 0
    deleted: int = 0
    #: Gold spans no prediction overlaps; counted over all sources only.
    added: int | None = None

    @property
    def predicted(self) -> int:
        return self.kept + self.edited + self.deleted


@dataclass
class ReviewReport:
    documents: int
    evaluation: Evaluation
    changes: dict[str, Changes] = field(default_factory=dict)
    flagged: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["evaluation"] = self.evaluation.to_json()
        return data


def _overlaps(span: Span, others: Iterable[Span]) -> bool:
    return any(span.overlap(other.start, other.end) for other in others)


def count_changes(gold: Sequence[Span], predicted: Sequence[Span]) -> Changes:
    exact = {(s.start, s.end, s.label) for s in gold}
    changes = Changes(added=0)
    for span in predicted:
        if (span.start, span.end, span.label) in exact:
            changes.kept += 1
        elif _overlaps(span, gold):
            changes.edited += 1
        else:
            changes.deleted += 1
    changes.added = sum(not _overlaps(span, predicted) for span in gold)
    return changes


def changes_by_source(gold: Sequence[Record], predicted: dict[str, Record]) -> dict[str, Changes]:
    """Changes per span source, and over all sources together."""
    sources = sorted({s.source for r in gold for s in predicted[r.id].spans})
    totals = {name: Changes() for name in sources}
    totals[ALL_SOURCES] = Changes(added=0)
    for record in gold:
        spans = predicted[record.id].spans
        for name, total in totals.items():
            chosen = spans if name == ALL_SOURCES else [s for s in spans if s.source == name]
            one = count_changes(record.spans, chosen)
            total.kept += one.kept
            total.edited += one.edited
            total.deleted += one.deleted
            if total.added is not None:
                total.added += one.added or 0
    return {ALL_SOURCES: totals.pop(ALL_SOURCES), **totals}


def review_report(run: Path, table: str | None = None) -> ReviewReport:
    paths = RunPaths(Path(run))
    gold = RecordTable(paths.gold).read()
    if not gold:
        raise UsageError(f"no gold records in {paths.gold}; run `gen review pull` first")
    state = read_state(run) or {}
    records = {r.id: r for r in read_table(run, table or state.get("table") or "labeled")}
    missing = [r.id for r in gold if r.id not in records]
    if missing:
        raise UsageError(
            f"{len(missing)} gold records are not in the run's table (e.g. {missing[0]}); "
            "pass the --table that was pushed"
        )
    predicted = [records[r.id] for r in gold]
    flagged: dict[str, int] = {}
    for record in gold:
        for flag in record.flags:
            flagged[flag] = flagged.get(flag, 0) + 1
    return ReviewReport(
        documents=len(gold),
        evaluation=evaluate(gold, predicted, by="source"),
        changes=changes_by_source(gold, records),
        flagged=flagged,
    )


def render_report(report: ReviewReport, *, width: int | None = None) -> str:
    """The report as plain text, `width` columns wide (default: the terminal's)."""
    width = width or terminal_width()
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, color_system=None, force_terminal=False)
    console.print(f"Reviewed documents: {report.documents}")
    for flag, count in sorted(report.flagged.items()):
        console.print(f"  {count} flagged {flag}")
    out = Table(
        title="What the reviewers changed (predicted spans of each source)",
        box=box.SIMPLE_HEAD,
        title_justify="left",
    )
    for column in ("source", "predicted", "kept", "edited", "deleted", "added", "kept %"):
        out.add_column(column, justify="left" if column == "source" else "right")
    for source, c in report.changes.items():
        share = f"{100 * c.kept / c.predicted:.1f}" if c.predicted else ""
        added = "" if c.added is None else str(c.added)
        out.add_row(source, *map(str, (c.predicted, c.kept, c.edited, c.deleted)), added, share)
    console.print(out)
    console.print("Labelers scored against the gold spans (gen eval, by span source)")
    return buffer.getvalue() + render_text(report.evaluation, width=width)
