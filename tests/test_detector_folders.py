"""A damaged detector folder is one line and exit status 2 wherever a detector is loaded:
`gen predict`, `gen label --strategy detector`, `gen review push --select uncertain`.

The encoder detector's folder is written here by hand (a head of plain arrays over a
stand-in encoder file): loading checks it without running a model."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from label_fakes import documents
from review_data import make_run

from gen.backends.models import file_sha256
from gen.cli import main
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from gen.predict.loader import load_detector
from gen.train.encoder_detector import FORMAT, HEAD_FILE, EncoderDetector

FEATURES = 6
LABELS = ["health", "politic"]
THRESHOLDS = [0.45, 0.6]


def head_arrays(**changes: np.ndarray) -> dict[str, np.ndarray]:
    rows = len(LABELS) + 1
    arrays = {
        "mean": np.zeros(FEATURES),
        "scale": np.ones(FEATURES),
        "coef": np.arange(rows * FEATURES, dtype=float).reshape(rows, FEATURES),
        "intercept": np.zeros(rows),
        "classes": np.array(["none", *LABELS]),
        "thresholds": np.array(THRESHOLDS),
    }
    return {**arrays, **changes}


def encoder_folder(root: Path) -> Path:
    """A well-formed encoder detector folder; its encoder is a stand-in file."""
    folder = root / "detector"
    folder.mkdir(parents=True)
    encoder = root / "encoder.gguf"
    encoder.write_bytes(b"GGUF stand-in")
    info = {
        "trainer": "encoder",
        "format": FORMAT,
        "encoder": str(encoder),
        "encoder_sha256": file_sha256(encoder),
        "window": 512,
        "overlap": 64,
        "unit": "clause",
        "languages": ["en"],
        "identifiers": [],
        "labels": LABELS,
        "thresholds": dict(zip(LABELS, THRESHOLDS, strict=True)),
    }
    (folder / "detector.json").write_text(json.dumps(info))
    np.savez(folder / HEAD_FILE, **head_arrays())
    return folder


def edit_info(folder: Path, **changes: object) -> None:
    path = folder / "detector.json"
    info = json.loads(path.read_text())
    info.update(changes)
    path.write_text(json.dumps({k: v for k, v in info.items() if v is not None}))


def truncate_head(folder: Path) -> None:
    data = (folder / HEAD_FILE).read_bytes()
    (folder / HEAD_FILE).write_bytes(data[: len(data) // 2])


DAMAGES: dict[str, tuple[Callable[[Path], None], str]] = {
    "truncated head": (truncate_head, f"{HEAD_FILE}: not an encoder head"),
    "mismatched shapes": (
        lambda f: np.savez(f / HEAD_FILE, **head_arrays(mean=np.zeros(FEATURES + 1))),
        "array shapes",
    ),
    "a class too few": (
        lambda f: np.savez(f / HEAD_FILE, **head_arrays(classes=np.array(["none", "health"]))),
        "do not fit the head's 3 rows",
    ),
    "no unit": (lambda f: edit_info(f, unit=None), "detector.json: unit: required key"),
    "no encoder_sha256": (
        lambda f: edit_info(f, encoder_sha256=None),
        "encoder_sha256: required key is missing",
    ),
    "window big": (lambda f: edit_info(f, window="big"), "window: Input should be a valid integer"),
    "overlap past window": (lambda f: edit_info(f, overlap=600), "overlap 600 must be smaller"),
    "labels not the head's": (
        lambda f: edit_info(f, labels=["politic", "health"]),
        "differ from those of encoder_head.npz",
    ),
    "thresholds not the head's": (
        lambda f: edit_info(f, thresholds={"health": 0.9, "politic": 0.6}),
        "differ from those of encoder_head.npz",
    ),
    "no trainer": (lambda f: edit_info(f, trainer=None), "trainer: required key is missing"),
}


def test_a_well_formed_folder_loads(tmp_path: Path) -> None:
    detector = load_detector(encoder_folder(tmp_path))
    assert isinstance(detector, EncoderDetector)
    assert detector.labels == LABELS and detector.thresholds.tolist() == THRESHOLDS
    with zipfile.ZipFile(tmp_path / "detector" / HEAD_FILE) as archive:  # plain arrays
        assert sorted(archive.namelist())[0] == "classes.npy"


def _one_line_exit_2(args: list[str], message: str) -> None:
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and result.exception is not None
    (line,) = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert message in line, result.output
    assert not isinstance(result.exception, (KeyError, TypeError, ValueError, zipfile.BadZipFile))


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_a_damaged_folder_is_one_line_everywhere_it_is_loaded(tmp_path: Path, damage: str) -> None:
    folder = encoder_folder(tmp_path)
    change, message = DAMAGES[damage]
    change(folder)
    texts = tmp_path / "input.jsonl"
    texts.write_text(json.dumps({"id": "a", "text": "Anna has asthma."}) + "\n")
    out = tmp_path / "predictions.jsonl"
    _one_line_exit_2(["predict", str(texts), "--model", str(folder), "--out", str(out)], message)
    assert not out.exists()
    run = RunPaths(tmp_path / "run")
    with RecordTable(run.documents) as table:
        table.extend(documents())
    label = ["label", "--run", str(run.root), "--strategy", "detector", "--detector", str(folder)]
    _one_line_exit_2(label, message)
    assert not RecordTable(run.labeled).read()
    review_run = make_run(tmp_path / "review-run")
    push = ["review", "push", "--run", str(review_run), "--out", str(tmp_path / "tasks")]
    push += ["--select", "uncertain", "--sample", "1", "--detector", str(folder)]
    _one_line_exit_2(push, message)
    assert not (tmp_path / "tasks").exists()
