"""A fine-tuned token classifier as a detector (the transformers trainer's models).

The text is cut into windows by the model's own tokenizer (`--length`/`--stride`
tokens, as in training); each word (gen.text.words, as the `hf-tokens` export the
model learned from) takes the tag of its first sub-token in the window, runs of
one label become spans (`spans_from_tags`, as the exports), and the windows are
merged back to exact character offsets of the whole text.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gen.core.errors import UsageError
from gen.core.records import Span
from gen.predict.detector import SOURCE
from gen.predict.windows import Window, merge_windows
from gen.text.words import OUTSIDE, spans_from_tags, word_spans, word_starts
from gen.train import require

torch = require("torch", "transformers")
transformers = require("transformers", "transformers")


class TransformersDetector:
    """Windows by the model's tokenizer; a word takes its first sub-token's tag; a span's
    score is the mean probability of its words' tags."""

    scored = True

    def __init__(self, folder: Path, device: str, window: int, overlap: int) -> None:
        try:
            self.tokenizer = transformers.AutoTokenizer.from_pretrained(
                folder, local_files_only=True
            )
            self.model = transformers.AutoModelForTokenClassification.from_pretrained(
                folder, local_files_only=True
            )
        except (OSError, ValueError) as exc:
            raise UsageError(f"cannot load the model in {folder}: {exc}") from None
        self.model.to(device).eval()
        self.device = device
        self.window = window
        self.overlap = overlap
        self.tags = [self.model.config.id2label[i] for i in range(self.model.config.num_labels)]
        self.labels = sorted({t.partition("-")[2] for t in self.tags if t != OUTSIDE})

    def predict(self, texts: Sequence[str]) -> list[list[Span]]:
        return [self._predict_one(text) for text in texts]

    def _predict_one(self, text: str) -> list[Span]:
        if not text.strip():
            return []
        special = self.tokenizer.num_special_tokens_to_add()
        encoding = self.tokenizer(
            text,
            truncation=True,
            max_length=self.window,
            stride=min(self.overlap, max(self.window - special - 1, 0)),
            return_overflowing_tokens=True,
            return_offsets_mapping=True,
            padding=True,
            return_tensors="pt",
        )
        offsets = encoding.pop("offset_mapping").tolist()
        encoding.pop("overflow_to_sample_mapping", None)
        with torch.no_grad():
            inputs = {k: v.to(self.device) for k, v in encoding.items()}
            probabilities = self.model(**inputs).logits.softmax(-1).cpu()
        words = word_spans(text)
        windows, found = [], []
        for index, window_offsets in enumerate(offsets):
            reached, tags, scores = read_window(
                words, window_offsets, probabilities[index], self.tags
            )
            if not reached:
                continue
            windows.append(Window(reached[0][0], reached[-1][1]))
            found.append(self._spans(text, reached, tags, scores))
        return merge_windows(len(text), windows, found)

    @staticmethod
    def _spans(
        text: str, words: list[tuple[int, int]], tags: list[str], scores: list[float]
    ) -> list[Span]:
        spans = []
        for span in spans_from_tags(words, tags, source=SOURCE):
            inside = [
                s
                for (a, b), s in zip(words, scores, strict=True)
                if span.start <= a and b <= span.end
            ]
            score = round(sum(inside) / len(inside), 4) if inside else None
            spans.append(Span(span.start, span.end, span.label, SOURCE, score=score))
        return [s for s in spans if text[s.start : s.end].strip()]


def read_window(
    words: Sequence[tuple[int, int]],
    offsets: Sequence[Sequence[int]],
    probabilities: Any,
    tags: Sequence[str],
) -> tuple[list[tuple[int, int]], list[str], list[float]]:
    """The words one window reaches, each with the most probable tag of its first
    sub-token and that tag's probability (`probabilities`: tokens x tags). Special and
    padding tokens are empty and start no word."""
    reached: list[tuple[int, int]] = []
    best_tags: list[str] = []
    scores: list[float] = []
    for position, word in enumerate(word_starts(words, [tuple(o) for o in offsets])):
        if word is None:
            continue
        best = int(probabilities[position].argmax())
        reached.append(words[word])
        best_tags.append(tags[best])
        scores.append(float(probabilities[position][best]))
    return reached, best_tags, scores
