"""`gen export`: the built dataset, split leak-free, in the format a trainer reads.

Steps: read `RUN/dataset`, split it (gen.dataset.splits), let the format write
one file per split into a staging folder, read the files back with the format's
checker, add the manifest and the dataset card, and swap the folder in as
`RUN/export/<format>` (gen.core.staging). A malformed export is refused with
one line and the previous export stays as it was. Formats are plug-ins
(gen.export.registry); nothing here names one.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from gen.core.errors import GenError, UsageError
from gen.core.files import write_atomic, write_json_atomic
from gen.core.progress import progress
from gen.core.records import Record
from gen.core.runs import RunPaths
from gen.core.staging import folder_lock, new_staging, remove_leftovers, swap_in
from gen.core.store import RecordTable
from gen.dataset.splits import split_records
from gen.export.base import ExportFormat, ExportJob, FormatSettings, Splits
from gen.export.card import dataset_card
from gen.export.checks import summarize
from gen.export.registry import export_format

DEFAULT_RATIOS = {"train": 0.8, "dev": 0.1, "test": 0.1}


class MalformedExportError(GenError):
    """The written files fail the format's own check; nothing was replaced."""


@dataclass(frozen=True)
class ExportOptions:
    format: str
    ratios: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_RATIOS))
    seed: int = 0
    #: Document types whose groups all go to the test split.
    holdout_doc_types: tuple[str, ...] = ()
    #: The format's own options by name (`--scheme` -> "scheme"); others keep their defaults.
    settings: Mapping[str, Any] = field(default_factory=dict)
    #: Prompt packs for the sentence splitter's abbreviations (None: the default folder).
    prompts_dir: Path | None = None


@dataclass
class ExportSummary:
    format: str
    folder: Path
    counts: dict[str, int]
    #: What the format recorded in the manifest (label names, unaligned spans...).
    details: dict[str, Any]
    #: Staging folders of killed exports that this run deleted.
    removed_leftovers: list[Path]


def run(paths: RunPaths, options: ExportOptions) -> ExportSummary:
    """Split `RUN/dataset` and write it as `options.format` into `RUN/export/<format>/`."""
    export = export_format(options.format)
    settings = export.make_settings(options.settings)
    records = _dataset(paths)
    splits = split_records(records, dict(options.ratios), options.seed, options.holdout_doc_types)
    target = paths.export / export.name
    with folder_lock(paths.export, export.name, f"`gen export --format {export.name}`"):
        removed = remove_leftovers(paths.export, export.name)
        staging = new_staging(paths.export, export.name)
        try:
            with progress(f"export {export.name}", len(records)) as bar:
                job = ExportJob(splits, staging, settings, options.prompts_dir, bar)
                details = export.write(job)
                if bar.done < len(records):  # a format that writes whole splits at once
                    bar.advance(len(records) - bar.done)
            _check(export, job, details, target)
            manifest = _manifest(options, settings, splits, details)
            write_json_atomic(staging / "manifest.json", manifest)
            card = dataset_card(paths, records, manifest, export.usage)
            write_atomic(staging / "README.md", card.encode())
            swap_in(staging, target)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return ExportSummary(export.name, target, manifest["counts"], details, removed)


def _dataset(paths: RunPaths) -> list[Record]:
    table = RecordTable(paths.dataset)
    if not table.exists():
        raise UsageError(f"no dataset in {paths.dataset}: run `gen build --run {paths.root}` first")
    return table.read()


def _check(export: ExportFormat, job: ExportJob, details: dict[str, Any], target: Path) -> None:
    problems = export.check(job, details) if export.check else []
    if problems:
        raise MalformedExportError(
            f"{export.name} export refused, {len(problems)} problem(s) in the written files: "
            f"{summarize(problems)}; {target} was left as it was"
        )


def _manifest(
    options: ExportOptions, settings: FormatSettings, splits: Splits, details: dict[str, Any]
) -> dict[str, Any]:
    return {
        "format": options.format,
        "seed": options.seed,
        "ratios": dict(options.ratios),
        "holdout_doc_types": list(options.holdout_doc_types),
        "options": asdict(settings),
        "counts": {name: len(members) for name, members in splits.items()},
        "groups": {name: len({r.group for r in members}) for name, members in splits.items()},
        "splits": {name: [r.id for r in members] for name, members in splits.items()},
        "details": details,
    }
