"""What the transformers trainer chooses on held-out documents (the run's `dev` split):
the best epoch, each label's decision threshold, and the labels that snap to units.

Every choice is scored as `gen eval` scores tokens: the words of gen.text.words, token
micro-F1 over every label but the negative ones (the special categories and the
identifiers alike), on the documents' own character spans. The windows are cut and read
back exactly as the detector reads a new text (gen.train.token_tags), so the epoch kept
is the one whose detector scores best, thresholds included; not the one whose windows
score best under a stricter entity metric. The thresholds are those of the encoder
detector's head (gen.train.encoder_head.best_thresholds), tried from 0.05: a token
classifier spreads its probability over many tags.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from gen.core.records import Record
from gen.evaluate.run import EvalReport, evaluate
from gen.export.formats.hf_tokens import encode_windows, window_labels, window_word_starts
from gen.predict.detector import SOURCE
from gen.text.words import word_spans, word_tags
from gen.train.encoder_head import best_thresholds
from gen.train.token_tags import decide, scored_spans, snap_to_units, softmax, word_probabilities
from gen.train.units import special_labels, text_units

Range = tuple[int, int]
TOKEN_THRESHOLDS = np.round(np.arange(0.05, 0.96, 0.05), 2)


@dataclass
class Choice:
    #: One per label (tags[1:]): a word takes a label whose probability reaches it.
    thresholds: np.ndarray
    #: Labels whose predictions snap to units (they scored higher so on held-out documents).
    snapped: list[str]
    #: Token micro precision, recall and F1 on the held-out documents.
    scores: dict[str, float]


@dataclass
class HeldOut:
    """Held-out documents as the model sees them (windows with labels, for the `Trainer`'s
    evaluation) and as `gen eval` scores them (words and their gold classes)."""

    records: list[Record]
    tags: list[str]
    words: list[list[Range]] = field(default_factory=list)
    gold: list[np.ndarray] = field(default_factory=list)
    #: Model inputs with labels, in order, and the record and word starts of each.
    rows: list[dict[str, Any]] = field(default_factory=list)
    owners: list[int] = field(default_factory=list)
    starts: list[list[int | None]] = field(default_factory=list)

    @classmethod
    def of(cls, records: Sequence[Record], tokenizer: Any, tags: Sequence[str]) -> HeldOut:
        """`tokenizer`: a `tokenizers.Tokenizer` set up by `cut_into_windows`."""
        held = cls(list(records), list(tags))
        tag_ids = {tag: index for index, tag in enumerate(tags)}
        for index, record in enumerate(held.records):
            words = word_spans(record.text)
            known = [s for s in record.spans if f"I-{s.label}" in tag_ids]
            held.words.append(words)
            held.gold.append(np.array([tag_ids[t] for t in word_tags(words, known)], dtype=int))
            for encoding in encode_windows(tokenizer, record.text):
                held.rows.append(
                    {
                        "input_ids": list(encoding.ids),
                        "attention_mask": list(encoding.attention_mask),
                        "labels": window_labels(encoding, words, known, tag_ids, "io"),
                    }
                )
                held.owners.append(index)
                held.starts.append(window_word_starts(encoding, words))
        return held

    def probabilities(self, logits: np.ndarray) -> list[np.ndarray]:
        """Each record's (words, tags) probabilities from the logits of its windows (the
        rows of `logits` in `rows` order; padding past a row's length is not read)."""
        windows: list[list[int]] = [[] for _ in self.records]
        for row, owner in enumerate(self.owners):
            windows[owner].append(row)
        return [
            word_probabilities(
                len(words),
                [self.starts[row] for row in rows],
                [softmax(logits[row, : len(self.starts[row])]) for row in rows],
                len(self.tags),
            )
            for words, rows in zip(self.words, windows, strict=True)
        ]

    def report(
        self, classes: Sequence[np.ndarray], probabilities: Sequence[np.ndarray]
    ) -> EvalReport:
        predicted = [
            replace(record, spans=scored_spans(words, chosen, scores, self.tags, SOURCE))
            for record, words, chosen, scores in zip(
                self.records, self.words, classes, probabilities, strict=True
            )
        ]
        return evaluate(self.records, predicted).groups["all"]

    def choose(
        self, probabilities: Sequence[np.ndarray], unit: str | None = None, cover: float = 0.5
    ) -> Choice:
        """Thresholds with the best token F1 per label; with `unit`, the special categories
        whose token F1 is higher when their predictions (theirs alone) snap to units of that
        kind (an identifier is a few words, never a unit)."""
        labels = [tag.partition("-")[2] for tag in self.tags[1:]]
        everything = np.concatenate(probabilities) if probabilities else np.zeros((0, 1))
        gold = np.concatenate(self.gold) if self.gold else np.zeros(0, dtype=int)
        thresholds = best_thresholds(
            everything, gold, np.ones(len(gold)), labels, candidates=TOKEN_THRESHOLDS
        )
        classes = [decide(p, thresholds) for p in probabilities]
        plain = self.report(classes, probabilities)
        if unit is None:
            return Choice(thresholds, [], _micro(plain))
        units = [text_units(r.text, r.language or "en", unit) for r in self.records]
        better = []
        special = set(special_labels())
        for index, label in enumerate(labels, start=1):
            if label not in special or not any((c == index).any() for c in classes):
                continue  # an identifier, or never predicted: nothing to snap
            alone = self.report(self._snapped(classes, units, [index], cover), probabilities)
            if _f1(alone, label) > _f1(plain, label):
                better.append(label)
        if not better:
            return Choice(thresholds, [], _micro(plain))
        chosen = [labels.index(label) + 1 for label in better]
        final = self.report(self._snapped(classes, units, chosen, cover), probabilities)
        return Choice(thresholds, better, _micro(final))

    def _snapped(
        self,
        classes: Sequence[np.ndarray],
        units: Sequence[Sequence[Range]],
        snapped: Sequence[int],
        cover: float,
    ) -> list[np.ndarray]:
        return [
            snap_to_units(words, chosen, record_units, snapped, cover)
            for words, chosen, record_units in zip(self.words, classes, units, strict=True)
        ]


def _f1(report: EvalReport, label: str) -> float:
    scores = report.token_scores.per_label.get(label)
    return scores.f1 if scores else 0.0


def _micro(report: EvalReport) -> dict[str, float]:
    micro = report.token_scores.micro
    return {"precision": micro.precision, "recall": micro.recall, "f1": micro.f1}
