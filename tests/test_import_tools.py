"""`gen import` of doccano, Prodigy and BRAT exports, the label map, format detection and
the command's summary (fixtures and helpers: tests/import_data.py; Label Studio:
tests/test_import_labelstudio.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from import_data import (
    FIXTURES,
    LABEL_MAP,
    T1,
    T1_SPANS,
    brat_pair,
    expected,
    gen_import,
    jsonl,
    located,
    one_line_error,
    read,
    spans,
)

from gen.core.errors import UsageError
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from gen.importing import RecordDefaults
from gen.importing.formats.text import TextReader

# -- doccano ------------------------------------------------------------------------------------


def test_doccano_label_lists_are_exact_code_point_spans() -> None:
    records, notes = read(FIXTURES / "doccano.jsonl")
    assert located(records["doccano-1"]) == expected(T1, T1_SPANS)
    assert records["doccano-1"].text == T1 and records["doccano-2"].spans == []
    assert records["doccano-1"].meta["line"] == 1
    assert notes == {"records imported as gold without spans: none in the file": 1}


def test_doccano_entities_with_relations() -> None:
    records, _ = read(FIXTURES / "doccano_entities.jsonl")
    assert spans(records["doccano_entities-7"]) == [
        ("Olga Petrova", "PERSON"),
        ("attends the mosque", "philosophy"),
        ("Via Roma", "LOCATION"),
    ]


@pytest.mark.parametrize(
    ("row", "message"),
    [
        (
            {"id": 3, "text": "Anna Rossi", "label": [[4, 4, "PER"]]},
            "line 2: record doccano-3: span 4-4 (PERSON) is empty",
        ),
        (
            {"id": 3, "text": "Anna", "label": [[0, 9, "PER"]]},
            "span 0-9 (PERSON) is outside the text of length 4",
        ),
        (
            {"id": 3, "text": "Anna", "label": [[0, 4.0, "PER"]]},
            "doccano.jsonl: line 2: label.0: expected [start, end, \"LABEL\"], got [0, 4.0, 'PER']",
        ),
        ({"id": 3, "text": "Great!", "label": ["positive"]}, "(a text classification export?)"),
        ({"id": 3, "label": []}, "doccano.jsonl: line 2: expected an object with a text"),
    ],
)
def test_bad_doccano_spans_are_named_with_file_line_and_record(
    tmp_path: Path, row: dict, message: str
) -> None:
    path = jsonl(tmp_path / "doccano.jsonl", {"id": 1, "text": "ok", "label": []}, row)
    one_line_error(gen_import(path, "--run", tmp_path / "run", "--as", "gold",
                              "--label-map", LABEL_MAP), message)  # fmt: skip
    assert not (tmp_path / "run").exists()


def test_every_bad_record_is_counted_in_the_one_line(tmp_path: Path) -> None:
    bad = [{"id": n, "text": "Anna", "label": [[0, 9, "PER"]]} for n in range(3)]
    path = jsonl(tmp_path / "doccano.jsonl", *bad)
    with pytest.raises(UsageError, match=r"line 1: .*\(and 2 more records with bad spans\)$"):
        read(path)


# -- Prodigy ------------------------------------------------------------------------------------


def test_prodigy_takes_the_latest_accepted_answer_and_counts_the_others() -> None:
    records, notes = read(FIXTURES / "prodigy.jsonl")
    assert sorted(records) == ["prodigy--1402271574", "prodigy-55503"]
    priya = records["prodigy--1402271574"]
    assert spans(priya) == [("Priya Shah", "PERSON"), ("HIV test came back positive", "health")]
    assert priya.meta["annotator"] == "ner_gold-bob" and priya.meta["line"] == 2
    assert spans(records["prodigy-55503"]) == [
        ("Karl Weber", "PERSON"),
        ("joined the union", "politic"),
        ("Graz", "LOCATION"),
    ]
    assert notes == {
        "examples answered reject left out": 1,
        "examples answered ignore left out": 1,
        "examples whose annotators disagree (flagged review_disagreement)": 1,
        "Prodigy lines merged into the example of their _input_hash": 1,
    }


def test_prodigy_annotator_by_session_name() -> None:
    records, notes = read(FIXTURES / "prodigy.jsonl", annotator="alice")
    assert spans(records["prodigy--1402271574"]) == [("Priya Shah", "PERSON")]
    assert "prodigy-55503" not in records
    assert notes["examples not accepted by alice left out"] == 1


def test_a_prodigy_span_whose_text_is_elsewhere_is_refused(tmp_path: Path) -> None:
    span = {"start": 0, "end": 4, "label": "PER", "text": "Rossi"}
    path = jsonl(tmp_path / "p.jsonl", {"text": "Anna Rossi", "_input_hash": 1, "spans": [span],
                                         "answer": "accept"})  # fmt: skip
    with pytest.raises(UsageError, match=r"p.jsonl: line 1: spans.0: span 0-4 'Rossi' cannot"):
        read(path)


# -- BRAT ---------------------------------------------------------------------------------------


def test_brat_folder_splits_discontinuous_entities_and_counts_other_lines() -> None:
    records, notes = read(FIXTURES / "brat")
    assert sorted(records) == ["doc1", "doc2", "doc3"]
    doc1 = records["doc1"]
    text = T1.replace("\r\n", "\n")  # as `gen import doc1.txt` reads it
    assert doc1.text == text
    assert located(doc1) == expected(text, [*T1_SPANS[:4], ("treated since 2019", "health"),
                                            T1_SPANS[4]])  # fmt: skip
    # A JavaScript tool's UTF-16 offsets after two emoji.
    assert spans(records["doc2"]) == [("Zoë", "PERSON"), ("Roma", "LOCATION")]
    # A BOM and CRLF counted as one character: exact on the text as gen reads it.
    assert spans(records["doc3"]) == [("Sara Colombo", "PERSON"), ("Catholic", "philosophy")]
    assert notes == {
        "spans imported from discontinuous entities split into one span per range": 2,
        "BRAT relation lines (R) left out": 1,
        "BRAT attribute lines (A) left out": 1,
        "BRAT note lines (#) left out": 1,
    }


@pytest.mark.parametrize("name", ["doc1", "doc2", "doc3"])
def test_brat_records_have_the_id_and_text_of_the_text_import(name: str) -> None:
    txt = FIXTURES / "brat" / f"{name}.txt"
    (alone,) = TextReader().read(txt, RecordDefaults())
    records, _ = read(FIXTURES / "brat" / f"{name}.ann")
    assert records[name].text == alone.text and alone.id == name


@pytest.mark.parametrize(
    ("anna", "rossi"),
    [("1 5", "10 15"), ("1 5", "9 14"), ("0 4", "9 14"), ("0 4", "8 13")],
    ids=["bom-crlf", "bom-lf", "crlf", "lf"],
)
def test_brat_drops_a_byte_order_mark_whether_its_offsets_count_it_or_not(
    tmp_path: Path, anna: str, rossi: str
) -> None:
    ann = f"T1\tPER {anna}\tAnna\nT2\tPER {rossi}\tRossi\n"
    records, _ = read(brat_pair(tmp_path, "\ufeffAnna\r\nDr Rossi\r\n", ann))
    assert records["d"].text == "Anna\nDr Rossi\n"
    assert spans(records["d"]) == [("Anna", "PERSON"), ("Rossi", "PERSON")]


def test_a_brat_folder_reads_each_txt_with_its_ann_once(tmp_path: Path) -> None:
    result = gen_import(FIXTURES / "brat", "--run", tmp_path / "run", "--as", "documents")
    assert result.exit_code == 0, result.output
    assert "3 records added" in result.output
    assert "skipped 1 file no reader takes" in result.output and "annotation.conf" in result.output
    assert "doc1.txt" not in result.output


@pytest.mark.parametrize(
    ("ann", "message"),
    [
        (
            "T1\tPER 0 4\tRoss\n",
            "d.ann: line 1: T1 'Ross' is not at 0 4 of its .txt (the text there is 'Anna')",
        ),
        ("T1\tPER 0 x\tAnna\n", "d.ann: line 1: expected T1<TAB>LABEL START END"),
        ("Q1\tsomething\n", "d.ann: line 1: not a brat annotation line"),
    ],
)
def test_bad_brat_lines_are_named(tmp_path: Path, ann: str, message: str) -> None:
    path = brat_pair(tmp_path, "Anna Rossi\n", ann)
    with pytest.raises(UsageError) as error:
        read(path)
    assert message in str(error.value)


def test_an_ann_without_its_txt_is_refused(tmp_path: Path) -> None:
    (tmp_path / "lonely.ann").write_text("T1\tPER 0 4\tAnna\n", encoding="utf-8")
    one_line_error(gen_import(tmp_path / "lonely.ann", "--run", tmp_path / "run", "--as", "gold"),
                   "lonely.ann: no lonely.txt beside it")  # fmt: skip


# -- bad spans in the other tools' shapes ------------------------------------------------------


def _prodigy_file(path: Path, *spans: dict) -> Path:
    return jsonl(
        path, {"text": "Anna Rossi", "_input_hash": 9, "answer": "accept", "spans": list(spans)}
    )


def _brat_file(path: Path, *lines: str) -> Path:
    return brat_pair(path, "Anna Rossi", "".join(lines))


BAD_SPANS = [
    (lambda d: _prodigy_file(d / "p.jsonl", {"start": 4, "end": 4, "label": "PER"}),
     "p.jsonl: line 1: record p-9: span 4-4 (PERSON) is empty"),
    (lambda d: jsonl(d / "p.jsonl", {"_input_hash": 9, "answer": "accept", "spans": []}),
     "p.jsonl: line 1: expected an object with a text"),
    (lambda d: _brat_file(d, "T1\tPER 4 4\t\n"), "d.ann: record d: span 4-4 (PERSON) is empty"),
]  # fmt: skip


@pytest.mark.parametrize(("write", "message"), BAD_SPANS)
def test_empty_spans_are_refused_in_doccano_prodigy_and_brat_shapes(
    tmp_path: Path, write, message: str
) -> None:
    path = write(tmp_path)
    result = gen_import(path, "--run", tmp_path / "run", "--as", "gold", "--label-map", LABEL_MAP)
    one_line_error(result, message)
    assert not (tmp_path / "run").exists()


OVERLAPS = [
    (lambda d: _prodigy_file(d / "p.jsonl", {"start": 0, "end": 10, "label": "PER"},
                             {"start": 5, "end": 10, "label": "LOC"}),
     "p.jsonl: line 1: record p-9: gold spans 0-10 (PERSON) and 5-10 (LOCATION) overlap"),
    (lambda d: _brat_file(d, "T1\tPER 0 10\tAnna Rossi\n", "T2\tLOC 5 10\tRossi\n"),
     "d.ann: record d: gold spans 0-10 (PERSON) and 5-10 (LOCATION) overlap"),
]  # fmt: skip


@pytest.mark.parametrize(("write", "message"), OVERLAPS)
def test_overlapping_spans_leave_their_record_out_in_prodigy_and_brat_shapes(
    tmp_path: Path, write, message: str
) -> None:
    path = write(tmp_path)
    run = tmp_path / "run"
    result = gen_import(path, "--run", run, "--as", "gold", "--label-map", LABEL_MAP)
    assert result.exit_code == 0 and "0 records added" in result.output, result.output
    assert message in result.output and not RunPaths(run).gold.exists()
    assert RecordTable(RunPaths(run).rejects("import")).exists()


# -- formats, the command ------------------------------------------------------------------------


def test_tool_jsonl_is_sniffed_and_gen_jsonl_still_read_as_records(tmp_path: Path) -> None:
    from gen.importing import reader_for

    assert reader_for(FIXTURES / "doccano.jsonl").name == "doccano"
    assert reader_for(FIXTURES / "doccano_entities.jsonl").name == "doccano"
    assert reader_for(FIXTURES / "prodigy.jsonl").name == "prodigy"
    assert reader_for(FIXTURES / "labelstudio_min.json").name == "labelstudio"
    assert reader_for(FIXTURES / "brat" / "doc1.ann").name == "brat"
    gold = jsonl(tmp_path / "gold.jsonl", {"id": "g", "text": "x", "spans": []})
    assert reader_for(gold).name == "jsonl"
    assert reader_for(FIXTURES / "brat" / "doc1.txt", "brat").name == "brat"
    records, _ = read(FIXTURES / "brat" / "doc1.txt", format_name="brat")
    assert list(records) == ["doc1"]


def test_cli_imports_gold_with_its_summary_and_once(tmp_path: Path) -> None:
    run = tmp_path / "run"
    args = (FIXTURES / "labelstudio.json", FIXTURES / "brat", "--run", run, "--as", "gold",
            "--label-map", LABEL_MAP, "--language", "it", "--category", "health")  # fmt: skip
    result = gen_import(*args)
    assert result.exit_code == 0, result.output
    assert "5 records added" in result.output
    assert "notes: " in result.output and "cancelled annotations left out 2" in result.output
    assert "spans imported from discontinuous entities split into one span per range 2" in (
        result.output
    )
    stored = {r.id: r for r in RecordTable(RunPaths(run).gold).read()}
    assert spans(stored["labelstudio-11"]) == [
        (T1[T1.index(part) : T1.index(part) + len(part)], label) for part, label in T1_SPANS
    ]
    assert stored["doc1"].language == "it" and stored["labelstudio-14"].category == "health"
    again = gen_import(*args)
    assert again.exit_code == 0 and "0 records added" in again.output, again.output
    assert "5 already there" in again.output
