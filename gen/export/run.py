"""`gen export`: the built dataset, split leak-free, in the format a trainer reads.

Each format is one module with a function `export(splits, folder, options) -> dict`
writing one file (or folder) per split into `folder` and returning what it wants
recorded in the manifest (label names, spans it could not align...). Heavy
libraries are imported inside the format that needs them.
"""

from __future__ import annotations

import importlib
import shutil
import uuid
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from gen.core.errors import StorageError, UsageError
from gen.core.packs import negative_labels
from gen.core.records import Record
from gen.core.runs import RunPaths
from gen.core.store import RecordTable, write_atomic, write_json_atomic
from gen.dataset.splits import split_records
from gen.text.words import TAG_SCHEMES

#: format name -> "module:function" (imported on use).
FORMATS: dict[str, str] = {
    "parquet": "gen.export.formats.records:export_parquet",
    "jsonl": "gen.export.formats.records:export_jsonl",
    "conll": "gen.export.formats.conll:export_conll",
    "hf-tokens": "gen.export.formats.hf_tokens:export_hf_tokens",
    "sentences": "gen.export.formats.sentences:export_sentences",
    "sentences-context": "gen.export.formats.sentences:export_sentences_context",
    "spacy": "gen.export.formats.spacy_docbin:export_spacy",
}
ALIGNMENT_MODES = ("strict", "contract", "expand")

Exporter = Callable[[dict[str, list[Record]], Path, "ExportOptions"], dict[str, object]]


@dataclass(frozen=True)
class ExportOptions:
    #: Word/token tag scheme: IO (as in the thesis) or BIO.
    scheme: str = "io"
    #: hf-tokens: a tokenizer folder (with tokenizer.json) or a tokenizer.json file.
    tokenizer: Path | None = None
    #: hf-tokens: window length in tokens (thesis best: 100).
    length: int = 100
    #: Overlap between windows: tokens for hf-tokens (default 20), words for
    #: sentences-context (default 6, as in the thesis's Table 3.7).
    stride: int | None = None
    chunk_width: int = 7
    context_width: int = 15
    separator: str = "[SEP]"
    #: spacy: how a span that cuts a token is snapped to token edges.
    alignment_mode: str = "expand"
    #: sentences, sentences-context: labels meaning "not sensitive" (categories.yaml);
    #: a row no span touches gets the first.
    negative_labels: tuple[str, ...] = field(default_factory=negative_labels)

    def __post_init__(self) -> None:
        if self.scheme not in TAG_SCHEMES:
            raise UsageError(f"unknown tag scheme {self.scheme!r}; expected one of {TAG_SCHEMES}")
        if self.alignment_mode not in ALIGNMENT_MODES:
            raise UsageError(
                f"unknown alignment mode {self.alignment_mode!r}; expected one of {ALIGNMENT_MODES}"
            )
        for name in ("length", "chunk_width", "context_width"):
            if getattr(self, name) < 1:
                raise UsageError(f"--{name.replace('_', '-')} must be at least 1")
        if self.stride is not None and self.stride < 0:
            raise UsageError("--stride must not be negative")
        if self.context_width < self.chunk_width:
            raise UsageError("--context-width must be at least --chunk-width")


def exporter(name: str) -> Exporter:
    if name not in FORMATS:
        raise UsageError(f"unknown export format {name!r}; expected one of {sorted(FORMATS)}")
    module, function = FORMATS[name].split(":")
    return getattr(importlib.import_module(module), function)


def require(module: str) -> object:
    """Import an optional library, or say how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise UsageError(
            f"this export format needs the `{module}` package: pip install 'gen[export]'"
        ) from None


def label_names(records: Sequence[Record]) -> list[str]:
    return sorted({span.label for record in records for span in record.spans})


@dataclass
class ExportReport:
    format: str
    folder: Path
    counts: dict[str, int]
    details: dict[str, object]


def export_run(
    run: Path,
    format_name: str,
    ratios: dict[str, float],
    seed: int,
    options: ExportOptions,
    holdout_doc_types: Sequence[str] = (),
) -> ExportReport:
    """Split `RUN/dataset` and write it as `format_name` into `RUN/export/<format>/`.

    Files go to a fresh folder that replaces the previous export in one rename,
    so a reader never sees a mix of two exports.
    """
    from gen.export.card import dataset_card

    export = exporter(format_name)
    paths = RunPaths(Path(run))
    if not RecordTable(paths.dataset).exists():
        raise UsageError(f"no dataset in {paths.dataset}: run `gen build --run {paths.root}` first")
    records = RecordTable(paths.dataset).read()
    splits = split_records(records, ratios, seed, holdout_doc_types)
    target = paths.export / format_name
    staging = paths.export / f".{format_name}.{uuid.uuid4().hex}.tmp"
    try:
        details = export(splits, staging, options)
        manifest = {
            "format": format_name,
            "seed": seed,
            "ratios": ratios,
            "holdout_doc_types": list(holdout_doc_types),
            "options": asdict(options),
            "counts": {name: len(members) for name, members in splits.items()},
            "groups": {name: len({r.group for r in members}) for name, members in splits.items()},
            "splits": {name: [r.id for r in members] for name, members in splits.items()},
            "details": details,
        }
        write_json_atomic(staging / "manifest.json", manifest)
        write_atomic(staging / "README.md", dataset_card(paths, records, manifest).encode())
        _swap(staging, target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return ExportReport(format_name, target, manifest["counts"], details)


def _swap(staging: Path, target: Path) -> None:
    old = target.with_name(f".{target.name}.{uuid.uuid4().hex}.old")
    try:
        if target.exists():
            target.rename(old)
        staging.rename(target)
    except OSError as exc:
        raise StorageError(f"cannot replace {target}: {exc.strerror or exc}") from exc
    shutil.rmtree(old, ignore_errors=True)
