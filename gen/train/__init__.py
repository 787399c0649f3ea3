"""Training a detector on a run's export: one module per trainer, described by itself.

A trainer is a class with a `name`, the export format it trains from
(`export_format`, with `export_settings(settings)`), `check(settings)` that refuses
what cannot work before any export, `unused(settings)` naming the options it ignores,
`fit(data, folder, settings, work)` that writes a model into `folder`, and
`load(folder, info)` that gives back a `gen.predict.detector.Detector`. Adding a
trainer is one new module plus a line in `TRAINERS` (gen.predict.loader); everything else
(export, scores, model card, learning curve) is shared.
`gen train` writes `detector.json` next to the model, naming the trainer that made it;
`gen.predict.loader.load_detector` asks that trainer to load the model.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from gen.core.errors import UsageError
from gen.predict.loader import TRAINERS
from gen.text.units import UNITS

if TYPE_CHECKING:
    from gen.predict.detector import Detector
    from gen.train.data import TrainingData

SPACY_COMPONENTS = ("ner", "spancat")
CLASS_WEIGHTS = ("sqrt", "inverse", "none")
DEVICES = ("auto", "cpu", "cuda")
IDENTIFIER_MODELS = ("spacy", "none")


@dataclass(frozen=True)
class TrainSettings:
    """Everything that decides a trained model; stored in its card."""

    trainer: str = "spacy"
    #: A spaCy pipeline (installed package name or folder) or a local transformers folder.
    base_model: str | None = None
    epochs: int = 20
    #: Stop after this many evaluations on dev without improvement (0: never).
    patience: int = 0
    seed: int = 0
    #: spaCy: words per batch; transformers: windows per batch.
    batch_size: int | None = None
    learning_rate: float | None = None
    #: spaCy component: `ner` (non-overlapping entities) or `spancat` (scored spans).
    component: str = "ner"
    #: spancat: longest candidate span in words (longer spans are joined from pieces).
    max_span_words: int = 12
    #: transformers: window length and overlap in tokens (a paragraph; the thesis's
    #: best with BERT on sentences was 100/20).
    length: int = 256
    stride: int = 64
    #: transformers: "sqrt" (square root of the inverse tag frequency), "inverse", "none",
    #: or a JSON file {tag: weight}.
    class_weights: str = "sqrt"
    device: str = "auto"
    #: transformers: torch threads (None: the cores this process may run on).
    threads: int | None = None
    #: transformers: also fine-tune the word embeddings (frozen by default).
    train_embeddings: bool = False
    #: transformers: special categories whose held-out token F1 gains by it snap to `unit`s.
    snap_to_units: bool = True
    #: encoder: the GGUF model whose vectors the head reads (None: the embedded model).
    encoder: str | None = None
    #: encoder: what one label covers; transformers: what predictions snap to (`sentence`
    #: or `clause`, gen.text.units).
    unit: str = "clause"
    #: encoder: a unit learns a label its spans cover this share of (see encoder_trainer);
    #: transformers: a unit takes a snapped label this share of its words have.
    unit_cover: float = 0.5
    #: encoder: `none` units of planned documents that a cross-fitted head scores at least
    #: this for a category learn it (0: off; see encoder_trainer.fill_unplanned).
    fill_unplanned: float = 0.7
    #: encoder: `spacy` trains a spaCy model for the identifier labels beside the head.
    identifiers: str = "spacy"

    def __post_init__(self) -> None:
        if self.trainer not in TRAINERS:
            raise UsageError(
                f"unknown trainer {self.trainer!r}; expected one of {', '.join(TRAINERS)}"
            )
        if self.component not in SPACY_COMPONENTS:
            raise UsageError(
                f"unknown component {self.component!r}; expected one of {SPACY_COMPONENTS}"
            )
        if self.device not in DEVICES:
            raise UsageError(f"unknown device {self.device!r}; expected one of {DEVICES}")
        if self.class_weights not in CLASS_WEIGHTS and not Path(self.class_weights).is_file():
            raise UsageError(
                f"--class-weights {self.class_weights!r}: expected sqrt, inverse, none or a JSON "
                "file mapping tags to weights"
            )
        for name in ("epochs", "length", "max_span_words"):
            if getattr(self, name) < 1:
                raise UsageError(f"--{name.replace('_', '-')} must be at least 1")
        for name in ("patience", "stride"):
            if getattr(self, name) < 0:
                raise UsageError(f"--{name} must not be negative")
        if self.unit not in UNITS:
            raise UsageError(f"unknown --unit {self.unit!r}; expected one of {', '.join(UNITS)}")
        if self.identifiers not in IDENTIFIER_MODELS:
            raise UsageError(
                f"unknown --identifiers {self.identifiers!r}; expected "
                f"{' or '.join(IDENTIFIER_MODELS)}"
            )
        if not 0 <= self.fill_unplanned <= 1:
            raise UsageError(f"--fill-unplanned must be in [0, 1], got {self.fill_unplanned}")
        if not 0 < self.unit_cover <= 1:
            raise UsageError(f"--unit-cover must be in (0, 1], got {self.unit_cover}")
        if self.threads is not None and self.threads < 1:
            raise UsageError(f"--threads must be at least 1, got {self.threads}")
        if self.learning_rate is not None and not self.learning_rate > 0:
            raise UsageError(f"--learning-rate must be greater than 0, got {self.learning_rate}")


class Trainer(Protocol):
    name: ClassVar[str]
    export_format: ClassVar[str]

    def check(self, settings: TrainSettings) -> None:
        """Refuse settings that cannot work (a missing base model...) before any export."""
        ...

    def unused(self, settings: TrainSettings) -> dict[str, str]:
        """The settings this trainer does not read with `settings`, each with the choice
        that leaves it unused (`--trainer spacy`), so `gen train` can say so."""
        ...

    def export_settings(self, settings: TrainSettings) -> dict[str, Any]:
        """The export format's settings this trainer needs; an export made with other
        values is written again."""
        ...

    def fit(
        self, data: TrainingData, folder: Path, settings: TrainSettings, work: Path
    ) -> dict[str, Any]:
        """Train on `data.train_ids`, pick the best checkpoint on dev, save into `folder`;
        return what `load` needs (and the card shows) beyond the settings. `work` survives
        an interrupted run (checkpoints to resume from)."""
        ...

    def load(self, folder: Path, info: dict[str, Any]) -> Detector: ...


def require(module: str, extra: str) -> Any:
    """Import an optional library, or say which extra installs it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise UsageError(f"this needs the `{module}` package: pip install 'gen[{extra}]'") from None
