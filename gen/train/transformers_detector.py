"""A fine-tuned token classifier as a detector (the transformers trainer's models).

A text is cut into windows by the model's own tokenizer (`tokenizer.json`, as the
`hf-tokens` export cut the training documents: `window` tokens overlapping by `overlap`);
the windows of every text of a call go through the model in batches, and each word
(gen.text.words) is read on its first sub-token in the window where it has the most
context. A word takes its most probable label where that reaches the label's threshold,
and the labels of `snap` snap to units (gen.train.token_tags); the thresholds and
snapped labels were chosen on the training run's held-out documents
(gen.train.transformers_dev) and are stored in `detector.json`.

Loading checks the folder: `detector.json` against its schema (`TransformersInfo`: a
missing `thresholds`, a threshold of 2, a snapped label the model has not), its tags
against the model's labels, and the model and tokenizer files; anything wrong is one
line naming the file, exit status 2.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from gen.backends.cpu_share import available_cores
from gen.core.errors import UsageError
from gen.core.records import Span
from gen.export.formats.hf_tokens import (
    cut_into_windows,
    encode_windows,
    load_tokenizer,
    window_word_starts,
)
from gen.predict.detector import SOURCE
from gen.predict.loader import DETECTOR_FILE, validated
from gen.text.units import Unit
from gen.text.words import OUTSIDE, word_spans
from gen.train import require
from gen.train.token_tags import decide, scored_spans, snap_to_units, softmax, word_probabilities
from gen.train.units import text_language, text_units

torch = require("torch", "transformers")
transformers = require("transformers", "transformers")
safetensors = require("safetensors", "transformers")

#: Bumped when the folder's files or keys change meaning; older folders are refused.
FORMAT = 2
MODEL = "model"
#: Windows per forward pass when predicting.
BATCH = 16


def device_for(name: str) -> str:
    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cuda" and not torch.cuda.is_available():
        raise UsageError("--device cuda: torch sees no CUDA device")
    return name


def check_window(folder: Path, window: int, option: str) -> None:
    """Refuse windows longer than the model reads: `model_max_length` of its
    `tokenizer_config.json`, where it says (a longer window would index past its
    position embeddings)."""
    path = Path(folder) / "tokenizer_config.json"
    try:
        longest = json.loads(path.read_text(encoding="utf-8")).get("model_max_length")
    except (OSError, ValueError, AttributeError):
        return
    if isinstance(longest, int) and window > longest:
        raise UsageError(
            f"{option} {window} is longer than the {longest} tokens the model reads "
            f"(model_max_length in {path})"
        )


def set_threads(threads: int | None) -> int:
    """Torch's threads: `threads`, or the cores this process may run on (its affinity:
    torch's own default counts the machine's cores, more than a container may use)."""
    count = threads or available_cores()
    torch.set_num_threads(count)
    return count


class TransformersInfo(BaseModel):
    """The keys of a transformers detector's `detector.json` that loading reads."""

    model_config = ConfigDict(extra="allow", strict=True)

    format: int
    #: "O" first, then "I-<label>" (the IO scheme the model learned).
    tags: list[str] = Field(min_length=2)
    thresholds: dict[str, float]
    window: int = Field(ge=2)
    overlap: int = Field(ge=0)
    snap: list[str] = []
    unit: Unit = "clause"
    unit_cover: float = Field(default=0.5, gt=0, le=1)
    languages: list[str] = Field(min_length=1)

    @field_validator("tags")
    @classmethod
    def _io_tags(cls, tags: list[str]) -> list[str]:
        if tags[0] != OUTSIDE or not all(tag.startswith("I-") for tag in tags[1:]):
            raise ValueError(f'expected "O" then "I-<label>" tags, got {tags}')
        return tags

    @model_validator(mode="after")
    def _labels(self) -> TransformersInfo:
        labels = self.labels
        if sorted(self.thresholds) != sorted(labels):
            raise ValueError(f"thresholds {self.thresholds} must name each label {labels} once")
        if not all(0 <= value <= 1 for value in self.thresholds.values()):
            raise ValueError(f"thresholds {self.thresholds} must be between 0 and 1")
        if set(self.snap) - set(labels):
            raise ValueError(f"snap {self.snap}: expected labels of {labels}")
        if self.overlap >= self.window:
            raise ValueError(f"overlap {self.overlap} must be smaller than window {self.window}")
        return self

    @property
    def labels(self) -> list[str]:
        return [tag[2:] for tag in self.tags[1:]]


