"""The export a trainer reads, kept in step with the dataset, and its records.

A trainer trains from `RUN/export/<format>/`. The export is (re)written first when
it is missing, older than `RUN/dataset`, or made with other options than the
trainer needs (another tokenizer, window length...), reusing the split fractions,
seed and held-out document types of the previous export. Scores are computed on
the dataset's own records (exact character spans), looked up by the export's
split ids, so every trainer is scored the same way whatever its format.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gen.core.errors import UsageError
from gen.core.records import Record
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from gen.dataset.splits import SPLIT_NAMES
from gen.export.run import DEFAULT_RATIOS, ExportOptions
from gen.export.run import run as export_run

DEFAULT_SPLIT = ",".join(str(share) for share in DEFAULT_RATIOS.values())


@dataclass
class TrainingData:
    #: The export folder, `RUN/export/<format>`.
    folder: Path
    manifest: dict[str, Any]
    #: train, dev and test records of the dataset (exact character spans).
    splits: dict[str, list[Record]]
    #: The train ids this model learns from (a share of them for a learning curve).
    train_ids: list[str] = field(default_factory=list)
    #: Why the export was written again before training (None: it was up to date).
    reexported: str | None = None

    def subset(self, share: float, seed: int) -> TrainingData:
        """The first `share` of the train ids in a seeded order: shares are nested."""
        ids = sorted(r.id for r in self.splits["train"])
        random.Random(f"curve-{seed}").shuffle(ids)
        count = max(1, math.ceil(share * len(ids)))
        return TrainingData(self.folder, self.manifest, self.splits, sorted(ids[:count]))


def dataset_labels(run: Path) -> list[str]:
    """The span labels of `RUN/dataset` (what a detector trained on it can learn)."""
    paths = RunPaths(Path(run))
    table = RecordTable(paths.dataset)
    if not table.exists():
        raise UsageError(f"no dataset in {paths.dataset}: run `gen build --run {paths.root}` first")
    return sorted({s.label for r in table.read() for s in r.spans})


def _stale_reason(paths: RunPaths, folder: Path, wanted: dict[str, Any]) -> str | None:
    manifest_path = folder / "manifest.json"
    if not manifest_path.is_file():
        return "missing"
    dataset_files = RecordTable(paths.dataset).part_paths()
    newest = max((p.stat().st_mtime for p in dataset_files), default=0.0)
    if newest > manifest_path.stat().st_mtime:
        return "older than the dataset"
    options = json.loads(manifest_path.read_text(encoding="utf-8")).get("options", {})
    differing = [key for key, value in wanted.items() if options.get(key) != value]
    if differing:
        return "made with other " + ", ".join(differing)
    return None


def prepare_export(
    run: Path, format_name: str, settings: dict[str, Any]
) -> tuple[Path, str | None]:
    """The export folder of `format_name`, re-exported first if it is missing, stale, or
    made with other values of the format `settings` the trainer needs; also says why."""
    paths = RunPaths(Path(run))
    folder = paths.export / format_name
    wanted = json.loads(json.dumps(settings, default=str))
    reason = _stale_reason(paths, folder, wanted)
    if reason is not None:
        previous = _previous_manifest(paths)
        options = ExportOptions(
            format_name,
            previous.get("ratios") or DEFAULT_RATIOS,
            int(previous.get("seed", 0)),
            tuple(previous.get("holdout_doc_types", ())),
            settings=settings,
        )
        export_run(paths, options)
    return folder, reason


def _previous_manifest(paths: RunPaths) -> dict[str, Any]:
    """The newest export manifest of the run (any format): its split settings are kept."""
    manifests = sorted(paths.export.glob("*/manifest.json"), key=lambda p: p.stat().st_mtime)
    return json.loads(manifests[-1].read_text(encoding="utf-8")) if manifests else {}


def load_training_data(
    run: Path,
    format_name: str,
    settings: dict[str, Any],
    required: Sequence[str] = SPLIT_NAMES,
) -> TrainingData:
    """The export (fresh) and the dataset records of its splits; one clear error for a
    missing or empty split."""
    folder, reason = prepare_export(run, format_name, settings)
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    split_ids: dict[str, list[str]] = manifest["splits"]
    present = ", ".join(split_ids) or "none"
    for name in required:
        if name not in split_ids:
            raise UsageError(
                f"{folder} has no {name} split (it has: {present}); export with three "
                f"fractions, e.g. gen export --run {run} --format {format_name} "
                f"--split {DEFAULT_SPLIT}"
            )
    for name in required:
        if not split_ids[name]:
            raise UsageError(
                f"the {name} split of {folder} is empty; the dataset needs more records "
                "(gen documents / gen queries, then gen build)"
            )
    dataset = {r.id: r for r in RecordTable(RunPaths(Path(run)).dataset).read()}
    splits = {name: [dataset[i] for i in ids if i in dataset] for name, ids in split_ids.items()}
    return TrainingData(folder, manifest, splits, sorted(split_ids["train"]), reason)
