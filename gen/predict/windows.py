"""Long texts cut into overlapping windows, and window predictions merged back.

A detector sees at most one window at a time (a transformer has a token limit;
spaCy's context is local anyway). Each window owns the middle of its overlaps
with its neighbours (its *core*); a span predicted in a window is kept when its
midpoint lies in that window's core, so a span seen twice in an overlap is kept
once, from the window where it has the more context. A span cut by a window edge
is also seen, uncut, by the next window (its midpoint then lies in that
window's core); overlapping spans of one label are joined, which rejoins the
pieces. Spans of different labels that overlap keep the higher score, then the
longer one. Offsets are Python string offsets of the whole text throughout.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from gen.core.records import Span
from gen.text.words import word_spans


@dataclass(frozen=True)
class Window:
    """`text[start:end]`, the part of the text one model call sees."""

    start: int
    end: int


def word_windows(text: str, size: int, overlap: int) -> list[Window]:
    """Windows of `size` words, each starting `size - overlap` words after the previous."""
    if size < 1 or not 0 <= overlap < size:
        raise ValueError(f"window of {size} words with overlap {overlap}: need 0 <= overlap < size")
    words = word_spans(text)
    if len(words) <= size:
        return [Window(0, len(text))]
    windows = []
    step = size - overlap
    for first in range(0, len(words), step):
        last = min(first + size, len(words)) - 1
        windows.append(Window(words[first][0], words[last][1]))
        if last == len(words) - 1:
            break
    return windows


def _cores(windows: Sequence[Window], length: int) -> list[tuple[float, float]]:
    """The part of the text each window owns: up to the middle of each overlap."""
    cores = []
    for index, window in enumerate(windows):
        low = 0.0 if index == 0 else (window.start + windows[index - 1].end) / 2
        high = (
            float(length)
            if index == len(windows) - 1
            else (windows[index + 1].start + window.end) / 2
        )
        cores.append((low, high))
    return cores


def merge_windows(
    length: int, windows: Sequence[Window], predictions: Sequence[Sequence[Span]]
) -> list[Span]:
    """Spans of the whole text from spans predicted per window (offsets already in
    whole-text coordinates); no two of the result overlap."""
    kept = [
        span
        for (low, high), spans in zip(_cores(windows, length), predictions, strict=True)
        for span in spans
        if low <= (span.start + span.end) / 2 < high
    ]
    return resolve_overlaps(kept)


def resolve_overlaps(spans: Sequence[Span]) -> list[Span]:
    """Join overlapping spans of one label (keeping the higher score); then, where
    labels differ, keep the higher-scored (then longer) span."""
    joined: list[Span] = []
    for span in sorted(spans, key=lambda s: (s.label, s.start, s.end)):
        last = joined[-1] if joined else None
        if last is not None and last.label == span.label and span.start < last.end:
            joined[-1] = replace(
                last, end=max(last.end, span.end), score=_best(last.score, span.score)
            )
        else:
            joined.append(span)
    ranked = sorted(joined, key=lambda s: (-(s.score or 0.0), -(s.end - s.start), s.start))
    chosen: list[Span] = []
    for span in ranked:
        if all(span.end <= other.start or other.end <= span.start for other in chosen):
            chosen.append(span)
    return sorted(chosen, key=lambda s: (s.start, s.end))


def _best(left: float | None, right: float | None) -> float | None:
    values = [v for v in (left, right) if v is not None]
    return max(values) if values else None
