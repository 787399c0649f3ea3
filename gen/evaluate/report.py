"""`gen eval` results as plain-text tables for people; scripts use `--format json`."""

from __future__ import annotations

import io

from rich import box
from rich.console import Console
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


def _scores_table(title: str, table: ScoreTable, binary: Scores) -> Table:
    out = Table(title=title, box=box.SIMPLE_HEAD, title_justify="left")
    for column in ("label", "support", "TP", "FP", "FN", "precision", "recall", "F1"):
        out.add_column(column, justify="left" if column == "label" else "right")

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
        out.add_column(column, justify="left" if column == "scheme" else "right")
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
    out.add_column("label")
    for scheme in SCHEMES:
        out.add_column(scheme, justify="right")
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


def _confusion_table(confusion: Confusion) -> Table:
    out = Table(box=box.SIMPLE_HEAD)
    out.add_column("gold \\ pred")
    for label in confusion.labels:
        out.add_column(label, justify="right")
    for label, row in zip(confusion.labels, confusion.matrix, strict=True):
        out.add_row(label, *map(str, row))
    return out


def _summary_table(evaluation: Evaluation) -> Table:
    out = Table(title=f"Summary by {evaluation.by}", box=box.SIMPLE_HEAD, title_justify="left")
    columns = ("group", "docs", "token micro F1", "token weighted F1", "binary F1",
               "doc weighted F1", "strict F1", "type F1")  # fmt: skip
    for column in columns:
        out.add_column(column, justify="left" if column == "group" else "right")
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


def render_text(evaluation: Evaluation, *, width: int = 120) -> str:
    """The evaluation as plain-text tables: a summary per group when grouped, then
    every view of all documents."""
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
    console.print("Token confusion (rows: gold, columns: predicted)")
    console.print(_confusion_table(report.confusion))
    return buffer.getvalue()
