"""Timing of the censor aligner on synthetic documents of growing length.

Run by hand: `.venv/bin/python bench/bench_align.py`. Prints median and p95 per size; the
target is under 5 ms for 3,000 characters with ~6 tags and near-linear growth after that.
"""

from __future__ import annotations

import random
import statistics
import time

from labeling.align.aligner import align_document

TAGS = {"HEALTH_DATA": "health", "POLITICAL_OPINION": "politic"}
SIZES = (1_000, 3_000, 10_000, 30_000)
TAGS_PER_3000_CHARS = 6
REPEATS = 40


def _word(rng: random.Random) -> str:
    return "".join(rng.choice("abcdefghilmnoprstuvzàèé") for _ in range(rng.randint(2, 9)))


def _document(rng: random.Random, size: int) -> tuple[str, str]:
    """An original of about `size` characters and a censored answer with reflowed spaces,
    curly quotes, a typo next to every other tag, a preamble and a closing remark."""
    words: list[str] = []
    while sum(len(word) + 1 for word in words) < size:
        words.append(_word(rng) + rng.choice(["", "", "", ",", ".", ".\n"]))
    original = " ".join(words)
    tags = max(1, size * TAGS_PER_3000_CHARS // 3000)
    starts = sorted(rng.sample(range(2, len(words) - 10), tags))
    censored_words: list[str] = []
    position = 0
    for index, start in enumerate(starts):
        if start < position:
            continue
        censored_words.extend(words[position:start])
        if index % 2 and censored_words:
            censored_words[-1] = censored_words[-1][::-1]  # a typo right before the tag
        censored_words.append(f"[{rng.choice(list(TAGS)).lower().replace('_', ' ')}]")
        position = start + rng.randint(1, 8)
    censored_words.extend(words[position:])
    censored = "Here is the censored document:\n\n" + "  ".join(censored_words)
    return original, censored + "\n\nI hope this helps!"


def main() -> None:
    rng = random.Random(7)
    align_document(*_document(rng, SIZES[0]), TAGS)  # warm up imports and caches
    print(f"{'chars':>7} {'median ms':>10} {'p95 ms':>8} {'spans':>6}")
    for size in SIZES:
        documents = [_document(rng, size) for _ in range(REPEATS)]
        timings = []
        spans = 0
        for original, censored in documents:
            began = time.perf_counter()
            alignment = align_document(original, censored, TAGS)
            timings.append((time.perf_counter() - began) * 1000)
            spans += len(alignment.spans)
        timings.sort()
        p95 = timings[int(len(timings) * 0.95) - 1]
        print(f"{size:>7} {statistics.median(timings):>10.2f} {p95:>8.2f} {spans / REPEATS:>6.1f}")


if __name__ == "__main__":
    main()
