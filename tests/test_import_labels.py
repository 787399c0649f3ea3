"""The one rule of `gen import --as gold` for labels, in every format: a label gen knows is
kept, one the label map maps is mapped, and any other is refused naming it, left out with
--drop-unmapped or kept with --allow-unknown-labels (gen.importing.labels)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from import_data import FIXTURES, gen_import, jsonl, one_line_error, read, spans

from gen.cli import main
from gen.core.errors import ConfigError, UsageError
from gen.core.records import Record, Span
from gen.core.runs import RunPaths
from gen.core.store import RecordTable, write_records
from gen.importing.labels import LabelRules


def test_a_gold_label_no_pack_or_pii_set_knows_is_refused_or_kept_on_request(tmp_path):
    text = "Anna Rossi takes insulin. Odd thing here. Odd again."
    rows = [
        {
            "id": "w1",
            "text": text,
            "spans": [
                {"start": 0, "end": 10, "label": "PERSON"},
                {"start": 11, "end": 24, "label": "health"},
                {"start": 26, "end": 41, "label": "WEIRD_LABEL"},
                {"start": 43, "end": 52, "label": "WEIRD_LABEL"},
            ],
        },
        {
            "id": "w2",
            "text": "Born 3 May 1990.",
            "spans": [{"start": 5, "end": 15, "label": "DATE"}],
        },
    ]
    gold = jsonl(tmp_path / "weird.jsonl", *rows)
    run = tmp_path / "run"
    args = ["import", str(gold), "--run", str(run), "--as", "gold"]
    refused = CliRunner().invoke(main, args)
    assert refused.exit_code == 2, refused.output
    (line,) = refused.output.strip().splitlines()
    assert line.startswith(
        f"error: labels gen does not know: WEIRD_LABEL (2 spans) (first in {gold} record w1); "
    )
    assert "import them as they are with --allow-unknown-labels" in line
    assert not RunPaths(run).gold.exists()
    kept = CliRunner().invoke(main, [*args, "--allow-unknown-labels"])
    assert kept.exit_code == 0, kept.output
    assert "labels gen does not know, kept (--allow-unknown-labels): WEIRD_LABEL 2" in kept.output
    assert len(RecordTable(RunPaths(run).gold).read()) == 2
    documents = CliRunner().invoke(
        main, ["import", str(gold), "--run", str(tmp_path / "docs"), "--as", "documents"]
    )
    assert documents.exit_code == 0, documents.output  # documents keep no span


def test_unknown_labels_are_refused_up_front_naming_them_and_their_counts(tmp_path: Path) -> None:
    run = tmp_path / "run"
    result = gen_import(FIXTURES / "labelstudio.json", FIXTURES / "doccano.jsonl", "--run", run,
                        "--as", "gold")  # fmt: skip
    one_line_error(result, "labels gen does not know: PER (5 spans), LOC (3 spans), "
                           "DIAGNOSIS (2 spans), MISC (1 span) (first in ")  # fmt: skip
    assert "--label-map FILE.yaml" in result.output and "--drop-unmapped" in result.output
    assert not run.exists()


def test_drop_unmapped_leaves_out_and_counts_unknown_labels() -> None:
    records, notes = read(FIXTURES / "doccano.jsonl", label_map=None, drop_unmapped=True)
    assert spans(records["doccano-1"]) == [("anna.mueller@example.org", "EMAIL")]
    assert notes == {
        "spans of unmapped label PER left out": 2,
        "spans of unmapped label LOC left out": 1,
        "spans of unmapped label DIAGNOSIS left out": 1,
        "records imported as gold without spans: none in the file": 1,
    }


def test_a_label_map_to_a_label_gen_does_not_know_names_file_line_and_key(tmp_path: Path) -> None:
    path = tmp_path / "map.yaml"
    path.write_text("labels:\n  PER: PERSON\n  LOC: PLACE\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"map.yaml: line 3: labels.LOC: 'PLACE' is not a label"):
        LabelRules.of(label_map=path)
    result = gen_import(FIXTURES / "doccano.jsonl", "--run", tmp_path / "run", "--as", "gold",
                        "--label-map", path)  # fmt: skip
    one_line_error(result, "labels.LOC: 'PLACE' is not a label gen knows")


def test_a_label_written_twice_in_a_label_map_is_refused_naming_file_line_and_key(
    tmp_path: Path,
) -> None:
    path = tmp_path / "map.yaml"
    path.write_text("labels:\n  PER: PERSON\n  LOC: LOCATION\n  PER: LOCATION\n", "utf-8")
    with pytest.raises(
        ConfigError, match=r"map.yaml: line 4: duplicate key 'PER' \(first on line 2\)"
    ):
        LabelRules.of(label_map=path)
    run = tmp_path / "run"
    result = gen_import(FIXTURES / "doccano.jsonl", "--run", run, "--as", "gold",
                        "--label-map", path)  # fmt: skip
    one_line_error(result, f"{path}: line 4: duplicate key 'PER' (first on line 2)")
    assert not run.exists()


def test_gen_formats_follow_the_same_label_rule(tmp_path: Path) -> None:
    row = {"id": "g", "text": "Anna", "spans": [{"start": 0, "end": 4, "label": "PER"}]}
    path = jsonl(tmp_path / "gold.jsonl", row)
    with pytest.raises(UsageError, match=r"labels gen does not know: PER \(1 span\) \(first in "):
        read(path, label_map=None)
    kept, _ = read(path, label_map=None, allow_unknown=True)
    assert spans(kept["g"]) == [("Anna", "PER")]
    dropped, notes = read(path, label_map=None, drop_unmapped=True)
    assert spans(dropped["g"]) == [] and notes == {
        "spans of unmapped label PER left out": 1,
        "records imported as gold without spans: every span left out by the label rules": 1,
    }
    mapped, _ = read(path)
    assert spans(mapped["g"]) == [("Anna", "PERSON")]


def test_allow_unknown_labels_keeps_a_tool_s_labels_and_counts_them(tmp_path: Path) -> None:
    run = tmp_path / "run"
    result = gen_import(FIXTURES / "doccano.jsonl", "--run", run, "--as", "gold",
                        "--allow-unknown-labels")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "labels gen does not know, kept (--allow-unknown-labels): " in result.output
    assert "PER 2" in result.output and "DIAGNOSIS 1" in result.output
    both = gen_import(FIXTURES / "doccano.jsonl", "--run", run, "--as", "gold",
                      "--allow-unknown-labels", "--drop-unmapped")  # fmt: skip
    one_line_error(both, "--drop-unmapped leaves out the spans of labels gen does not know")


@pytest.mark.parametrize("suffix", [".jsonl", ".parquet", ".conll"])
def test_a_label_gen_does_not_know_is_refused_in_gen_s_own_formats(
    tmp_path: Path, suffix: str
) -> None:
    path = tmp_path / f"gold{suffix}"
    record = Record("g", "Anna Rossi", "other", "note", "en", "gold", [Span(0, 10, "PER")])
    if suffix == ".conll":
        path.write_text("Anna\tB-PER\nRossi\tI-PER\n", encoding="utf-8")
    elif suffix == ".parquet":
        write_records(path, [record])
    else:
        row = {"id": "g", "text": record.text, "spans": [{"start": 0, "end": 10, "label": "PER"}]}
        jsonl(path, row)
    with pytest.raises(UsageError, match=r"labels gen does not know: PER \(1 span\)"):
        read(path, label_map=None)
    (kept,) = read(path, label_map=None, allow_unknown=True)[0].values()
    assert spans(kept) == [("Anna Rossi", "PER")]
    (mapped,) = read(path)[0].values()
    assert spans(mapped) == [("Anna Rossi", "PERSON")]
