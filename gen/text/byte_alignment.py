"""The stretches two byte strings share, in order: the fewest bytes inserted and deleted
(a longest common subsequence), fast when they differ in whitespace or in few places.

Used to map a tokenizer's pieces back to the text they came from (gen.text.token_offsets):
the two are nearly always equal, or differ in their blanks (a run of spaces read as one,
CRLF as LF, a no-break space as a space, a control character dropped) or in a few places.
Method:

1. Each run of blanks (ASCII whitespace and control characters, C1 controls, no-break
   space) stands as one space in a skeleton of each string, so a run of spaces against
   one space is no difference at all.
2. The skeletons' common stretches are followed with C-speed slice comparisons. At a
   difference, Myers' diff aligns the next `WINDOW` bytes of both (E. Myers, "An O(ND)
   difference algorithm", 1986) until either window ends: optimal, so close differences
   never match a stretch to the wrong place ("EntryEntry" against "Entry Entry"). A
   window's end is not the strings' end, so only the stretches that start in its first
   half are kept, and the alignment goes on from the last of them.
3. Back in the strings, a run of blanks is matched only where both runs are the same
   bytes; two different runs are a difference between two matched stretches.

`Unaligned` when a window needs more than `MAX_EDITS` bytes inserted or deleted (or shares
nothing), or more than `WINDOW` bytes are left over at the end.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

#: Bytes of each skeleton that one diff aligns.
WINDOW = 2048
#: The most bytes inserted plus deleted in one window.
MAX_EDITS = 512
#: A run of blanks: C0 controls, space, DEL, C1 controls and no-break space (UTF-8).
BLANKS = re.compile(rb"(?:[\x00-\x20\x7f]|\xc2[\x80-\xa0])+")

#: (i, j, size): a[i:i+size] == b[j:j+size].
Block = tuple[int, int, int]


class Unaligned(Exception):
    """The two strings differ too much from byte `position` of the second on."""

    def __init__(self, position: int) -> None:
        super().__init__(position)
        self.position = position


@dataclass
class _Skeleton:
    """A string with each run of blanks as one space; `starts[k]`: where the k-th byte of
    the skeleton starts in the string (one more entry: the string's length)."""

    text: bytes
    starts: np.ndarray
    #: Skeleton positions of the runs of blanks.
    runs: np.ndarray

    @classmethod
    def of(cls, data: bytes) -> _Skeleton:
        blank = np.zeros(len(data) + 1, bool)
        for match in BLANKS.finditer(data):
            blank[match.start() : match.end()] = True
        first = ~blank[:-1] | np.concatenate([[True], ~blank[:-2]]) if data else blank[:0]
        starts = np.concatenate([np.flatnonzero(first), [len(data)]])
        text = BLANKS.sub(b" ", data)
        runs = np.flatnonzero(np.frombuffer(text, np.uint8) == ord(" "))
        return cls(text, starts, runs)


def matching_blocks(a: bytes, b: bytes) -> list[Block]:
    """The stretches `a` and `b` share, in order, then (len(a), len(b), 0)."""
    first, second = _Skeleton.of(a), _Skeleton.of(b)
    try:
        skeleton_blocks = _aligned(first.text, second.text)
    except Unaligned as exc:
        raise Unaligned(int(second.starts[exc.position])) from None
    blocks = [
        block
        for x, y, size in skeleton_blocks
        for block in _expanded(a, first, x, b, second, y, size)
    ]
    return [*blocks, (len(a), len(b), 0)]


def _aligned(a: bytes, b: bytes) -> list[Block]:
    """Matching blocks of two skeletons (steps 2 of the module docstring)."""
    blocks: list[Block] = []
    i = j = 0
    while i < len(a) and j < len(b):
        size = _common_prefix(a, i, b, j)
        if size:
            blocks.append((i, j, size))
            i, j = i + size, j + size
            continue
        ends = i + WINDOW >= len(a) and j + WINDOW >= len(b)  # the window holds both ends
        found = _myers(a[i : i + WINDOW], b[j : j + WINDOW], j, to_both_ends=ends)
        kept = found if ends else [x for x in found if x[0] < WINDOW // 2] or found[:1]
        if not kept and not ends:
            raise Unaligned(j)
        blocks += [(i + x, j + y, size) for x, y, size in kept]
        if ends:
            i, j = len(a), len(b)
        else:
            x, y, size = kept[-1]
            i, j = i + x + size, j + y + size
    if len(a) - i + len(b) - j > WINDOW:
        raise Unaligned(j)
    return blocks


def _expanded(
    a: bytes, first: _Skeleton, x: int, b: bytes, second: _Skeleton, y: int, size: int
) -> list[Block]:
    """A block of the skeletons as blocks of the strings, cut at each run of blanks whose
    bytes differ between the two (step 3)."""
    blocks = []
    start_x, start_y = x, y
    low, high = np.searchsorted(first.runs, [x, x + size])
    for run in first.runs[low:high].tolist():
        other = y + run - x
        run_a = a[first.starts[run] : first.starts[run + 1]]
        if run_a == b[second.starts[other] : second.starts[other + 1]]:
            continue
        blocks.append((start_x, start_y, run - start_x))
        start_x, start_y = run + 1, other + 1
    blocks.append((start_x, start_y, x + size - start_x))
    return [
        (int(first.starts[i]), int(second.starts[j]), int(first.starts[i + n] - first.starts[i]))
        for i, j, n in blocks
        if n
    ]


def _common_prefix(a: bytes, i: int, b: bytes, j: int) -> int:
    """How many bytes of a[i:] and b[j:] agree from the start (compared in growing steps)."""
    limit = min(len(a) - i, len(b) - j)
    size, step = 0, 16
    while size < limit:
        step = min(step, limit - size)
        if a[i + size : i + size + step] == b[j + size : j + size + step]:
            size += step
            step *= 2
        elif step == 1:
            break
        else:
            step //= 2
    return size


def _myers(a: bytes, b: bytes, position: int, *, to_both_ends: bool) -> list[Block]:
    """A longest common subsequence of `a` and `b` as blocks, from their starts to both
    ends, or else to the end of either (the rest of the other left for the next window);
    `Unaligned(position)` past `MAX_EDITS` edits."""
    n, m = len(a), len(b)
    limit = min(n + m, MAX_EDITS)
    offset = limit + 1
    furthest = [0] * (2 * limit + 3)  # diagonal k = x - y at index k + offset -> furthest x
    trace = []
    for edits in range(limit + 1):
        trace.append(furthest[:])
        for k in range(-edits, edits + 1, 2):
            left, right = furthest[k - 1 + offset], furthest[k + 1 + offset]
            x = right if k == -edits or (k != edits and left < right) else left + 1
            if x < n and x - k < m and a[x] == b[x - k]:
                x += _common_prefix(a, x, b, x - k)
            furthest[k + offset] = x
            y = x - k
            done = (x >= n and y >= m) if to_both_ends else (x >= n or y >= m)
            if done and x <= n and y <= m:
                return _path(trace, offset, x, y)
    raise Unaligned(position)


def _path(trace: list[list[int]], offset: int, x: int, y: int) -> list[Block]:
    """The diagonal stretches of the shortest edit path that ends at (x, y)."""
    blocks = []
    for edits in range(len(trace) - 1, 0, -1):
        furthest, k = trace[edits], x - y
        left, right = furthest[k - 1 + offset], furthest[k + 1 + offset]
        down = k == -edits or (k != edits and left < right)
        previous_k = k + 1 if down else k - 1
        previous_x = furthest[previous_k + offset]
        start_x = previous_x if down else previous_x + 1
        if x > start_x:
            blocks.append((start_x, start_x - k, x - start_x))
        x, y = previous_x, previous_x - previous_k
    if x:
        blocks.append((0, 0, x))
    return blocks[::-1]
