"""A trained detector: texts in, character spans out (`source = model`).

`gen train` writes `detector.json` next to the model, naming the trainer that
made it; `load_detector` asks that trainer to load the model. Long texts are
cut into overlapping windows by the detector (`gen.predict.windows`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from gen.core.errors import UsageError
from gen.core.records import Span

DETECTOR_FILE = "detector.json"
#: The span source of every predicted span.
SOURCE = "model"


class Detector(Protocol):
    #: The labels the detector can predict.
    labels: list[str]

    def predict(self, texts: Sequence[str]) -> list[list[Span]]:
        """Non-overlapping spans of each text, with `score` where the model gives one."""
        ...


def detector_info(folder: Path) -> dict[str, Any]:
    """What `gen train` recorded about the model in `folder`."""
    folder = Path(folder)
    path = folder / DETECTOR_FILE
    if not folder.is_dir():
        raise UsageError(f"model folder {folder} not found; expected the --out folder of gen train")
    if not path.is_file():
        raise UsageError(f"{folder} has no {DETECTOR_FILE}: expected the --out folder of gen train")
    try:
        info = json.loads(path.read_text(encoding="utf-8"))
        info["trainer"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise UsageError(f"{path}: not a detector description ({exc})") from None
    return info


def load_detector(
    folder: Path, *, window: int | None = None, overlap: int | None = None
) -> Detector:
    """The detector in `folder`; `window`/`overlap` override the trained windowing."""
    from gen.train import trainer_class

    info = detector_info(folder)
    if window is not None and overlap is None:
        overlap = window // 4
    window = window or info.get("window")
    overlap = info.get("overlap") if overlap is None else overlap
    if window is not None and overlap is not None and overlap >= window:
        raise UsageError(f"--overlap {overlap} must be smaller than the window ({window})")
    info.update({"window": window, "overlap": overlap})
    return trainer_class(info["trainer"])().load(Path(folder), info)
