"""The pieces of the Hugging Face training loop that the transformers trainer sets: the
weighted loss, the progress bar, and the checkpoint a killed run resumes from."""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gen.core.errors import UsageError
from gen.core.progress import say
from gen.export.formats.hf_tokens import IGNORED
from gen.train import require

torch = require("torch", "transformers")
transformers = require("transformers", "transformers")

STATE = "trainer_state.json"
_STEP = re.compile(r"checkpoint-(\d+)$")


def class_weights(
    setting: str, tags: Sequence[str], rows: Sequence[dict[str, Any]]
) -> list[float] | None:
    """Per-tag loss weights: None, inverse frequency (N / (K * n_tag)) or its square root,
    or a JSON file {tag: weight}."""
    if setting == "none":
        return None
    if setting in ("inverse", "sqrt"):
        power = 1.0 if setting == "inverse" else 0.5
        counts = Counter(label for row in rows for label in row["labels"] if label != IGNORED)
        total = sum(counts.values())
        return [
            (total / (len(tags) * counts[i])) ** power if counts[i] else 1.0
            for i in range(len(tags))
        ]
    try:
        given = json.loads(Path(setting).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(
            f"--class-weights {setting}: expected a JSON object {{tag: weight}} ({exc})"
        ) from None
    unknown = set(given) - set(tags) if isinstance(given, dict) else {"(not an object)"}
    if unknown:
        raise UsageError(
            f"--class-weights {setting}: unknown tags {sorted(unknown)}; tags: {', '.join(tags)}"
        )
    return [float(given.get(tag, 1.0)) for tag in tags]


class WeightedLossTrainer(transformers.Trainer):
    """`Trainer` with a per-tag weighted cross-entropy."""

    def __init__(self, *args: Any, tag_weights: list[float] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.tag_weights = tag_weights

    def compute_loss(
        self, model: Any, inputs: dict[str, Any], return_outputs: bool = False, **kwargs: Any
    ) -> Any:
        labels = inputs.pop("labels")
        outputs = model(**inputs)
        logits = outputs.logits
        weight = (
            None
            if self.tag_weights is None
            else torch.tensor(self.tag_weights, device=logits.device, dtype=logits.dtype)
        )
        loss = torch.nn.functional.cross_entropy(
            logits.view(-1, logits.shape[-1]), labels.view(-1), weight=weight, ignore_index=IGNORED
        )
        return (loss, outputs) if return_outputs else loss


class ProgressCallback(transformers.TrainerCallback):
    def __init__(self, bar: Any) -> None:
        self.bar = bar

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self.bar.advance(1, epoch=f"{state.epoch:.1f}")

    def on_evaluate(
        self, args: Any, state: Any, control: Any, metrics: dict | None = None, **kwargs: Any
    ) -> None:
        if metrics and "eval_f1" in metrics:
            self.bar.update(dev=f"{metrics['eval_f1']:.3f}")


def resume_point(checkpoints: Path) -> tuple[Path, int] | None:
    """The newest checkpoint written whole, and its step: its `trainer_state.json`, which
    the `Trainer` writes last, reads. Those a killed run left half-written are removed."""
    found = [p for p in checkpoints.glob("checkpoint-*") if _STEP.search(p.name)]
    for path in sorted(found, key=lambda p: int(_STEP.search(p.name)[1]), reverse=True):
        try:
            return path, int(json.loads((path / STATE).read_text())["global_step"])
        except (OSError, ValueError, KeyError, TypeError):
            shutil.rmtree(path)
            say(f"removed {path}: a checkpoint left half-written by a killed run")
    return None
