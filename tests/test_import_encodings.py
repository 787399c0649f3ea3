"""`gen import` refuses a tool's export saved in UTF-16 or UTF-32, naming the encoding
found and the format asked for (helpers: tests/import_data.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from import_data import brat_pair, gen_import, jsonl, ls_task, one_line_error


def _doccano(path: Path) -> Path:
    return jsonl(path, {"id": 1, "text": "Anna Rossi lives in Roma.", "label": [[0, 10, "PER"]]})


def _label_studio(path: Path) -> Path:
    path.write_text(json.dumps([ls_task("Anna")]), encoding="utf-8")
    return path


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le"])
@pytest.mark.parametrize("format_args", [(), ("--format", "doccano")])
def test_a_utf16_doccano_file_is_refused_naming_its_encoding_and_format(
    tmp_path: Path, encoding: str, format_args: tuple[str, ...]
) -> None:
    path = tmp_path / "d.jsonl"
    path.write_text(_doccano(tmp_path / "x.jsonl").read_text("utf-8"), encoding=encoding)
    result = gen_import(path, "--run", tmp_path / "run", "--as", "gold", *format_args)
    one_line_error(result, "d.jsonl: UTF-16 LE text")
    assert "doccano's JSONL export" in result.output and "UTF-8" in result.output
    assert "records with id, text and spans" not in result.output


@pytest.mark.parametrize(
    ("write", "message"),
    [
        (lambda d: jsonl(d / "p.jsonl", {"text": "Anna", "_input_hash": 1, "spans": []}),
         "p.jsonl: UTF-16 LE text (with a byte order mark); Prodigy's JSONL is UTF-8"),
        (lambda d: brat_pair(d, "Anna\n", "T1\tPER 0 4\tAnna\n"),
         "d.ann: UTF-16 LE text (with a byte order mark); a BRAT .ann is UTF-8"),
        (lambda d: _label_studio(d / "ls.json"),
         "ls.json: UTF-16 LE text (with a byte order mark); Label Studio's JSON export is UTF-8"),
    ],
)  # fmt: skip
def test_every_tool_s_file_in_utf16_is_refused_naming_its_format(
    tmp_path: Path, write, message: str
) -> None:
    path = write(tmp_path)
    path.write_text(path.read_text("utf-8"), encoding="utf-16")
    one_line_error(gen_import(path, "--run", tmp_path / "run", "--as", "gold"), message)
    assert not (tmp_path / "run").exists()
