"""Where each stage keeps its output inside a run folder (default `outputs/`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gen.core.shards import WHOLE, Shard

DEFAULT_RUN = Path("outputs")


@dataclass(frozen=True)
class RunPaths:
    root: Path

    @property
    def documents(self) -> Path:
        return self.root / "documents"

    @property
    def labeled(self) -> Path:
        return self.root / "labeled"

    @property
    def quality(self) -> Path:
        """The quality scores of the generated documents (`gen score`), one record per
        document, joined to it by id in `gen build` and `gen inspect`."""
        return self.root / "quality"

    @property
    def translated(self) -> Path:
        """Records translated into another language with their spans (`gen translate`),
        beside the documents they translate."""
        return self.root / "translated"

    @property
    def gold(self) -> Path:
        """Hand-checked records (`gen import --as gold`, `gen review pull`), the reference that
        labels and detectors are scored against."""
        return self.root / "gold"

    @property
    def wikipedia(self) -> Path:
        return self.root / "wikipedia"

    @property
    def queries(self) -> Path:
        return self.root / "queries"

    @property
    def dataset(self) -> Path:
        return self.root / "dataset"

    @property
    def export(self) -> Path:
        return self.root / "export"

    @property
    def review(self) -> Path:
        """Where the run was pushed for review (server, project, table)."""
        return self.root / "review"

    @property
    def stats(self) -> Path:
        return self.root / "stats"

    @property
    def bench(self) -> Path:
        return self.root / "bench"

    @property
    def cache(self) -> Path:
        return self.root / "cache"

    def rejects(self, stage: str) -> Path:
        """Records a stage refused (raw output + reason in `meta`), never dropped silently."""
        return self.root / "rejects" / stage

    def reject_folders(self) -> list[Path]:
        """The rejects table of every stage that refused something, by stage name."""
        return sorted(p for p in (self.root / "rejects").glob("*") if p.is_dir())

    def manifest(self, stage: str, shard: Shard = WHOLE) -> Path:
        """A stage's provenance and counts; each shard of a split plan writes its own."""
        name = stage if shard.whole else f"{stage}.{shard.folder_name}"
        return self.root / "manifests" / f"{name}.json"
