"""What earlier calls stored for a plan, so that a call asks only for the missing items."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from gen.core.packs import LanguagePack
from gen.core.runs import RunPaths
from gen.core.shards import Shard
from gen.core.store import RecordTable
from gen.generate.checks import DuplicateIndex
from gen.generate.plan_spec import PlanSpec
from gen.generate.records import STAGE


@dataclass
class Resume:
    spec: PlanSpec
    shard: Shard
    #: Accepted documents of the plan's items in this shard.
    accepted: int
    #: Ids of the plan's items already stored, accepted or rejected.
    attempted: set[str]
    #: Accepted texts of the language (every shard), which new documents must not repeat.
    duplicates: DuplicateIndex

    def pending(self) -> Iterator[int]:
        """Indexes of this shard's plan items not yet attempted, in order."""
        key = self.spec.key
        return (i for i in self.shard.indexes() if f"{key}-{i:06d}" not in self.attempted)


def resume(paths: RunPaths, pack: LanguagePack, spec: PlanSpec, shard: Shard) -> Resume:
    prefix = f"{spec.key}-"

    def planned(record_id: str) -> bool:  # an item of this plan and of this shard
        index = record_id.removeprefix(prefix)
        return record_id.startswith(prefix) and index.isdigit() and shard.owns(int(index))

    stored = RecordTable(paths.documents).read()
    done = {record.id for record in stored if planned(record.id)}
    rejected = {i for i in RecordTable(paths.rejects(STAGE)).ids() if planned(i)}
    duplicates = DuplicateIndex(pack.generation.checks.near_duplicate_ratio)
    for record in stored:
        if record.language == spec.language:
            duplicates.add(record.text)
    return Resume(spec, shard, len(done), done | rejected, duplicates)
