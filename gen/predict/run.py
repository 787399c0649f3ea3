"""`gen predict`: a trained detector applied to new texts.

Inputs: a JSONL or Parquet file of records (at least `id` and `text`, validated
by `gen.core.record_files`), a record table folder (e.g. `RUN/labeled`), a run folder with
`--split` (records of that split of its newest export, or `all` of the dataset),
a `.txt` file or a folder of them (one document each, id = its path inside the folder
without `.txt`, read and named as `gen import` reads and names it:
gen.core.record_files.read_text_file and file_record_id; the folder's other files are
skipped and listed, as `gen import` lists the files no reader takes).
The output is the same records with the detector's spans (`source = model`); a record
the detector cannot read (gen.predict.detector.UnreadTexts) is left out of it, named and
counted, and the others go on.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from gen.core.errors import UsageError
from gen.core.files import check_writable, write_atomic
from gen.core.progress import progress
from gen.core.record_files import (
    file_record_id,
    is_text_file,
    listed,
    read_record_file,
    read_text_file,
)
from gen.core.records import Record, check_spans
from gen.core.runs import RunPaths
from gen.core.store import RecordTable, write_records
from gen.predict.detector import Detector, UnreadTexts
from gen.predict.windows import resolve_overlaps
from gen.text.words import snap_to_words

BATCH = 32
SPLITS = ("train", "dev", "test", "all")


@dataclass
class Predictions:
    records: list[Record]
    #: Record id -> why the detector could not read it; these are not in `records`.
    unread: dict[str, str]


@dataclass
class PredictReport:
    documents: int
    spans: int
    seconds: float
    out: Path
    #: Record id -> why the detector could not read it (left out of `out`).
    unread: dict[str, str]

    @property
    def documents_per_second(self) -> float:
        return self.documents / self.seconds if self.seconds else 0.0


def _text_files(folder: Path, skipped: list[Path]) -> list[Record]:
    """The documents of the .txt files of `folder`; its other files go to `skipped`."""
    found = sorted(p for p in folder.rglob("*") if p.is_file())
    files = [path for path in found if is_text_file(path)]
    others = [path for path in found if not is_text_file(path)]
    if not files:
        only = f" (only files that are not .txt: {listed(others)})" if others else ""
        raise UsageError(f"{folder} holds no .txt files{only}")
    skipped.extend(others)
    return [_text_record(path, folder) for path in files]


def _text_record(path: Path, folder: Path | None = None) -> Record:
    text = read_text_file(path)
    return Record(file_record_id(path, folder), text, "", "", "", source="import")


def _run_split(run: Path, split: str) -> list[Record]:
    paths = RunPaths(run)
    records = RecordTable(paths.dataset).read()
    if split == "all":
        return records
    manifests = sorted(paths.export.glob("*/manifest.json"), key=lambda p: p.stat().st_mtime)
    if not manifests:
        raise UsageError(f"{run} has no export yet: run gen export, or pass --split all")
    ids = json.loads(manifests[-1].read_text(encoding="utf-8"))["splits"].get(split)
    if ids is None:
        raise UsageError(
            f"the newest export of {run} ({manifests[-1].parent}) has no {split} split"
        )
    wanted = set(ids)
    chosen = [r for r in records if r.id in wanted]
    if not chosen:
        raise UsageError(
            f"the {split} split of {manifests[-1].parent} is empty; choose another --split"
        )
    return chosen


def read_inputs(path: Path, split: str = "test", skipped: list[Path] | None = None) -> list[Record]:
    """The records of INPUT, whatever its form (see the module docstring); the files of a
    folder of text files that are not .txt are added to `skipped` (the caller lists them,
    as `gen import` lists the files no reader takes)."""
    path = Path(path)
    if not path.exists():
        raise UsageError(f"input {path} not found")
    if path.is_dir():
        if (path / "dataset").is_dir():
            return _run_split(path, split)
        if RecordTable(path).exists():
            return read_record_file(path, "input")
        return _text_files(path, [] if skipped is None else skipped)
    if path.suffix in (".jsonl", ".parquet"):
        return read_record_file(path, "input")
    if is_text_file(path):
        return [_text_record(path)]
    raise UsageError(
        f"input {path}: expected a .jsonl or .parquet file, a run or record folder, "
        "a .txt file or a folder of them"
    )


def predict_records(
    detector: Detector, records: Sequence[Record], *, description: str = "predict"
) -> Predictions:
    """The records with the detector's spans in place of theirs, on whole words (a model's
    offsets may cut a grapheme cluster or take in a line break: `snap_to_words`), checked;
    the records it cannot read apart."""
    out, unread = [], {}
    with progress(description, len(records)) as bar:
        for start in range(0, len(records), BATCH):
            batch = records[start : start + BATCH]
            try:
                found = detector.predict([r.text for r in batch])
                reasons: dict[int, str] = {}
            except UnreadTexts as exc:
                found, reasons = exc.results, exc.reasons
            for index, (record, spans) in enumerate(zip(batch, found, strict=True)):
                if index in reasons:
                    unread[record.id] = reasons[index]
                    continue
                spans = resolve_overlaps(snap_to_words(record.text, spans))
                check_spans(record.text, spans, record_id=record.id)
                out.append(replace(record, spans=spans))
            bar.advance(len(batch))
    return Predictions(out, unread)


def unread_lines(unread: dict[str, str]) -> list[str]:
    """One line per record a detector could not read, naming it and why."""
    return [f"left out {record_id}: {reason}" for record_id, reason in unread.items()]


def write_predictions(path: Path, records: Sequence[Record]) -> None:
    """JSONL (one record per line) or Parquet, by the file's suffix; whole or nothing."""
    path = Path(path)
    if path.suffix == ".parquet":
        write_records(path, records)
    elif path.suffix == ".jsonl":
        lines = "".join(json.dumps(r.to_row(), ensure_ascii=False) + "\n" for r in records)
        write_atomic(path, lines.encode())
    else:
        raise UsageError(f"--out {path}: expected a .jsonl or .parquet file name")


def check_out(out: Path) -> None:
    """A wrong or unwritable `--out` is refused before anything is read or predicted."""
    if Path(out).suffix not in (".jsonl", ".parquet"):
        raise UsageError(f"--out {out}: expected a .jsonl or .parquet file name")
    check_writable(out, "--out")


def predict_file(detector: Detector, source: Path, out: Path, split: str = "test") -> PredictReport:
    """The records of INPUT with the detector's spans, written to `out` whole."""
    check_out(out)
    return predict_to_file(detector, read_inputs(source, split), out)


def predict_to_file(detector: Detector, records: Sequence[Record], out: Path) -> PredictReport:
    """`records` with the detector's spans, written to `out` whole (`gen predict` reads its
    input first, so bad input is refused before a model is loaded)."""
    started = time.perf_counter()
    predicted = predict_records(detector, records)
    seconds = time.perf_counter() - started
    write_predictions(out, predicted.records)
    spans = sum(len(r.spans) for r in predicted.records)
    return PredictReport(len(predicted.records), spans, seconds, Path(out), predicted.unread)
