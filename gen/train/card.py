"""The model card written next to a trained detector: data, labels, settings, scores."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from gen.train import TrainSettings
from gen.train.curve import CurvePoint, curve_markdown, summarize
from gen.train.scoring import ScoredSet


def _metric_table(scored: Sequence[ScoredSet]) -> list[str]:
    rows = [(s.name, summarize(s.evaluation)) for s in scored]
    metrics = list(rows[0][1]) if rows else []
    lines = [
        "| set | documents | " + " | ".join(metrics) + " |",
        "|---|---:|" + "---:|" * len(metrics),
    ]
    for (name, values), s in zip(rows, scored, strict=True):
        lines.append(
            f"| {name} | {s.documents} | " + " | ".join(f"{values[m]:.3f}" for m in metrics) + " |"
        )
    return lines


def _label_table(scored: ScoredSet) -> list[str]:
    report = scored.evaluation.groups["all"]
    lines = [
        f"### {scored.name}: per label",
        "",
        "| label | support (tokens) | token P | token R | token F1 | doc F1 | strict F1 | partial F1 |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for label, tokens in report.token_scores.per_label.items():
        doc = report.document_scores.per_label.get(label)
        strict = report.entities["strict"].per_label.get(label)
        partial = report.entities["partial"].per_label.get(label)
        lines.append(
            f"| {label} | {tokens.support} | {tokens.precision:.3f} | {tokens.recall:.3f} | "
            f"{tokens.f1:.3f} | {doc.f1 if doc else 0:.3f} | {strict.f1 if strict else 0:.3f} | "
            f"{partial.f1 if partial else 0:.3f} |"
        )
    if scored.ignored_labels:
        lines += [
            "",
            f"Predictions of labels the set never uses were left out: {', '.join(scored.ignored_labels)}.",
        ]
    if scored.unknown_labels:
        lines += [
            "",
            f"Labels of the set the model never learned (all missed): {', '.join(scored.unknown_labels)}.",
        ]
    return lines


def model_card(
    settings: TrainSettings,
    info: dict[str, Any],
    data: dict[str, Any],
    scored: Sequence[ScoredSet],
    train_seconds: float,
    curve: Sequence[CurvePoint] = (),
) -> str:
    lines = [
        f"# Detector: {settings.trainer}"
        + (f" {info['component']}" if "component" in info else ""),
        "",
        "Trained by `gen train` on a synthetic dataset of fictional documents. Scores below are "
        "measured, not promised: check them on your own documents before relying on the model.",
        "",
        "## Data",
        "",
        f"- run: `{data['run']}`, export: `{data['export']}`",
        "- records: " + ", ".join(f"{name} {count}" for name, count in data["counts"].items()),
        f"- trained on {data['train_records']} train records",
        f"- labels: {', '.join(info.get('labels', []))}",
        "",
        "## Settings",
        "",
        *(f"- {key}: {value}" for key, value in asdict(settings).items() if value is not None),
        f"- training time: {train_seconds:.1f} s",
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
        lines.append(f"Prediction: {item.documents_per_second:.1f} documents/s.")
        lines.append("")
    if curve:
        lines += [
            "## Learning curve",
            "",
            curve_markdown(curve),
            "![learning curve](curve.png)",
            "",
        ]
    return "\n".join(lines)
