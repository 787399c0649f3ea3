"""`gen import` of Label Studio's JSON and JSON-MIN exports of any project (fixtures and
helpers: tests/import_data.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from import_data import (
    FIXTURES,
    LABEL_MAP,
    T1,
    T1_SPANS,
    expected,
    gen_import,
    located,
    ls_task,
    one_line_error,
    read,
    spans,
)

from gen.core.errors import UsageError


def test_label_studio_takes_the_latest_annotation_and_converts_utf16_offsets() -> None:
    records, notes = read(FIXTURES / "labelstudio.json")
    assert sorted(records) == ["labelstudio-11", "labelstudio-14"]
    task = records["labelstudio-11"]
    assert task.text == T1 and task.source == "gold"
    # Annotation 102 (user 2, the latest submitted) stores UTF-16 offsets and took in the
    # space after "diabetes": exact code point spans on the words.
    assert located(task) == expected(T1, T1_SPANS)
    assert task.meta["annotator"] == "user 2" and task.meta["annotation_id"] == 102
    assert task.meta["task_id"] == 11 and task.meta["project_id"] == 5
    assert task.flags == ["review_disagreement"] and len(task.meta["annotations"]) == 2
    assert "left_out" not in task.meta and "import_notes" not in task.meta
    # Regions that store no text, on a text without characters outside the BMP; MISC is
    # mapped to null.
    assert spans(records["labelstudio-14"]) == [("Marco Rossi", "PERSON"), ("Roma", "LOCATION")]
    assert notes == {
        "cancelled annotations left out": 2,
        "tasks without annotation left out": 2,
        "choices results ignored": 1,
        "tasks whose annotators disagree (flagged review_disagreement)": 1,
        "spans of label MISC left out (mapped to null)": 1,
        "spans trimmed of whitespace at their edges": 1,
    }


@pytest.mark.parametrize("who", ["1", "user 1"])
def test_label_studio_annotator_picks_whose_spans_are_gold(who: str) -> None:
    records, _ = read(FIXTURES / "labelstudio.json", annotator=who)
    # Annotation 101 stores code points: the same exact span.
    assert located(records["labelstudio-11"]) == expected(T1, [("Anna Müller", "PERSON")])
    assert records["labelstudio-11"].meta["annotation_id"] == 101
    assert sorted(records) == ["labelstudio-11", "labelstudio-14"]


def test_an_annotator_with_only_cancelled_annotations_leaves_nothing_and_says_why() -> None:
    with pytest.raises(UsageError) as error:
        read(FIXTURES / "labelstudio.json", annotator="3")
    assert "labelstudio.json: no record holds gold: tasks not annotated by 3 left out 2" in str(
        error.value
    )
    assert "tasks without annotation left out 2" in str(error.value)


def test_label_studio_json_min_rows_of_one_task_are_its_annotations() -> None:
    records, notes = read(FIXTURES / "labelstudio_min.json")
    (task,) = records.values()
    assert task.id == "labelstudio_min-21"
    assert spans(task) == [
        ("Zoë", "PERSON"),
        ("Luca Bianchi", "PERSON"),
        ("iscritto al Partito Verde", "politic"),
    ]
    assert task.meta["annotator"] == "bob@example.org"
    assert notes["tasks without annotation left out"] == 1
    alice, _ = read(FIXTURES / "labelstudio_min.json", annotator="alice@example.org")
    assert spans(alice["labelstudio_min-21"]) == [("Luca Bianchi", "PERSON")]


def test_the_text_field_is_found_or_named() -> None:
    with pytest.raises(UsageError, match=r"several: body, title; name it with --text-field"):
        read(FIXTURES / "labelstudio_two_fields.json")
    records, _ = read(FIXTURES / "labelstudio_two_fields.json", text_field="body")
    assert spans(records["labelstudio_two_fields-31"]) == [
        ("Giulia Neri", "PERSON"),
        ("asthma", "health"),
    ]
    with pytest.raises(UsageError, match=r"task 31: its data has no 'note' string.*body, title"):
        read(FIXTURES / "labelstudio_two_fields.json", text_field="note")


def test_a_region_whose_text_is_not_at_its_offsets_is_refused_naming_thels_task(
    tmp_path: Path,
) -> None:
    path = tmp_path / "ls.json"
    value = {"start": 0, "end": 4, "text": "Bob", "labels": ["PER"]}
    path.write_text(json.dumps([ls_task("Anna and Bob", value)]), encoding="utf-8")
    with pytest.raises(UsageError, match=r"ls.json: task 1 \(record ls-1\): span 0-4 'Bob'"):
        read(path)


def test_a_region_without_text_after_an_emoji_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "ls.json"
    value = {"start": 2, "end": 6, "labels": ["PER"]}
    path.write_text(json.dumps([ls_task("😀 Anna", value)]), encoding="utf-8")
    with pytest.raises(UsageError, match="no stored text to check its offsets against"):
        read(path)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[{", "ls.json: line 1: not JSON"),
        ('{"data": {}}', "ls.json: expected Label Studio's JSON export"),
        ('[{"id": 4, "data": "x"}]', "ls.json: task 4: expected its data as an object"),
        ('[{"id": 4, "data": {"n": 1}, "annotations": []}]', "no task holds a string"),
    ],
)
def test_files_that_are_no_label_studio_export_are_one_clear_line(
    tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "ls.json"
    path.write_text(content, encoding="utf-8")
    one_line_error(gen_import(path, "--run", tmp_path / "run", "--as", "gold"), message)
    assert not (tmp_path / "run").exists()


def _ls_file(path: Path, *values: dict) -> Path:
    path.write_text(json.dumps([ls_task("Anna Rossi", *values)]), encoding="utf-8")
    return path


def test_an_empty_region_is_refused_and_a_region_of_two_labels_left_out(tmp_path: Path) -> None:
    path = _ls_file(tmp_path / "ls.json", {"start": 4, "end": 4, "labels": ["PER"]})
    run = tmp_path / "run"
    result = gen_import(path, "--run", run, "--as", "gold", "--label-map", LABEL_MAP)
    one_line_error(result, "ls.json: task 1 (record ls-1): a region is empty (start = end = 4)")
    assert not run.exists()
    two = {"start": 0, "end": 10, "text": "Anna Rossi", "labels": ["PER", "LOC"]}
    result = gen_import(_ls_file(path, two), "--run", run, "--as", "gold", "--label-map", LABEL_MAP)
    assert result.exit_code == 0 and "0 records added" in result.output, result.output
    assert "ls.json: record ls-1: gold spans 0-10 (LOCATION) and 0-10 (PERSON) overlap" in (
        result.output
    )


def test_documents_take_every_task_text_and_no_span(tmp_path: Path) -> None:
    records, notes = read(FIXTURES / "labelstudio.json", target="documents")
    assert sorted(records) == [f"labelstudio-{n}" for n in (11, 12, 13, 14)]
    assert all(not r.spans and r.source == "import" for r in records.values())
    assert all("left_out" not in r.meta for r in records.values()) and not notes
