"""`gen import`: readers, validation of bad input, and round trips through the exports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from gen.cli import main
from gen.core.errors import UsageError
from gen.core.records import Record, Span
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from gen.export.base import ExportJob
from gen.export.registry import export_format
from gen.importing import RecordDefaults
from gen.importing.inputs import find_inputs
from gen.importing.run import check_fields, import_files, read_files
from gen.importing.run import read_inputs as read_placed

TEXT = (
    "Cara Ñusta Müller, la TAC del 3 maggio mostra una frattura 😀; "
    "IBAN IT60X0542811101000000123456."
)


def _gold_records() -> list[Record]:
    def span(fragment: str, label: str) -> Span:
        start = TEXT.index(fragment)
        return Span(start, start + len(fragment), label, "gold")

    return [
        Record(
            "g1",
            TEXT,
            "health",
            "email",
            "it",
            "gold",
            [
                span("Ñusta Müller", "PERSON"),
                span("la TAC del 3 maggio mostra una frattura", "health"),
                span("IT60X0542811101000000123456", "IBAN"),
            ],
        ),
        Record("g2", "Nothing sensitive here.", "other", "note", "en", "gold", []),
    ]


def _jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )
    return path


def _export(name: str, records: list[Record], folder: Path, **settings: str) -> Path:
    """Write `records` as the test split of export format `name` into `folder`."""
    export = export_format(name)
    export.write(ExportJob({"test": records}, folder, export.make_settings(settings)))
    return folder


def _key(records: list[Record]) -> list[tuple[str, list[tuple[int, int, str]]]]:
    return sorted((r.text, [(s.start, s.end, s.label) for s in r.spans]) for r in records)


def test_jsonl_gold_import_export_import_gives_the_same_spans(tmp_path):
    gold = _jsonl(
        tmp_path / "gold.jsonl",
        [
            {"id": r.id, "text": r.text, "spans": [s.to_dict() for s in r.spans]}
            for r in _gold_records()
        ],
    )
    first = read_files([gold], "gold", RecordDefaults())
    _export("jsonl", first, tmp_path / "out")
    second = read_files([tmp_path / "out" / "test.jsonl"], "gold", RecordDefaults())
    assert _key(first) == _key(second) == _key(_gold_records())
    assert all(s.source == "gold" for r in second for s in r.spans)


@pytest.mark.parametrize("scheme", ["io", "bio"])
def test_conll_import_export_import_gives_the_same_spans(tmp_path, scheme):
    # The exporter writes a -DOCSTART- line before each record: one document each.
    _export("conll", _gold_records(), tmp_path / "a", scheme=scheme)
    conll = tmp_path / "a" / "test.conll"
    first = read_files([conll], "gold", RecordDefaults())
    record, other = first
    assert other.text == "Nothing sensitive here ." and not other.spans
    assert "Ñusta Müller" in record.text
    assert [record.text[s.start : s.end] for s in record.spans] == [
        "Ñusta Müller",
        "la TAC del 3 maggio mostra una frattura",
        "IT60X0542811101000000123456",
    ]
    _export("conll", first, tmp_path / "b", scheme=scheme)
    again = tmp_path / "again.conll"
    again.write_text((tmp_path / "b" / "test.conll").read_text(encoding="utf-8"), encoding="utf-8")
    assert _key(read_files([again], "gold", RecordDefaults())) == _key(first)


def test_conll_docstart_separates_documents_and_bio_keeps_touching_spans(tmp_path):
    conll = tmp_path / "x.conll"
    conll.write_text(
        "-DOCSTART- O\n\nAnna B-PERSON\nBo B-PERSON\nsaid O\n\n-DOCSTART- O\n\nok O\n",
        encoding="utf-8",
    )
    first, second = read_files([conll], "gold", RecordDefaults())
    assert [(first.text[s.start : s.end], s.label) for s in first.spans] == [
        ("Anna", "PERSON"),
        ("Bo", "PERSON"),
    ]
    assert second.text == "ok" and not second.spans


def test_spacy_docbin_import_export_import_gives_the_same_spans(tmp_path):
    pytest.importorskip("spacy")
    _export("spacy", _gold_records(), tmp_path / "a")
    first = read_files([tmp_path / "a" / "test.spacy"], "gold", RecordDefaults())
    assert _key(first) == _key(_gold_records())
    assert {r.id for r in first} == {"g1", "g2"}
    _export("spacy", first, tmp_path / "b")
    assert _key(read_files([tmp_path / "b" / "test.spacy"], "gold", RecordDefaults())) == _key(
        first
    )


def test_cli_imports_documents_and_gold_into_the_run_once(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("Lettera di Ñusta: 😀 sto bene.", encoding="utf-8")
    _jsonl(tmp_path / "b.jsonl", [{"id": "b", "text": "Second text.", "category": "health"}])
    gold = _jsonl(
        tmp_path / "gold.jsonl",
        [
            {"id": r.id, "text": r.text, "spans": [s.to_dict() for s in r.spans]}
            for r in _gold_records()
        ],
    )
    run = tmp_path / "run"
    runner = CliRunner()
    result = runner.invoke(
        main,
        [
            "import",
            str(docs),
            str(tmp_path / "b.jsonl"),
            "--run",
            str(run),
            "--as",
            "documents",
            "--language",
            "it",
        ],
    )
    assert result.exit_code == 0, result.output
    documents = {r.id: r for r in RecordTable(RunPaths(run).documents).read()}
    assert documents["a"].text == "Lettera di Ñusta: 😀 sto bene."
    assert (documents["a"].category, documents["a"].language, documents["a"].source) == (
        "other",
        "it",
        "import",
    )
    assert documents["b"].category == "health"
    result = runner.invoke(main, ["import", str(gold), "--run", str(run), "--as", "gold"])
    assert result.exit_code == 0 and "2 records added" in result.output
    again = runner.invoke(main, ["import", str(gold), "--run", str(run), "--as", "gold"])
    assert "0 records added" in again.output and "2 already there" in again.output
    assert _key(RecordTable(RunPaths(run).gold).read()) == _key(_gold_records())


def _line(text: str, *spans: tuple[object, int, str]) -> str:
    rows = [{"start": start, "end": end, "label": label} for start, end, label in spans]
    return json.dumps({"id": "a", "text": text, "spans": rows}) + "\n"


BAD_INPUTS = [
    ("bad.jsonl", '{"id": "a", "text": "abc"}\n{"id": "b"\n', "bad.jsonl line 2: not JSON"),
    ("outside.jsonl", _line("abc", (1, 9, "x")), "line 1: record a: span 1-9"),
    ("blank.jsonl", _line("a  b", (1, 3, "x")), "covers only whitespace"),
    ("overlap.jsonl", _line("abcdef", (0, 3, "x"), (2, 4, "y")), "overlap"),
    ("noid.jsonl", '{"text": "abc"}\n', "noid.jsonl line 1: id: required key is missing"),
    (
        "types.jsonl",
        _line("abc", ("0", 1, "x")),
        "types.jsonl line 1: spans.0.start: expected an integer",
    ),
    ("tag.conll", "Anna\tB-PERSON\nRossi\tPERSON\n", "tag.conll: line 2: tag 'PERSON'"),
    ("cols.conll", "Anna\n", "cols.conll: line 1: expected a token and a tag"),
    ("broken.spacy", "not a docbin", "broken.spacy: not a spaCy DocBin"),
    ("data.xml", "<a/>", "no reader for .xml"),
]


@pytest.mark.parametrize(("name", "content", "message"), BAD_INPUTS)
def test_bad_input_is_one_clear_line_and_writes_nothing(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    good = _jsonl(tmp_path / "good.jsonl", [{"id": "ok", "text": "fine"}])
    run = tmp_path / "run"
    result = CliRunner().invoke(
        main, ["import", str(good), str(path), "--run", str(run), "--as", "gold"]
    )
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1
    assert not RecordTable(RunPaths(run).gold).read()


def test_text_files_are_not_gold_and_ids_must_be_unique(tmp_path):
    (tmp_path / "a.txt").write_text("text", encoding="utf-8")
    with pytest.raises(Exception, match="carry no labels"):
        import_files(tmp_path / "run", [tmp_path / "a.txt"], "gold")
    one = _jsonl(tmp_path / "one.jsonl", [{"id": "x", "text": "a"}])
    two = _jsonl(tmp_path / "two.jsonl", [{"id": "x", "text": "b"}])
    with pytest.raises(Exception, match="id 'x' is also in"):
        read_files([one, two], "documents", RecordDefaults())


def test_a_folder_import_skips_and_lists_files_no_reader_takes(tmp_path):
    folder = tmp_path / "letters"
    (folder / "2024").mkdir(parents=True)
    (folder / "README.md").write_text("# About these letters\n")
    (folder / ".DS_Store").write_bytes(b"\x00\x01")
    (folder / "a.txt").write_text("First letter.", encoding="utf-8")
    (folder / "2024" / "a.txt").write_text("Another first letter.", encoding="utf-8")
    run = tmp_path / "run"
    result = CliRunner().invoke(
        main, ["import", str(folder), "--run", str(run), "--as", "documents"]
    )
    assert result.exit_code == 0, result.output
    assert "2 records added" in result.output
    assert "skipped 2 files no reader takes" in result.output
    assert str(folder / "README.md") in result.output
    ids = sorted(r.id for r in RecordTable(RunPaths(run).documents).read())
    assert ids == ["2024/a", "a"]


def test_import_and_predict_give_a_text_file_the_same_id(tmp_path):
    from gen.predict.run import read_inputs

    folder = tmp_path / "letters"
    (folder / "x" / "y").mkdir(parents=True)
    for path in (folder / "a.txt", folder / "x" / "a.txt", folder / "x" / "y" / "b.txt"):
        path.write_text(f"Text of {path.name}.", encoding="utf-8")
    imported = read_files([folder], "documents", RecordDefaults())
    assert sorted(r.id for r in imported) == ["a", "x/a", "x/y/b"]
    assert sorted(r.id for r in read_inputs(folder)) == sorted(r.id for r in imported)


def test_a_record_table_folder_is_imported_as_one_input(tmp_path):
    other = RunPaths(tmp_path / "other")
    with RecordTable(other.labeled) as table:
        table.extend(_gold_records())
    run = tmp_path / "run"
    result = CliRunner().invoke(
        main, ["import", str(other.root), "--run", str(run), "--as", "gold"]
    )
    assert result.exit_code == 0, result.output
    assert "2 records added" in result.output and "skipped" not in result.output
    assert _key(RecordTable(RunPaths(run).gold).read()) == _key(_gold_records())
    again = CliRunner().invoke(
        main, ["import", str(other.labeled), "--run", str(run), "--as", "gold"]
    )
    assert again.exit_code == 0 and "2 already there" in again.output, again.output


def _import(*args: object):
    return CliRunner().invoke(main, ["import", *map(str, args)])


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--category", "astrology"], "unknown category 'astrology'; expected one of: health,"),
        (["--language", "xx"], "no prompts for language 'xx'"),
    ],
)
def test_unknown_categories_and_languages_are_refused_up_front(tmp_path, option, message):
    (tmp_path / "x.txt").write_text("Some text to label.", encoding="utf-8")
    run = tmp_path / "run"
    result = _import(tmp_path / "x.txt", "--run", run, "--as", "documents", *option)
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output
    assert not run.exists()


def test_a_record_of_an_unknown_category_is_refused_naming_it(tmp_path):
    path = _jsonl(tmp_path / "in.jsonl", [{"id": "s", "text": "Stars.", "category": "astrology"}])
    result = _import(path, "--run", tmp_path / "run", "--as", "documents")
    assert result.exit_code == 2, result.output
    assert "in.jsonl: record s: unknown category 'astrology'" in result.output


def test_reimporting_a_changed_record_says_so_and_overwrite_replaces_it(tmp_path):
    path = tmp_path / "x.txt"
    path.write_text("A letter about nothing.", encoding="utf-8")
    run = tmp_path / "run"
    assert _import(path, "--run", run, "--as", "documents").exit_code == 0
    assert "0 records added" in _import(path, "--run", run, "--as", "documents").output
    changed = _import(path, "--run", run, "--as", "documents", "--category", "health")
    assert changed.exit_code == 2, changed.output
    assert "id 'x' is already in" in changed.output and "another category" in changed.output
    assert "--overwrite" in changed.output
    with RecordTable(RunPaths(run).labeled) as labeled:
        labeled.extend(RecordTable(RunPaths(run).documents).read())
    path.write_text("A letter about her asthma.", encoding="utf-8")
    result = _import(path, "--run", run, "--as", "documents", "--category", "health", "--overwrite")
    assert result.exit_code == 0, result.output
    assert "1 replaced" in result.output
    assert "1 replaced documents are labeled in their old version" in result.stderr
    (record,) = RecordTable(RunPaths(run).documents).read()
    assert (record.text, record.category) == ("A letter about her asthma.", "health")


def test_a_text_file_of_an_unknown_language_is_named(tmp_path):
    (tmp_path / "x.txt").write_text("Texte.", encoding="utf-8")
    inputs = find_inputs([tmp_path / "x.txt"])[0]
    read = read_placed(inputs, "documents", RecordDefaults(language="xx"))
    with pytest.raises(UsageError, match=r"x\.txt: record x: no prompts for language 'xx'"):
        check_fields(read, "documents", RecordDefaults(), None)


def test_a_text_files_byte_order_mark_is_dropped_like_its_crlf(tmp_path):
    path = tmp_path / "letter.txt"
    path.write_bytes("\ufeffDear Anna,\r\nall is well.\r\n".encode())
    (record,) = read_files([path], "documents", RecordDefaults())
    assert record.text == "Dear Anna,\nall is well.\n"


def test_predict_reads_text_files_by_the_rule_of_import(tmp_path):
    """One rule for both: an empty .txt in a folder is refused by each, a single .txt file
    is read by each, with the same text and id."""
    from gen.predict.run import read_inputs

    single = tmp_path / "one.txt"
    single.write_bytes("\ufeffDear Anna,\r\nall is well.".encode())
    imported = read_files([single], "documents", RecordDefaults())
    predicted = read_inputs(single)
    assert [(r.id, r.text) for r in predicted] == [(r.id, r.text) for r in imported]
    folder = tmp_path / "letters"
    folder.mkdir()
    (folder / "a.txt").write_text("First letter.", encoding="utf-8")
    (folder / "empty.txt").write_text(" \n", encoding="utf-8")
    with pytest.raises(UsageError, match=r"empty\.txt: the file is empty"):
        read_files([folder], "documents", RecordDefaults())
    with pytest.raises(UsageError, match=r"empty\.txt: the file is empty"):
        read_inputs(folder)


def test_the_conll_round_trip_keeps_the_record_ids(tmp_path):
    """The export writes each record's id on its -DOCSTART- line; the import reads it back.
    A document line without one gives `<file>-<n>`, as before."""
    records = [*_gold_records(), Record("a b\tc", "Tab in the id.", "other", "note", "en", "gold")]
    _export("conll", records, tmp_path / "out")
    conll = tmp_path / "out" / "test.conll"
    assert conll.read_text(encoding="utf-8").startswith('-DOCSTART-\tO\tid="g1"\tO\n\n')
    imported = read_files([conll], "gold", RecordDefaults())
    assert [r.id for r in imported] == ["g1", "g2", "a b\tc"]
    hand = tmp_path / "hand.conll"
    hand.write_text("-DOCSTART- O\n\nok O\n\n-DOCSTART-\tO\n\nfine\tO\n", encoding="utf-8")
    assert [r.id for r in read_files([hand], "gold", RecordDefaults())] == ["hand-0", "hand-1"]