def read_info(folder: Path, raw: dict[str, Any]) -> TransformersInfo:
    if raw.get("format") != FORMAT:
        raise UsageError(
            f"{folder}: transformers detector format {raw.get('format')!r}, this gen reads "
            f"format {FORMAT}; train it again with gen train --trainer transformers"
        )
    return validated(Path(folder) / DETECTOR_FILE, raw, TransformersInfo)


class TransformersDetector:
    """Windows by the model's tokenizer, words read where they have the most context,
    thresholds and snapping as chosen in training (module docstring)."""

    scored = True

    def __init__(self, folder: Path, raw: dict[str, Any]) -> None:
        info = read_info(folder, raw)
        model_folder = Path(folder) / MODEL
        check_window(model_folder, info.window, "--window")
        self.tokenizer = load_tokenizer(model_folder)
        cut_into_windows(self.tokenizer, info.window, info.overlap)
        try:
            self.model = transformers.AutoModelForTokenClassification.from_pretrained(
                model_folder, local_files_only=True
            )
        except (OSError, ValueError, RuntimeError, KeyError, safetensors.SafetensorError) as exc:
            raise UsageError(f"cannot load the model in {model_folder}: {exc}") from None
        config = self.model.config
        if [config.id2label.get(i) for i in range(config.num_labels)] != info.tags:
            raise UsageError(
                f"{Path(folder) / DETECTOR_FILE}: tags {info.tags} differ from the model's "
                f"labels in {model_folder / 'config.json'}; train it again"
            )
        self.device = device_for("auto")
        if self.device == "cpu":
            set_threads(None)
        self.model.to(self.device).eval()
        self.pad = config.pad_token_id or 0
        self.tags = info.tags
        self.labels = info.labels
        self.thresholds = np.array([info.thresholds[label] for label in self.labels])
        self.snapped = [self.labels.index(label) + 1 for label in info.snap]
        self.unit, self.cover, self.languages = info.unit, info.unit_cover, info.languages

    def unit_scores(self, texts: Sequence[str]) -> list[tuple[list[tuple[int, int]], np.ndarray]]:
        """Each text's words and their tag probabilities (`O` first): the units
        `gen review push --select uncertain` weighs against the thresholds."""
        windows = [encode_windows(self.tokenizer, text) for text in texts]
        flat = [encoding for encodings in windows for encoding in encodings]
        logits = self._logits([encoding.ids for encoding in flat])
        scored, row = [], 0
        for text, encodings in zip(texts, windows, strict=True):
            words = word_spans(text)
            starts = [window_word_starts(encoding, words) for encoding in encodings]
            probabilities = [softmax(logits[row + i]) for i in range(len(encodings))]
            row += len(encodings)
            scored.append(
                (words, word_probabilities(len(words), starts, probabilities, len(self.tags)))
            )
        return scored

    def predict(self, texts: Sequence[str]) -> list[list[Span]]:
        found = []
        for text, (words, probabilities) in zip(texts, self.unit_scores(texts), strict=True):
            classes = decide(probabilities, self.thresholds)
            if self.snapped:
                units = text_units(text, text_language(text, self.languages), self.unit)
                classes = snap_to_units(words, classes, units, self.snapped, self.cover)
            found.append(scored_spans(words, classes, probabilities, self.tags, SOURCE))
        return found

    def _logits(self, windows: Sequence[Sequence[int]]) -> list[np.ndarray]:
        """Each window's (tokens, tags) logits, its padding left out. Windows of like
        length share a batch, so a short text's window is not padded to a long one's."""
        order = sorted(range(len(windows)), key=lambda i: len(windows[i]))
        out: list[np.ndarray] = [np.zeros(0)] * len(windows)
        for start in range(0, len(order), BATCH):
            chosen = order[start : start + BATCH]
            batch = [torch.tensor(windows[i]) for i in chosen]
            pad = torch.nn.utils.rnn.pad_sequence
            ids = pad(batch, batch_first=True, padding_value=self.pad)
            mask = pad([torch.ones_like(t) for t in batch], batch_first=True, padding_value=0)
            with torch.no_grad():
                logits = self.model(
                    input_ids=ids.to(self.device), attention_mask=mask.to(self.device)
                ).logits
            for index, row, t in zip(chosen, logits, batch, strict=True):
                out[index] = row[: len(t)].float().cpu().numpy()
        return out
