"""An output place that cannot be written (`--out` on a read-only folder) is refused before
any work, naming the folder that refuses, exit 2; and a command that writes beside `--out`
leaves nothing there when it is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from export_fixtures import unwritable

from gen.cli import main
from gen.core.errors import StorageError
from gen.core.staging import folder_lock


def one_line(result, code: int) -> str:
    assert result.exit_code == code, result.output
    (line,) = result.output.strip().splitlines()
    assert "Traceback" not in result.output
    return line


def _fake_detector(folder: Path) -> Path:
    """A model folder that `gen predict` names as one but cannot load: loading it would be
    an error of its own, so the test sees that nothing was loaded or predicted."""
    folder.mkdir()
    (folder / "detector.json").write_text(json.dumps({"trainer": "spacy"}))
    return folder


@pytest.mark.parametrize("inside", ["found.jsonl", "sub/deeper/found.jsonl"])
def test_predict_into_a_read_only_folder_is_refused_before_anything_is_read(tmp_path, inside):
    model = _fake_detector(tmp_path / "model")
    locked = tmp_path / "mount"
    locked.mkdir()
    with unwritable(locked):
        result = CliRunner().invoke(
            main,
            [
                "predict",
                "--model",
                str(model),
                str(tmp_path / "nothing-here"),
                "--out",
                str(locked / inside),
            ],
        )
    line = one_line(result, 2)
    assert line.startswith(f"error: --out {locked / inside}: {locked} is not writable (")
    assert not (locked / "sub").exists()


def test_train_into_a_read_only_mount_names_it_not_its_parent(tmp_path):
    locked = tmp_path / "models" / "mount"
    locked.mkdir(parents=True)
    with unwritable(locked):
        result = CliRunner().invoke(
            main, ["train", "--run", str(tmp_path / "run"), "--out", str(locked)]
        )
    line = one_line(result, 2)
    assert line.startswith(f"error: --out {locked}: {locked} is not writable (")
    assert sorted(p.name for p in locked.parent.iterdir()) == ["mount"]


def test_inspect_and_review_files_into_a_read_only_folder_are_refused(tmp_path):
    locked = tmp_path / "mount"
    locked.mkdir()
    run = str(tmp_path / "run")
    with unwritable(locked):
        page = CliRunner().invoke(main, ["inspect", "--run", run, "--out", str(locked / "p.html")])
        tasks = CliRunner().invoke(main, ["review", "push", "--run", run, "--out", str(locked)])
    assert f"error: --out {locked / 'p.html'}: {locked} is not writable (" in one_line(page, 2)
    assert f"error: --out {locked / 'tasks.json'}: {locked} is not writable (" in one_line(tasks, 2)


def test_a_file_where_a_folder_should_be_is_named(tmp_path):
    blocker = tmp_path / "notes.txt"
    blocker.write_text("a file")
    model = _fake_detector(tmp_path / "model")
    result = CliRunner().invoke(
        main, ["predict", "--model", str(model), str(tmp_path), "--out", str(blocker / "x.jsonl")]
    )
    assert f"{blocker} is a file, not a folder" in one_line(result, 2)


def test_a_refused_lock_names_the_folder_it_could_not_write(tmp_path):
    locked = tmp_path / "models"
    locked.mkdir()
    with (
        unwritable(locked),
        pytest.raises(StorageError) as caught,
        folder_lock(locked, "spacy", "`gen train`"),
    ):
        pass
    assert f"check that {locked} is a writable folder" in str(caught.value)


def test_the_lock_file_goes_with_the_lock(tmp_path):
    with folder_lock(tmp_path, "spacy", "`gen train`"):
        assert (tmp_path / ".spacy.lock").is_file()
    assert list(tmp_path.iterdir()) == []
