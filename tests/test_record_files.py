"""Record files made outside gen (JSONL, Parquet, record folders): every reader reads them
the same way, and anything that is no valid record is one line naming the file, the line
and the key."""

from __future__ import annotations

import json
from pathlib import Path
from typing import ClassVar

import pytest
from click.testing import CliRunner

from gen.cli import main
from gen.core.errors import UsageError
from gen.core.record_files import read_record_file
from gen.core.records import Record, Span
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from gen.evaluate.run import evaluate_files
from gen.predict.run import predict_file

#: Line and paragraph separators and NEXT LINE: legal inside a JSON string, and line
#: breaks to `str.splitlines`.
SEPARATORS = "\u2028\u2029\u0085"


def test_jsonl_lines_end_at_newlines_only(tmp_path: Path) -> None:
    text = f"Mario{SEPARATORS}has asthma."
    rows = [{"id": "a", "text": text, "spans": [{"start": 12, "end": 18, "label": "health"}]}]
    rows.append({"id": "b", "text": "two"})
    path = tmp_path / "x.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    first, second = read_record_file(path)
    assert first.text == text and first.text[12:18] == "asthma"
    assert second.id == "b"


def test_export_jsonl_reads_its_own_output_back(tmp_path: Path) -> None:
    text = f"Anna Rossi{SEPARATORS}lives in Rome."
    record = Record("a", text, "other", "letter", "en", "llm", [Span(0, 10, "PERSON", "faker")])
    RecordTable(RunPaths(tmp_path).dataset).replace([record])
    result = CliRunner().invoke(
        main, ["export", "--run", str(tmp_path), "--format", "jsonl", "--split", "1,0,0"]
    )
    assert result.exit_code == 0, result.output
    (back,) = read_record_file(RunPaths(tmp_path).export / "jsonl" / "train.jsonl")
    assert back == record


class NameFinder:
    """A detector that labels every `Anna` (enough to write predictions)."""

    labels: ClassVar[list[str]] = ["PERSON"]

    def predict(self, texts):
        return [
            [Span(i, i + 4, "PERSON", "model")] if (i := text.find("Anna")) >= 0 else []
            for text in texts
        ]


def test_predictions_of_a_text_file_with_a_line_separator_can_be_scored(tmp_path: Path) -> None:
    folder = tmp_path / "texts"
    folder.mkdir()
    (folder / "a.txt").write_text(f"Dear Anna,{SEPARATORS}all is well.", encoding="utf-8")
    out = tmp_path / "pred.jsonl"
    predict_file(NameFinder(), folder, out)
    evaluation = evaluate_files(out, out)
    assert evaluation.groups["all"].documents == 1


def _write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), "utf-8")
    return path


def test_a_repeated_id_is_refused_naming_the_id_and_its_lines(tmp_path: Path) -> None:
    rows = [{"id": "a", "text": "one"}, {"id": "b", "text": "two"}, {"id": "a", "text": "three"}]
    path = _write_jsonl(tmp_path / "in.jsonl", rows)
    with pytest.raises(UsageError, match=r"in\.jsonl: id 'a' is on lines 1 and 3"):
        predict_file(NameFinder(), path, tmp_path / "out.jsonl")
    assert not (tmp_path / "out.jsonl").exists()
    result = CliRunner().invoke(main, ["eval", str(path), str(path)])
    assert result.exit_code == 2 and "id 'a' is on lines 1 and 3" in result.output


TEXT = "Anna Rossi has asthma.\n"


def _gold_row(**changes) -> dict:
    row = {"id": "a", "text": TEXT, "spans": [{"start": 0, "end": 10, "label": "PERSON"}]}
    return {**row, **changes}


GOLD_PROBLEMS = [
    (_gold_row(spans=[{"start": 11, "end": 23, "label": "health"}]), "ends with whitespace"),
    (_gold_row(spans=[{"start": 10, "end": 21, "label": "health"}]), "starts with whitespace"),
    (_gold_row(spans=[{"start": 0, "end": 4, "label": ""}]), "spans.0.label: must be a name"),
    (_gold_row(spans=[{"start": 0, "end": 4, "label": " PERSON "}]), "must be a name"),
    (_gold_row(id=""), "line 1: id: must not be empty"),
    (_gold_row(spans=None), "line 1: spans: expected a list"),
]


