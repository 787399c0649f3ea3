"""The model card written next to a trained detector: data, labels, settings, scores."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from gen.train import TrainSettings
from gen.train.curve import CurvePoint, curve_markdown, markdown_table, summarize
from gen.train.scoring import ScoredSet

LABEL_COLUMNS = ("label", "support (tokens)", "token P", "token R", "token F1", "doc F1")
ENTITY_COLUMNS = ("strict F1", "partial F1")


def _metric_table(scored: Sequence[ScoredSet]) -> list[str]:
    summaries = [summarize(s.evaluation) for s in scored]
    metrics = list(summaries[0]) if summaries else []
    rows = [
        [s.name, s.documents, *(summary[m] for m in metrics)]
        for s, summary in zip(scored, summaries, strict=True)
    ]
    return markdown_table(["set", "documents", *metrics], rows)


def _label_table(scored: ScoredSet) -> list[str]:
    report = scored.evaluation.groups["all"]
    rows = []
    for label, tokens in report.token_scores.per_label.items():
        document = report.document_scores.per_label.get(label)
        entity = [report.entities[s].per_label.get(label) for s in ("strict", "partial")]
        rows.append(
            [label, tokens.support, tokens.precision, tokens.recall, tokens.f1]
            + [float(document.f1) if document else 0.0]
            + [float(e.f1) if e else 0.0 for e in entity]
        )
    lines = [f"### {scored.name}: per label", ""]
    lines += markdown_table([*LABEL_COLUMNS, *ENTITY_COLUMNS], rows)
    notes = (
        ("Predictions of labels the set never uses were left out", scored.ignored_labels),
        ("Labels of the set the model never learned (all missed)", scored.unknown_labels),
    )
    lines += [f"\n{note}: {', '.join(labels)}." for note, labels in notes if labels]
    if scored.unread:
        lines.append(
            f"\nDocuments the detector could not read, left out of the score: "
            f"{', '.join(scored.unread)}."
        )
    return lines


def model_card(
    settings: TrainSettings,
    info: dict[str, Any],
    data: dict[str, Any],
    scored: Sequence[ScoredSet],
    train_seconds: float,
    curve: Sequence[CurvePoint] = (),
) -> str:
    title = f"# Detector: {settings.trainer} {info.get('component', '')}".rstrip()
    counts = ", ".join(f"{name} {count}" for name, count in data["counts"].items())
    lines = [
        title,
        "",
        "Trained by `gen train` on a synthetic dataset of fictional documents. Scores below are "
        "measured, not promised: check them on your own documents before relying on the model.",
        "",
        "## Data",
        "",
        f"- run: `{data['run']}`, export: `{data['export']}`",
        f"- records: {counts}",
        f"- trained on {data['train_records']} train records",
        f"- labels: {', '.join(info.get('labels', []))}",
        "",
        "## Settings",
        "",
        *(f"- {key}: {value}" for key, value in asdict(settings).items() if value is not None),
        f"- training time: {train_seconds:.1f} s ({info.get('train_cpu_seconds', '?')} s CPU)",
        "",
        "## Scores",
        "",
        "Token overlap, binary (sensitive or not), document and SemEval entity scores, as "
        "`gen eval` computes them; the full tables are in the `.txt` files next to this card.",
        "",
        *_metric_table(scored),
        "",
    ]
    for item in scored:
        lines += [*_label_table(item), ""]
        lines += [f"Prediction: {item.documents_per_second:.1f} documents/s.", ""]
    if curve:
        lines += ["## Learning curve", "", curve_markdown(curve), "![learning curve](curve.png)"]
    return "\n".join(lines) + "\n"
