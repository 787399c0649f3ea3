"""One plan split over several machines: shard K of N takes the items i with i % N == K.

Each shard writes its own part of a table (`RUN/<table>/shard-K-of-N/`) and every
reader sees the table's parts as one, so N machines on shared storage produce the
records one machine would (see docs/scaling.md).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import count
from pathlib import Path

from gen.core.errors import UsageError

#: Folder name of a shard's part of a table.
SHARD_FOLDER = re.compile(r"shard-(\d+)-of-(\d+)")


@dataclass(frozen=True)
class Shard:
    """Shard `index` of `count`; `Shard(0, 1)` is the whole plan."""

    index: int = 0
    count: int = 1

    def __post_init__(self) -> None:
        if not 0 <= self.index < self.count:
            raise UsageError(
                f"shard {self.index}/{self.count} does not exist: expected K/N with 0 <= K < N"
            )

    @classmethod
    def parse(cls, text: str) -> Shard:
        """`K/N` as typed on the command line."""
        match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
        if not match:
            raise UsageError(f"--shard expects K/N with 0 <= K < N, e.g. 0/4; got {text!r}")
        return cls(int(match.group(1)), int(match.group(2)))

    @property
    def whole(self) -> bool:
        return self.count == 1

    @property
    def folder_name(self) -> str:
        return f"shard-{self.index}-of-{self.count}"

    def owns(self, item: int) -> bool:
        return item % self.count == self.index

    def owns_key(self, key: str) -> bool:
        """For items without a plan index (labeling existing documents): a stable hash of
        the key, so a document belongs to the same shard whatever else the table holds."""
        digest = hashlib.sha256(key.encode()).digest()
        return self.owns(int.from_bytes(digest[:8], "big"))

    def indexes(self) -> Iterator[int]:
        """This shard's plan indexes in order: K, K + N, K + 2N..."""
        return count(self.index, self.count)

    def quota(self, n: int) -> int:
        """How many of the first `n` plan items are this shard's."""
        return len(range(self.index, n, self.count))

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


WHOLE = Shard()


def part_folders(table: Path) -> list[Path]:
    """The parts of a table: its folder, then its shard folders."""
    if not table.is_dir():
        return []
    shards = [p for p in table.iterdir() if SHARD_FOLDER.fullmatch(p.name) and p.is_dir()]
    return [table, *sorted(shards)]


def shard_count(table: Path, part: Path) -> int:
    """N of the shards a part belongs to (1 for the table folder itself)."""
    match = SHARD_FOLDER.fullmatch(part.name)
    return int(match.group(2)) if match and part != table else 1