@pytest.mark.parametrize(("row", "message"), GOLD_PROBLEMS)
def test_gold_breaking_the_guideline_is_refused_by_import_and_eval(tmp_path, row, message):
    gold = _write_jsonl(tmp_path / "gold.jsonl", [row])
    imported = CliRunner().invoke(
        main, ["import", str(gold), "--as", "gold", "--run", str(tmp_path / "run")]
    )
    assert imported.exit_code == 2, imported.output
    assert message in imported.output and "gold.jsonl" in imported.output
    pred = _write_jsonl(tmp_path / "pred.jsonl", [{**row, "spans": []}])
    scored = CliRunner().invoke(main, ["eval", str(gold), str(pred)])
    assert scored.exit_code == 2, scored.output
    assert message in scored.output and f"GOLD file {gold}" in scored.output


@pytest.mark.parametrize("source", ["gold", "review"])
def test_overlapping_gold_is_refused_by_eval_and_left_out_by_import(tmp_path, source):
    spans = [{"start": 0, "end": 10, "label": "PERSON", "source": "gold"},
             {"start": 5, "end": 10, "label": "PERSON", "source": source}]  # fmt: skip
    gold = _write_jsonl(tmp_path / "gold.jsonl", [_gold_row(spans=spans), _gold_row(id="b")])
    pred = _write_jsonl(tmp_path / "pred.jsonl", [_gold_row(spans=[])])
    scored = CliRunner().invoke(main, ["eval", str(gold), str(pred)])
    assert scored.exit_code == 2, scored.output
    assert "spans 0-10 (PERSON) and 5-10 (PERSON) overlap" in scored.output
    run = tmp_path / "run"
    imported = CliRunner().invoke(main, ["import", str(gold), "--as", "gold", "--run", str(run)])
    assert imported.exit_code == 0, imported.output
    assert "1 records added" in imported.output and "refused (--overlaps refuse) 1" in (
        imported.output
    )
    assert [r.id for r in RecordTable(RunPaths(run).gold).read()] == ["b"]


SURROGATE_LINE = '{"id": "a", "text": "x\\ud800y", "spans": []}\n'


@pytest.mark.parametrize(
    "command",
    [
        ["import", "{file}", "--as", "gold", "--run", "{run}"],
        ["import", "{file}", "--as", "documents", "--run", "{run}"],
        ["eval", "{file}", "{file}"],
    ],
)
def test_a_lone_surrogate_is_one_line_naming_file_line_and_key(tmp_path, command):
    path = tmp_path / "in.jsonl"
    path.write_text(SURROGATE_LINE, encoding="utf-8")
    run = tmp_path / "run"
    args = [part.format(file=path, run=run) for part in command]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert f"{path} line 1: text: " in result.output and "lone surrogate" in result.output
    assert "Traceback" not in result.output
    assert not run.exists()


def test_predict_refuses_a_lone_surrogate_before_writing(tmp_path):
    path = tmp_path / "in.jsonl"
    path.write_text(SURROGATE_LINE, encoding="utf-8")
    with pytest.raises(UsageError, match=r"line 1: text: .*lone surrogate"):
        predict_file(NameFinder(), path, tmp_path / "out.jsonl")
    assert not (tmp_path / "out.jsonl").exists()


def test_predict_lists_the_files_of_a_folder_it_skips_as_import_does(tmp_path, monkeypatch):
    import gen.cli.predict as predict_command

    folder = tmp_path / "letters"
    (folder / "2024").mkdir(parents=True)
    (folder / "2024" / "a.txt").write_text("Dear Anna, all is well.", encoding="utf-8")
    (folder / "README.md").write_text("What these letters are.", encoding="utf-8")
    (folder / "2024" / "scan.pdf").write_bytes(b"%PDF-1.4")
    monkeypatch.setattr(predict_command, "detector_info", lambda model: {})
    monkeypatch.setattr(predict_command, "load_detector", lambda model, **kw: NameFinder())
    out = tmp_path / "found.jsonl"
    args = ["predict", "--model", str(tmp_path), str(folder), "--out", str(out)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    skipped = (
        f"skipped 2 files that are not .txt: {folder / '2024/scan.pdf'}, {folder / 'README.md'}"
    )
    assert skipped in result.output.splitlines()
    assert [r.id for r in read_record_file(out)] == ["2024/a"]
    imported = CliRunner().invoke(
        main, ["import", str(folder), "--run", str(tmp_path / "run"), "--as", "documents"]
    )
    assert imported.exit_code == 0, imported.output
    assert "skipped 2 files no reader takes: " in imported.output
    (folder / "2024" / "a.txt").unlink()
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2
    assert f"{folder} holds no .txt files (only files that are not .txt: " in result.output
