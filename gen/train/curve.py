"""Learning curve: the same detector trained on growing shares of the train split.

Dev and test stay the same; the shares are nested (each share holds the smaller
ones), so the curve shows what more data of the same kind adds. Finished points
are kept in a state file next to the model, so an interrupted curve resumes.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from gen.core.errors import UsageError
from gen.core.files import write_atomic, write_json_atomic
from gen.evaluate.run import ALL, Evaluation

#: Columns of the curve table: (name, function of an evaluation's `all` report).
SUMMARY_METRICS: dict[str, Callable[[Any], float]] = {
    "token micro F1": lambda r: r.token_scores.micro.f1,
    "token weighted F1": lambda r: r.token_scores.weighted.f1,
    "binary F1": lambda r: r.token_binary.f1,
    "doc weighted F1": lambda r: r.document_scores.weighted.f1,
    "strict F1": lambda r: r.entities["strict"].overall.f1,
    "partial F1": lambda r: r.entities["partial"].overall.f1,
}


def parse_shares(text: str) -> list[float]:
    """ "0.1,0.25,0.5,1.0" -> sorted shares in (0, 1]."""
    try:
        shares = sorted({float(part) for part in text.split(",") if part.strip()})
    except ValueError:
        raise UsageError(
            f"--learning-curve {text!r}: expected shares like 0.1,0.25,0.5,1.0"
        ) from None
    if not shares or not all(0 < share <= 1 for share in shares):
        raise UsageError(f"--learning-curve {text!r}: every share must be in (0, 1]")
    return shares


def summarize(evaluation: Evaluation) -> dict[str, float]:
    report = evaluation.groups[ALL]
    return {name: round(metric(report), 4) for name, metric in SUMMARY_METRICS.items()}


@dataclass
class CurvePoint:
    share: float
    records: int
    seconds: float
    scores: dict[str, dict[str, float]]


class CurveState:
    """Finished points, valid only for the same settings and the same splits."""

    def __init__(self, path: Path, key: str) -> None:
        self.path = path
        self.key = key
        saved = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
        points = saved.get("points", []) if saved.get("key") == key else []
        self.points = {point["share"]: CurvePoint(**point) for point in points}

    def add(self, point: CurvePoint) -> None:
        self.points[point.share] = point
        write_json_atomic(
            self.path, {"key": self.key, "points": [asdict(p) for p in self.points.values()]}
        )


CURVE_METRICS = ("token micro F1", "binary F1", "strict F1")


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> list[str]:
    """A Markdown table; floats with three decimals, the first column left-aligned."""

    def cell(value: object) -> str:
        return f"{value:.3f}" if isinstance(value, float) else str(value)

    return [
        "| " + " | ".join(header) + " |",
        "|---|" + "---:|" * (len(header) - 1),
        *("| " + " | ".join(map(cell, row)) + " |" for row in rows),
    ]


def curve_markdown(points: Sequence[CurvePoint]) -> str:
    sets = sorted({name for p in points for name in p.scores})
    header = ["share", "train records", "train seconds"]
    header += [f"{name}: {metric}" for name in sets for metric in CURVE_METRICS]
    rows = [
        [f"{p.share:g}", p.records, f"{p.seconds:.1f}"]
        + [p.scores.get(name, {}).get(metric, "") for name in sets for metric in CURVE_METRICS]
        for p in sorted(points, key=lambda p: p.share)
    ]
    return "\n".join(markdown_table(header, rows)) + "\n"


def write_curve(folder: Path, points: Sequence[CurvePoint]) -> None:
    """curve.json, curve.md and curve.png (F1 against train records) into `folder`."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ordered = sorted(points, key=lambda p: p.share)
    write_json_atomic(folder / "curve.json", [asdict(p) for p in ordered])
    write_atomic(folder / "curve.md", curve_markdown(ordered).encode())
    figure, axis = plt.subplots(figsize=(6, 4), dpi=100)
    sizes = [p.records for p in ordered]
    for name in sorted({n for p in ordered for n in p.scores}):
        for metric, style in (("token micro F1", "-o"), ("strict F1", "--s")):
            values = [p.scores.get(name, {}).get(metric, float("nan")) for p in ordered]
            axis.plot(sizes, values, style, label=f"{name}: {metric}")
    axis.set_xlabel("train records")
    axis.set_ylabel("F1")
    axis.set_ylim(0, 1)
    axis.grid(alpha=0.3)
    axis.legend(fontsize=8)
    axis.set_title("Learning curve")
    figure.tight_layout()
    image = io.BytesIO()
    figure.savefig(image, format="png")
    plt.close(figure)
    write_atomic(folder / "curve.png", image.getvalue())
