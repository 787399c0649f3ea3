"""`gen import --as gold` leaves nothing out without a count, merges identical spans,
refuses or resolves only the records whose spans overlap, and refuses a file read in the
wrong format (fixtures and helpers: tests/import_data.py; encodings:
tests/test_import_encodings.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from import_data import (
    FIXTURES,
    LABEL_MAP,
    brat_pair,
    gen_import,
    jsonl,
    one_line_error,
    read,
    spans,
)

from gen.core.record_files import SHORT_FORM_DEFAULTS
from gen.core.records import Record
from gen.core.runs import RunPaths
from gen.core.store import RecordTable, write_records

EMPTY_GOLD = "records imported as gold without spans: none in the file"
ALL_LEFT_OUT = "records imported as gold without spans: every span left out by the label rules"
NO_FIELD = "records imported as gold without spans: the item has no span field"
REFUSED = "records with overlapping spans refused (--overlaps refuse)"


def _doccano(path: Path) -> Path:
    return jsonl(path, {"id": 1, "text": "Anna Rossi lives in Roma.", "label": [[0, 10, "PER"]]})


def _prodigy(path: Path) -> Path:
    span = {"start": 0, "end": 10, "label": "PER", "token_start": 0, "token_end": 1}
    return jsonl(path, {"text": "Anna Rossi lives in Roma.", "_input_hash": 7, "_task_hash": 8,
                        "spans": [span], "answer": "accept"})  # fmt: skip


# -- a wrong --format ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("write", "asked", "message"),
    [
        (_doccano, "prodigy", "d.jsonl: no line holds prodigy's span field (spans); its lines "
                              "look like doccano's: leave out --format or give --format doccano"),
        (_prodigy, "doccano", "d.jsonl: no line holds doccano's span fields (label or entities); "
                              "its lines look like prodigy's"),
    ],
)  # fmt: skip
def test_a_file_read_in_another_tool_s_format_is_refused_naming_the_fields(
    tmp_path: Path, write, asked: str, message: str
) -> None:
    path = write(tmp_path / "d.jsonl")
    result = gen_import(path, "--run", tmp_path / "run", "--as", "gold", "--format", asked,
                        "--label-map", LABEL_MAP)  # fmt: skip
    one_line_error(result, message)
    assert not (tmp_path / "run").exists()
    # Its texts are still documents to label.
    documents = gen_import(path, "--run", tmp_path / "run", "--as", "documents", "--format", asked)
    assert documents.exit_code == 0 and "1 records added" in documents.output, documents.output


# -- what is left out is counted ----------------------------------------------------------------


def test_doccano_relations_comments_and_trimmed_spans_are_counted(tmp_path: Path) -> None:
    row = {"id": 4, "text": "Olga Petrova met Ivan in Kyiv.",
           "entities": [{"id": 1, "label": "PER", "start_offset": 0, "end_offset": 13},
                        {"id": 2, "label": "PER", "start_offset": 16, "end_offset": 21}],
           "relations": [{"id": 1, "from_id": 1, "to_id": 2, "type": "met"},
                         {"id": 2, "from_id": 2, "to_id": 1, "type": "met"}],
           "Comments": ["check Ivan"]}  # fmt: skip
    records, notes = read(jsonl(tmp_path / "d.jsonl", row))
    assert spans(records["d-4"]) == [("Olga Petrova", "PERSON"), ("Ivan", "PERSON")]
    assert notes == {
        "doccano relations left out": 2,
        "doccano comments left out": 1,
        "spans trimmed of whitespace at their edges": 2,
    }


def test_prodigy_relations_merged_lines_and_lines_without_spans_are_counted(
    tmp_path: Path,
) -> None:
    span = {"start": 0, "end": 4, "label": "PER"}
    relation = {"head": 0, "child": 1, "label": "KNOWS"}
    rows = [
        {"text": "Anna met Luca.", "_input_hash": 1, "answer": "accept", "spans": [span],
         "relations": [relation, relation], "_timestamp": 1},
        {"text": "Anna met Luca.", "_input_hash": 1, "answer": "accept", "spans": [span],
         "_timestamp": 2},
        {"text": "Anna met Luca.", "_input_hash": 1, "answer": "accept", "spans": [span],
         "relations": [relation], "_timestamp": 3},
        {"text": "Nothing here.", "_input_hash": 2, "answer": "accept", "spans": []},
        {"text": "Great product!", "_input_hash": 3, "answer": "accept", "label": "POSITIVE"},
    ]  # fmt: skip
    records, notes = read(jsonl(tmp_path / "p.jsonl", *rows))
    assert sorted(records) == ["p-1", "p-2", "p-3"] and records["p-3"].spans == []
    assert notes == {
        "Prodigy relations left out": 1,
        "Prodigy lines merged into the example of their _input_hash": 2,
        EMPTY_GOLD: 1,
        NO_FIELD: 1,
    }


def test_gold_without_spans_is_counted_with_its_reason(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    brat_pair(tmp_path / "a", "Nothing to see.\n", "")
    _, notes = read(tmp_path / "a")
    assert notes == {EMPTY_GOLD: 1}
    path = jsonl(tmp_path / "d.jsonl", {"id": 1, "text": "Anna", "label": [[0, 4, "PER"]]})
    records, notes = read(path, label_map=None, drop_unmapped=True)
    assert records["d-1"].spans == []
    assert notes == {"spans of unmapped label PER left out": 1, ALL_LEFT_OUT: 1}


def test_the_summary_prints_every_count(tmp_path: Path) -> None:
    path = jsonl(tmp_path / "d.jsonl", {"id": 1, "text": "Anna ", "label": [[0, 5, "PER"]]},
                 {"id": 2, "text": "None.", "label": []})  # fmt: skip
    result = gen_import(path, "--run", tmp_path / "run", "--as", "gold", "--label-map", LABEL_MAP)
    assert result.exit_code == 0, result.output
    assert "spans trimmed of whitespace at their edges 1" in result.output
    assert f"{EMPTY_GOLD} 1" in result.output


# -- identical and overlapping spans ------------------------------------------------------------

#: Two discontinuous entities that share their first range, and a third entity.
SHARED = "".join(
    ["T8\tFood 0 4;10 15\tRice beans\n", "T42\tFood 0 4;20 25\tRice maize\n",
     "T50\tFood 29 34\tsalad\n"]
)  # fmt: skip
FOOD = "Rice with beans and maize, a salad.\n"


def test_identical_spans_of_split_entities_are_merged_and_the_split_spans_counted(
    tmp_path: Path,
) -> None:
    label_map = tmp_path / "food.yaml"
    label_map.write_text("labels:\n  Food: health\n", encoding="utf-8")
    records, notes = read(brat_pair(tmp_path, FOOD, SHARED), label_map=label_map)
    assert spans(records["d"]) == [("Rice", "health"), ("beans", "health"),
                                   ("maize", "health"), ("salad", "health")]  # fmt: skip
    assert notes == {
        "identical spans merged (same range and label)": 1,
        "spans imported from discontinuous entities split into one span per range": 3,
    }
    # Spans that are not imported are not counted as split.
    label_map.write_text("labels:\n  Food: null\n", encoding="utf-8")
    _, notes = read(brat_pair(tmp_path, FOOD, SHARED), label_map=label_map)
    assert notes == {"spans of label Food left out (mapped to null)": 5, ALL_LEFT_OUT: 1}


def test_a_doccano_span_given_twice_is_merged(tmp_path: Path) -> None:
    path = jsonl(tmp_path / "d.jsonl", {"id": 1, "text": "R is a city.",
                                        "label": [[0, 1, "LOC"], [0, 1, "LOC"]]})  # fmt: skip
    records, notes = read(path)
    assert spans(records["d-1"]) == [("R", "LOCATION")]
    assert notes == {"identical spans merged (same range and label)": 1}


OVERLAPPING = [
    {"id": 1, "text": "Anna Rossi", "label": [[0, 10, "PER"], [5, 10, "LOC"]]},
    {"id": 2, "text": "Luca Bianchi", "label": [[0, 12, "PER"]]},
]


def test_overlaps_refuse_only_the_records_concerned_and_keep_them_in_rejects(
    tmp_path: Path,
) -> None:
    path = jsonl(tmp_path / "d.jsonl", *OVERLAPPING)
    run = tmp_path / "run"
    result = gen_import(path, "--run", run, "--as", "gold", "--label-map", LABEL_MAP)
    assert result.exit_code == 0, result.output
    assert "1 records added" in result.output and f"{REFUSED} 1" in result.output
    assert "d.jsonl: line 1: record d-1: gold spans 0-10 (PERSON) and 5-10 (LOCATION) overlap" in (
        result.output
    )
    assert [r.id for r in RecordTable(RunPaths(run).gold).read()] == ["d-2"]
    (rejected,) = RecordTable(RunPaths(run).rejects("import")).read()
    assert rejected.id == "d-1" and rejected.meta["reason"] == "overlapping spans"
    assert "5-10 (LOCATION)" in rejected.meta["detail"]


@pytest.mark.parametrize(
    ("overlaps", "label", "kept", "left_out"),
    [
        ("longest", [[0, 4, "PER"], [0, 10, "PER"], [5, 10, "LOC"], [2, 7, "LOC"]],
         [("Anna Rossi", "PERSON")], 3),
        ("first", [[0, 4, "PER"], [2, 7, "LOC"], [5, 10, "LOC"]],
         [("Anna", "PERSON"), ("Rossi", "LOCATION")], 1),
        ("first", [[2, 7, "LOC"], [0, 4, "PER"], [0, 10, "PER"]], [("Anna Rossi", "PERSON")], 2),
    ],
)  # fmt: skip
def test_overlaps_longest_and_first_resolve_the_records_concerned(
    tmp_path: Path, overlaps: str, label: list, kept: list, left_out: int
) -> None:
    path = jsonl(tmp_path / "d.jsonl", {"id": 1, "text": "Anna Rossi", "label": label})
    records, notes = read(path, overlaps=overlaps)
    assert spans(records["d-1"]) == kept
    assert notes == {f"overlapping spans left out (--overlaps {overlaps})": left_out}


def test_an_overlap_names_its_ann_lines_and_says_when_a_range_was_split(tmp_path: Path) -> None:
    ann = "T1\tFood 0 4;10 15\tRice beans\nT2\tDrink 2 9\tce with\n"
    refused: list = []
    read(brat_pair(tmp_path, FOOD, ann), label_map=None, allow_unknown=True, refused=refused)
    assert refused[0].meta["detail"] == str(tmp_path / "d.ann") + (
        ": record d: gold spans 0-4 (Food) and 2-9 (Drink) overlap (line 1: T1 Food "
        "0 4;10 15, a range of a discontinuous entity; line 2: T2 Drink 2 9)"
    )


def test_a_folder_imports_every_document_but_the_one_whose_spans_overlap(tmp_path: Path) -> None:
    for name, ann in [("a", SHARED), ("b", "T1\tFood 0 4\tRice\nT2\tFood 0 9\tRice with\n")]:
        (tmp_path / name).mkdir()
        brat_pair(tmp_path / name, FOOD, ann)
    refused: list = []
    records, notes = read(tmp_path, label_map=None, allow_unknown=True, refused=refused)
    assert sorted(records) == ["a/d"] and [r.id for r in refused] == ["b/d"]
    assert notes[REFUSED] == 1


#: An invented diet diary whose discontinuous entity T40 (`dark ... bread`) shares its last
#: range with T41 (`rye bread`), as in biomedical BRAT corpora, and a clean week beside it.
DIARIES = FIXTURES / "brat_discontinuous"


def test_a_brat_corpus_imports_the_clean_documents_and_keeps_the_overlapping_one(
    tmp_path: Path,
) -> None:
    run = tmp_path / "run"
    result = gen_import(DIARIES, "--run", run, "--as", "gold", "--allow-unknown-labels")
    assert result.exit_code == 0, result.output
    assert "1 records added" in result.output and f"{REFUSED} 1" in result.output
    assert (
        f"{DIARIES / 'diary.ann'}: record diary: gold spans 188-197 (Food) and 192-197 (Food) "
        "overlap (line 6: T41 Food 188 197; line 5: T40 Food 179 183;192 197, a range of a "
        "discontinuous entity); --overlaps longest or first resolves such records"
    ) in result.output
    assert [r.id for r in RecordTable(RunPaths(run).gold).read()] == ["week4"]
    (rejected,) = RecordTable(RunPaths(run).rejects("import")).read()
    assert rejected.id == "diary" and rejected.meta["reason"] == "overlapping spans"
    assert len(rejected.meta["spans"]) == 10 and rejected.spans == []


def test_an_import_whose_every_record_overlaps_keeps_them_in_rejects_and_fails_nothing(
    tmp_path: Path,
) -> None:
    run = tmp_path / "run"
    args = ("--run", run, "--as", "gold", "--allow-unknown-labels")
    result = gen_import(DIARIES / "diary.ann", *args)
    assert result.exit_code == 0, result.output
    assert f"0 records added to {RunPaths(run).gold}" in result.output
    assert f"{REFUSED} 1" in result.output
    assert f"refused records are kept in {RunPaths(run).rejects('import')}" in result.output
    assert not RunPaths(run).gold.exists()
    assert [r.id for r in RecordTable(RunPaths(run).rejects("import")).read()] == ["diary"]
    # Resolved, the record is imported and leaves the rejects.
    assert gen_import(DIARIES / "diary.ann", *args, "--overlaps", "longest").exit_code == 0
    assert [r.id for r in RecordTable(RunPaths(run).gold).read()] == ["diary"]
    assert not RunPaths(run).rejects("import").exists()


def _gen_records(path: Path, rows: list[dict]) -> Path:
    if path.suffix == ".jsonl":
        return jsonl(path, *rows)
    write_records(path, [Record.from_row({**SHORT_FORM_DEFAULTS, **row}) for row in rows])
    return path


def _docbin(path: Path, rows: list[dict]) -> Path:
    spacy = pytest.importorskip("spacy")
    from spacy.tokens import DocBin

    nlp, docs = spacy.blank("en"), DocBin(store_user_data=True)
    for row in rows:
        doc = nlp(row["text"])
        doc.spans["sc"] = [
            doc.char_span(s["start"], s["end"], label=s["label"]) for s in row["spans"]
        ]
        doc.user_data["id"] = row["id"]
        docs.add(doc)
    docs.to_disk(path)
    return path


@pytest.mark.parametrize(
    ("name", "write"),
    [("d.jsonl", _gen_records), ("d.parquet", _gen_records), ("d.spacy", _docbin)],
)
def test_gen_s_own_formats_refuse_only_the_record_whose_spans_overlap(
    tmp_path: Path, name: str, write
) -> None:
    rows = [
        {"id": "a", "text": "Anna Rossi lives here.",
         "spans": [{"start": 0, "end": 10, "label": "PERSON"},
                   {"start": 5, "end": 10, "label": "PERSON"}]},
        {"id": "b", "text": "Luca Bianchi lives here.",
         "spans": [{"start": 0, "end": 12, "label": "PERSON"}]},
    ]  # fmt: skip
    path = write(tmp_path / name, rows)
    run = tmp_path / "run"
    result = gen_import(path, "--run", run, "--as", "gold")
    assert result.exit_code == 0, result.output
    assert "1 records added" in result.output and f"{REFUSED} 1" in result.output
    assert "record a: gold spans 0-10 (PERSON) and 5-10 (PERSON) overlap" in result.output
    assert [r.id for r in RecordTable(RunPaths(run).gold).read()] == ["b"]
    assert [r.id for r in RecordTable(RunPaths(run).rejects("import")).read()] == ["a"]
