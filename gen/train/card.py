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


def _chosen(info: dict[str, Any]) -> list[str]:
    """What training chose or started from beyond the settings: the base model's weights
    (which file the detector grew from), the thresholds, the labels snapped to units."""
    lines = []
    for name, sha256 in info.get("base_model_sha256", {}).items():
        lines.append(f"- base model weights: `{info['base_model']}/{name}`, sha256 `{sha256}`")
    if info.get("thresholds"):
        chosen = ", ".join(f"{label} {value:g}" for label, value in info["thresholds"].items())
        lines.append(f"- thresholds (chosen on dev): {chosen}")
    if "snap" in info:
        lines.append(f"- snapped to {info['unit']} units: {', '.join(info['snap']) or 'none'}")
    if info.get("dev_f1_by_epoch"):
        by_epoch = ", ".join(f"{value:.3f}" for value in info["dev_f1_by_epoch"])
        lines.append(f"- dev token micro F1 by epoch: {by_epoch} (kept: {info['best_epoch']})")
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
        *_chosen(info),
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
