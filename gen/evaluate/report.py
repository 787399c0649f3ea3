"""`gen eval` results as plain-text tables for people; scripts use `--format json`."""

from __future__ import annotations

import io
import shutil
import sys
from typing import Any

from rich import box
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table

from gen.evaluate.confusion import Confusion
from gen.evaluate.counting import SENSITIVE
from gen.evaluate.entities import SCHEMES, EntityScheme
from gen.evaluate.run import ALL, Evaluation
from gen.evaluate.scores import Scores, ScoreTable


def _num(value: float) -> str:
    return f"{value:.4f}"


def _count(value: int | None) -> str:
    return "" if value is None else str(value)


def _column_style(names: bool) -> dict[str, Any]:
    """Cells wrap (names and headers at spaces, else folded), never cut to `…`."""
    return {"justify": "left" if names else "right", "overflow": "fold"}


def _scores_table(title: str, table: ScoreTable, binary: Scores) -> Table:
    out = Table(title=title, box=box.SIMPLE_HEAD, title_justify="left")
    for column in ("label", "support", "TP", "FP", "FN", "precision", "recall", "F1"):
        out.add_column(column, **_column_style(column == "label"))

    def row(name: str, s: Scores, *, end_section: bool = False) -> None:
        out.add_row(
            name,
            str(s.support),
            _count(s.tp),
            _count(s.fp),
            _count(s.fn),
            _num(s.precision),
            _num(s.recall),
            _num(s.f1),
            end_section=end_section,
        )

    labels = list(table.per_label.items())
    for i, (label, scores) in enumerate(labels):
        row(label, scores, end_section=i == len(labels) - 1)
    row("micro avg", table.micro)
    row("macro avg", table.macro)
    row("weighted avg", table.weighted, end_section=True)
    row(f"{SENSITIVE} (binary)", binary)
    return out


def _entity_table(entities: dict[str, EntityScheme]) -> Table:
    out = Table(title="Entities (SemEval-2013 schemes)", box=box.SIMPLE_HEAD, title_justify="left")
    for column in ("scheme", "COR", "INC", "PAR", "MIS", "SPU", "precision", "recall", "F1"):
        out.add_column(column, **_column_style(column == "scheme"))
    for scheme, result in entities.items():
        s = result.overall
        out.add_row(
            scheme,
            *map(str, (s.cor, s.inc, s.par, s.mis, s.spu)),
            *map(_num, (s.precision, s.recall, s.f1)),
        )
    return out


def _entity_label_table(entities: dict[str, EntityScheme]) -> Table:
    out = Table(title="Entity F1 per label", box=box.SIMPLE_HEAD, title_justify="left")
    out.add_column("label", **_column_style(True))
    for scheme in SCHEMES:
        out.add_column(scheme, **_column_style(False))
    labels = sorted({label for scheme in entities.values() for label in scheme.per_label})
    for label in labels:
        out.add_row(
            label,
            *(
                _num(entities[scheme].per_label[label].f1)
                if label in entities[scheme].per_label
                else ""
                for scheme in SCHEMES
            ),
        )
    return out


def _confusion_matrix(confusion: Confusion) -> Table:
    out = Table(box=box.SIMPLE_HEAD)
    out.add_column("gold \\ pred", no_wrap=True)
    for label in confusion.labels:
        out.add_column(label, justify="right", no_wrap=True)
    for label, row in zip(confusion.labels, confusion.matrix, strict=True):
        out.add_row(label, *map(str, row))
    return out


def _confusion_pairs(confusion: Confusion) -> Table:
    """The matrix's non-zero cells, one row each: as many labels as there are, any width."""
    out = Table(box=box.SIMPLE_HEAD)
    out.add_column("gold", overflow="fold")
    out.add_column("predicted", overflow="fold")
    out.add_column("tokens", justify="right", no_wrap=True)
    for gold, row in zip(confusion.labels, confusion.matrix, strict=True):
        cells = sorted(zip(confusion.labels, row, strict=True), key=lambda cell: -cell[1])
        for predicted, count in cells:
            if count:
                out.add_row(gold, predicted, str(count))
    return out


def _print_confusion(console: Console, confusion: Confusion, whole: str) -> None:
    """The matrix when it fits the width, else its non-zero cells as (gold, predicted) rows
    and where the whole matrix is (`whole`)."""
    matrix = _confusion_matrix(confusion)
    unbounded = console.options.update_width(sys.maxsize)
    if Measurement.get(console, unbounded, matrix).maximum <= console.width:
        console.print("Token confusion (rows: gold, columns: predicted)")
        console.print(matrix)
        return
    console.print(
        f"Token confusion, one row per gold and predicted label (the matrix of "
        f"{len(confusion.labels)} labels is wider than {console.width} columns; "
        f"{whole} has it whole)"
    )
    console.print(_confusion_pairs(confusion))


def _summary_table(evaluation: Evaluation) -> Table:
    out = Table(title=f"Summary by {evaluation.by}", box=box.SIMPLE_HEAD, title_justify="left")
    columns = ("group", "docs", "token micro F1", "token weighted F1", "binary F1",
               "doc weighted F1", "strict F1", "type F1")  # fmt: skip
    for column in columns:
        out.add_column(column, **_column_style(column == "group"))
    for name, report in evaluation.groups.items():
        out.add_row(
            name,
            str(report.documents),
            _num(report.token_scores.micro.f1),
            _num(report.token_scores.weighted.f1),
            _num(report.token_binary.f1),
            _num(report.document_scores.weighted.f1),
            _num(report.entities["strict"].overall.f1),
            _num(report.entities["type"].overall.f1),
        )
    return out


#: Narrowest rendering: every table but the confusion matrix fits it without folding a number.
MIN_WIDTH = 80


def terminal_width() -> int:
    """The terminal's columns (`COLUMNS` when set), at least `MIN_WIDTH`; 120 when writing
    to a file or a pipe."""
    return max(shutil.get_terminal_size((120, 24)).columns, MIN_WIDTH)


def render_text(
    evaluation: Evaluation, *, width: int | None = None, whole: str = "--format json"
) -> str:
    """The evaluation as plain-text tables, `width` columns wide at most (default: the
    terminal's): a summary per group when grouped, then every view of all documents.
    Cells wrap rather than being cut, and the confusion matrix turns into rows of label
    pairs when it is wider than that, with a pointer to where it is whole (`whole`: the
    option of the command, or the file it writes)."""
    width = width or terminal_width()
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, color_system=None, force_terminal=False)
    report = evaluation.groups[ALL]
    negative = ", ".join(evaluation.negative_labels) or "none"
    console.print(
        f"{report.documents} documents, {report.tokens} word tokens; "
        f"labels counted as not sensitive: {negative}"
    )
    if evaluation.by != "label":
        console.print(_summary_table(evaluation))
    console.print(
        _scores_table("Tokens (overlap per label)", report.token_scores, report.token_binary)
    )
    console.print(
        _scores_table(
            "Documents (positive when a span of the label is present)",
            report.document_scores,
            report.document_binary,
        )
    )
    console.print(_entity_table(report.entities))
    console.print(_entity_label_table(report.entities))
    _print_confusion(console, report.confusion, whole)
    return buffer.getvalue()
