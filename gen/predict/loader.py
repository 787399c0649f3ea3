"""Loading a detector folder written by `gen train`: `detector.json` checked, then the
trainer that made the folder asked for its detector.

Below every stage that uses detectors (`gen predict`, the `detector` labeling strategy,
review selection) and below `gen train` itself: the trainers are named here by module
and imported on use, so this module depends on none of them. `detector.json` is
validated before anything reads it: a damaged folder stops with one line naming the file
and the key (exit status 2), never a traceback; each trainer's `load` checks its own keys
and files the same way.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from gen.core.errors import UsageError
from gen.core.yamlio import validation_message
from gen.predict.detector import Detector

ModelT = TypeVar("ModelT", bound=BaseModel)

DETECTOR_FILE = "detector.json"
#: trainer name -> "module:class" (imported on use: each pulls in a heavy library). The
#: class trains detectors (gen.train.Trainer) and loads them: `load(folder, info)`.
TRAINERS: dict[str, str] = {
    "spacy": "gen.train.spacy_trainer:SpacyTrainer",
    "transformers": "gen.train.transformers_trainer:TransformersTrainer",
    "encoder": "gen.train.encoder_trainer:EncoderTrainer",
}


class DetectorInfo(BaseModel):
    """The keys of `detector.json` that every trainer writes; the others are its own."""

    model_config = ConfigDict(extra="allow", strict=True)

    trainer: str
    #: Window length and overlap of prediction, in the trainer's unit (words, tokens).
    window: int | None = Field(default=None, ge=2)
    overlap: int | None = Field(default=None, ge=0)

    @field_validator("trainer")
    @classmethod
    def _known(cls, name: str) -> str:
        if name not in TRAINERS:
            raise ValueError(f"unknown trainer {name!r}; expected one of {', '.join(TRAINERS)}")
        return name


def trainer_class(name: str) -> type[Any]:
    """The class of trainer `name` (a gen.train.Trainer)."""
    if name not in TRAINERS:
        raise UsageError(f"unknown trainer {name!r}; expected one of {', '.join(TRAINERS)}")
    module, cls = TRAINERS[name].split(":")
    return getattr(importlib.import_module(module), cls)


def detector_info(folder: Path) -> dict[str, Any]:
    """What `gen train` recorded about the model in `folder`, checked (module docstring)."""
    folder = Path(folder)
    path = folder / DETECTOR_FILE
    if not folder.is_dir():
        raise UsageError(f"model folder {folder} not found; expected the --out folder of gen train")
    if not path.is_file():
        raise UsageError(f"{folder} has no {DETECTOR_FILE}: expected the --out folder of gen train")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(f"{path}: not a detector description ({exc})") from None
    return validated(path, data, DetectorInfo).model_dump()


def validated(path: Path, data: Any, model: type[ModelT]) -> ModelT:
    """`data` read from `path` as `model`; a problem is one line naming the file and key."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise UsageError(validation_message(path, data, exc)) from None


def load_detector(
    folder: Path, *, window: int | None = None, overlap: int | None = None
) -> Detector:
    """The detector in `folder`; `window`/`overlap` override the trained windowing."""
    info = detector_info(folder)
    if window is not None and overlap is None:
        overlap = window // 4
    window = window or info.get("window")
    overlap = info.get("overlap") if overlap is None else overlap
    if window is not None and overlap is not None and overlap >= window:
        raise UsageError(f"--overlap {overlap} must be smaller than the window ({window})")
    info.update({"window": window, "overlap": overlap})
    detector: Detector = trainer_class(info["trainer"])().load(Path(folder), info)
    return detector
