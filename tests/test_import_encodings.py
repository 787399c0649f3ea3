"""`gen import` refuses a file saved in UTF-16 or UTF-32, naming the encoding found and
the format asked for, in every reader, and `gen predict` its `.txt` files alike (one rule:
gen.core.encodings; helpers: tests/import_data.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from import_data import brat_pair, gen_import, jsonl, ls_task, one_line_error

from gen.cli import main


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


# -- one rule for every reader (gen.core.encodings) ---------------------------------------------

LETTER = "Anna Rossi has lived with asthma since 2019.\n"


def _text(folder: Path) -> Path:
    path = folder / "letter.txt"
    path.write_text(LETTER, encoding="utf-8")
    return path


def _records(folder: Path) -> Path:
    return jsonl(folder / "records.jsonl", {"id": "a", "text": LETTER, "spans": []})


def _conll(folder: Path) -> Path:
    path = folder / "tags.conll"
    path.write_text("Anna\tB-PERSON\nRossi\tI-PERSON\nsmiles\tO\n", encoding="utf-8")
    return path


def _brat_text(folder: Path) -> Path:
    brat_pair(folder, LETTER, "T1\tPERSON 0 10\tAnna Rossi\n")
    return folder / "d.txt"


@pytest.mark.parametrize(
    ("write", "target"),
    [(_text, "documents"), (_records, "gold"), (_conll, "gold"), (_brat_text, "gold")],
)
@pytest.mark.parametrize(
    ("encoding", "found"),
    [
        ("utf-16", "UTF-16 LE text (with a byte order mark)"),
        ("utf-16-le", "UTF-16 LE text (without a byte order mark)"),
        ("utf-16-be", "UTF-16 BE text (without a byte order mark)"),
        ("utf-32", "UTF-32 LE text (with a byte order mark)"),
        ("utf-32-be", "UTF-32 BE text (without a byte order mark)"),
    ],
)
def test_every_reader_names_the_encoding_of_a_utf16_or_utf32_file(
    tmp_path: Path, write, target: str, encoding: str, found: str
) -> None:
    path = write(tmp_path)
    path.write_text(path.read_text("utf-8"), encoding=encoding)
    given = tmp_path / "d.ann" if path.name == "d.txt" else path
    result = gen_import(given, "--run", tmp_path / "run", "--as", target)
    one_line_error(result, f"{path}: {found}; ")
    assert "is UTF-8: save it as UTF-8 (e.g. iconv -f " in result.output
    assert not (tmp_path / "run").exists()


def test_a_text_with_nul_bytes_elsewhere_is_refused_and_utf8_text_is_read(tmp_path: Path) -> None:
    path = _text(tmp_path)
    path.write_bytes(b"Anna\x00\x00\x00 Rossi\n")
    one_line_error(
        gen_import(path, "--run", tmp_path / "run", "--as", "documents"),
        f"{path}: byte 4 is a NUL byte, which no text holds",
    )
    # Chinese and Cyrillic text, and a UTF-8 byte order mark, are UTF-8 text as ever.
    path.write_text("\ufeff李小龍住在香港。Привет, мир.\n", encoding="utf-8")
    result = gen_import(path, "--run", tmp_path / "run", "--as", "documents")
    assert result.exit_code == 0 and "1 records added" in result.output, result.output


def test_predict_refuses_a_utf16_text_in_a_folder_before_the_model_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gen.cli.predict as predict_command

    folder = tmp_path / "letters"
    folder.mkdir()
    (folder / "a.txt").write_text(LETTER, encoding="utf-8")
    (folder / "le.txt").write_text(LETTER, encoding="utf-16-le")
    monkeypatch.setattr(predict_command, "detector_info", lambda model: {})
    loaded: list[Path] = []
    monkeypatch.setattr(predict_command, "load_detector", lambda model, **kw: loaded.append(model))
    out = tmp_path / "found.jsonl"
    result = CliRunner().invoke(
        main, ["predict", "--model", str(tmp_path), str(folder), "--out", str(out)]
    )
    one_line_error(result, f"{folder / 'le.txt'}: UTF-16 LE text (without a byte order mark)")
    assert not loaded and not out.exists()
