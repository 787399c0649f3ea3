"""`gen import --as records`: gen's own kept records into RUN/labeled as they are, through
`gen build` into RUN/dataset with their planned spans and `meta.disclosures`."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from gen.cli import main
from gen.core.packs import load_language_pack
from gen.core.records import Record, Span, records_to_table
from gen.core.store import RecordTable
from gen.dataset.assemble import build_dataset
from gen.dataset.options import BuildOptions
from labeling.planned import FactFinder

NARRATIVE = (
    "Odile Ferrant, 52, keeps the ledgers of a boatyard in Quimper. "
    "Last spring she was diagnosed with type 2 diabetes after a routine check. "
    "The boatyard's clinic runs a free flu vaccination day every October."
)
LAYOUT = (
    "MEMBERSHIP FORM\nName: Teodor Vasquez\nReligion or belief: Quaker (Society of Friends)\n"
    "Notes: prefers contact by post."
)
FACT = "was diagnosed with type 2 diabetes"
FIELD = "Quaker (Society of Friends)"
TOPIC = "The boatyard's clinic runs a free flu vaccination day every October"


def _at(text: str, part: str) -> tuple[int, int]:
    start = text.index(part)
    return start, start + len(part)


def _records() -> list[Record]:
    """A narrative whose stored planned span is shorter than its fact (as an older finder
    left it), with a non-disclosure; and a layout whose fact is a field value."""
    fact_start, fact_end = _at(NARRATIVE, FACT)
    short = _at(NARRATIVE, "type 2 diabetes")
    name = _at(NARRATIVE, "Odile Ferrant")
    topic = _at(NARRATIVE, TOPIC)
    narrative = Record(
        id="kept-en-000",
        text=NARRATIVE,
        category="health",
        doc_type="Medical records",
        language="en",
        source="llm",
        spans=[
            Span(*name, "PERSON", "faker"),
            Span(*short, "health", "planned", "fuzzy", 0.875),
        ],
        persona={"name": "Odile Ferrant", "age": "52", "city": "Quimper"},
        model="writer.gguf",
        seed=11,
        group="kept-en-000",
        meta={
            "plan": "k1",
            "disclosures": {
                "facts": "pack",
                "style": "inline",
                "planned": [
                    {
                        "category": "health",
                        "text": FACT,
                        "source": "pack",
                        "found": "fuzzy",
                        "start": short[0],
                        "end": short[1],
                        "score": 0.875,
                    }
                ],
                "non_disclosures": [
                    {
                        "category": "health",
                        "text": TOPIC,
                        "source": "pack",
                        "found": "exact",
                        "start": topic[0],
                        "end": topic[1],
                        "score": 1.0,
                    }
                ],
            },
        },
        flags=[],
    )
    assert (fact_start, fact_end) != short
    field = _at(LAYOUT, FIELD)
    layout = Record(
        id="kept-en-001",
        text=LAYOUT,
        category="philosophy",
        doc_type="Membership form",
        language="en",
        source="llm",
        spans=[Span(*field, "philosophy", "planned", "exact", 1.0)],
        persona={"name": "Teodor Vasquez"},
        group="kept-en-001",
        meta={
            "shape": "layout",
            "disclosures": {
                "facts": "pack",
                "style": "inline",
                "planned": [
                    {
                        "category": "philosophy",
                        "text": FIELD,
                        "form": "field",
                        "source": "pack",
                        "found": "exact",
                        "start": field[0],
                        "end": field[1],
                        "score": 1.0,
                    }
                ],
            },
        },
        flags=["disclosure_missing"],
    )
    return [narrative, layout]


def _parquet(path: Path, records: list[Record]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(records_to_table(records), path)
    return path


def _jsonl(path: Path, records: list[Record]) -> Path:
    lines = (json.dumps(r.to_row(), ensure_ascii=False) + "\n" for r in records)
    path.write_text("".join(lines), encoding="utf-8")
    return path


def _gen(*arguments: str | Path):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, ["import", *map(str, arguments)])


@pytest.fixture
def kept(tmp_path: Path) -> Path:
    return _parquet(tmp_path / "runs" / "kept-en.parquet", _records())


def test_records_reach_the_dataset_with_their_spans_and_meta(kept, tmp_path):
    run = tmp_path / "run"
    result = _gen(kept, "--as", "records", "--run", run)
    assert result.exit_code == 0, result.output
    assert "2 records added to" in result.output and "labeled" in result.output
    build_dataset(run, BuildOptions())
    dataset = {r.id: r for r in RecordTable(run / "dataset").read()}
    for record in _records():
        built = dataset[record.id]
        assert built.meta == record.meta  # meta.disclosures, non-disclosures included
        assert built.spans == record.spans  # sources, quality and scores
        assert (built.text, built.category, built.doc_type, built.language) == (
            record.text,
            record.category,
            record.doc_type,
            record.language,
        )
        assert (built.source, built.persona, built.flags) == ("llm", record.persona, record.flags)
    assert not (run / "gold").exists() and not (run / "documents").exists()


def test_jsonl_records_and_a_run_folder_are_read_alike(kept, tmp_path):
    first, second = tmp_path / "first", tmp_path / "second"
    assert _gen(kept, "--as", "records", "--run", first).exit_code == 0
    # A run folder gives its labeled table; gen's JSONL records are read as the Parquet ones.
    assert _gen(first, "--as", "records", "--run", second).exit_code == 0
    jsonl = _jsonl(tmp_path / "kept.jsonl", _records())
    third = tmp_path / "third"
    assert _gen(jsonl, "--as", "records", "--run", third).exit_code == 0
    expected = sorted(_records(), key=lambda r: r.id)
    for run in (first, second, third):
        stored = sorted(RecordTable(run / "labeled").read(), key=lambda r: r.id)
        assert [(r.meta, r.spans, r.text) for r in stored] == [
            (r.meta, r.spans, r.text) for r in expected
        ]


def test_sources_keeps_only_the_spans_of_those_sources_and_counts_the_others(kept, tmp_path):
    run = tmp_path / "run"
    result = _gen(kept, "--as", "records", "--run", run, "--sources", "planned")
    assert result.exit_code == 0, result.output
    assert "spans of source faker left out (--sources) 1" in result.output
    stored = {r.id: r for r in RecordTable(run / "labeled").read()}
    assert {s.source for r in stored.values() for s in r.spans} == {"planned"}
    assert stored["kept-en-000"].meta == _records()[0].meta
    unknown = _gen(kept, "--as", "records", "--run", tmp_path / "x", "--sources", "planed")
    assert unknown.exit_code == 2
    assert "--sources 'planed': unknown span source planed; expected some of" in unknown.output
    assert not (tmp_path / "x").exists()


def test_refind_finds_clause_facts_again_and_keeps_field_facts_where_stored(kept, tmp_path):
    run = tmp_path / "run"
    result = _gen(kept, "--as", "records", "--run", run, "--refind")
    assert result.exit_code == 0, result.output
    assert "records whose planned facts were found again (--refind) 2" in result.output
    stored = {r.id: r for r in RecordTable(run / "labeled").read()}
    narrative = stored["kept-en-000"]
    (found,) = FactFinder(load_language_pack("en").facts.finder, "en").find(NARRATIVE, [FACT])
    planned = [s for s in narrative.spans if s.source == "planned"]
    assert [(s.start, s.end, s.quality) for s in planned] == [
        (found.start, found.end, found.quality)
    ]
    assert FACT in NARRATIVE[found.start : found.end]  # the whole fact, not the stored part
    assert [s.label for s in narrative.spans if s.source == "faker"] == ["PERSON"]
    (field,) = stored["kept-en-001"].spans
    assert (field.start, field.end) == _at(LAYOUT, FIELD)
    assert (field.quality, field.score) == ("exact", 1.0)


def test_refind_names_the_record_whose_stored_field_offsets_do_not_fit(tmp_path):
    narrative, layout = _records()
    facts = layout.meta["disclosures"]["planned"]
    broken = replace(
        layout,
        meta={
            **layout.meta,
            "disclosures": {"style": "inline", "planned": [{**facts[0], "end": len(LAYOUT) + 40}]},
        },
    )
    path = _parquet(tmp_path / "broken.parquet", [narrative, broken])
    result = _gen(path, "--as", "records", "--run", tmp_path / "run", "--refind")
    assert result.exit_code == 2
    assert "record kept-en-001" in result.output and "outside the text" in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "run").exists()


def test_a_list_file_names_paths_relative_to_its_folder(kept, tmp_path, monkeypatch):
    other = _parquet(
        tmp_path / "runs" / "more" / "other.parquet",
        [replace(r, id=r.id.replace("kept", "other")) for r in _records()],
    )
    listing = tmp_path / "runs" / "best.txt"
    listing.write_text(
        "# the best kept runs\n\nkept-en.parquet\n  more/other.parquet  \n# done\n",
        encoding="utf-8",
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    run = tmp_path / "run"
    result = _gen(f"@{listing}", "--as", "records", "--run", run)
    assert result.exit_code == 0, result.output
    assert "4 records added" in result.output
    assert len(RecordTable(run / "labeled").read()) == 4
    assert other.exists()
    listing.write_text("kept-en.parquet\nmissing.parquet\n", encoding="utf-8")
    missing = _gen(f"@{listing}", "--as", "records", "--run", tmp_path / "x")
    assert missing.exit_code == 2
    assert f"list file {listing} line 2: {listing.parent / 'missing.parquet'} not found" in (
        missing.output
    )
    listing.write_text("# nothing yet\n\n", encoding="utf-8")
    empty = _gen(f"@{listing}", "--as", "records", "--run", tmp_path / "x")
    assert empty.exit_code == 2 and "names no path" in empty.output
    assert not (tmp_path / "x").exists()


def test_ids_already_in_the_run_are_skipped_when_equal_and_refused_when_not(kept, tmp_path):
    run = tmp_path / "run"
    assert _gen(kept, "--as", "records", "--run", run).exit_code == 0
    again = _gen(kept, "--as", "records", "--run", run)
    assert again.exit_code == 0
    assert "0 records added to" in again.output and "(2 already there)" in again.output
    narrative, layout = _records()
    changed = _parquet(
        tmp_path / "changed.parquet", [replace(narrative, text=NARRATIVE + " Later."), layout]
    )
    refused = _gen(changed, "--as", "records", "--run", run)
    assert refused.exit_code == 2
    assert "id 'kept-en-000' is already in" in refused.output and "another text" in refused.output
    replaced = _gen(changed, "--as", "records", "--run", run, "--overwrite")
    assert replaced.exit_code == 0 and "1 replaced" in replaced.output
    twice = _gen(kept, changed, "--as", "records", "--run", tmp_path / "x")
    assert twice.exit_code == 2 and "id 'kept-en-000' is also in" in twice.output
    # An id of the run's own documents: gen label would never label that document.
    documents = tmp_path / "generated"
    with RecordTable(documents / "documents") as table:
        table.extend([replace(narrative, spans=[], meta={})])
    taken = _gen(kept, "--as", "records", "--run", documents)
    assert taken.exit_code == 2
    assert "id 'kept-en-000' is a document of" in taken.output
    assert not (documents / "labeled").exists()


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("broken.parquet", b"PAR1 not really", "cannot read records file"),
        ("empty.jsonl", b"", "no records found"),
        ("notes.txt", b"a plain text", "--as records takes gen's own records"),
        ("short.jsonl", b'{"id": "a", "text": "Some text."}\n', "names no category"),
    ],
)
def test_a_bad_or_empty_file_is_one_line_exit_2_and_writes_nothing(
    kept, tmp_path, name, content, message
):
    bad = tmp_path / name
    bad.write_bytes(content)
    run = tmp_path / "run"
    result = _gen(kept, bad, "--as", "records", "--run", run)
    assert result.exit_code == 2
    assert message in result.output
    assert len(result.output.strip().splitlines()) == 1 and "Traceback" not in result.output
    assert not run.exists()


def test_options_for_outside_files_do_not_apply_to_records(kept, tmp_path):
    result = _gen(kept, "--as", "records", "--run", tmp_path / "run", "--category", "health")
    assert result.exit_code == 2
    assert "--category does not apply to --as records" in result.output
    gold = _gen(kept, "--as", "gold", "--run", tmp_path / "run", "--refind")
    assert gold.exit_code == 2 and "--sources and --refind need --as records" in gold.output
    assert not (tmp_path / "run").exists()


#: (category, the document with its fact in [brackets]) for a small kept run.
KEPT_RUN = [
    (
        "health",
        "Marta Kowalski teaches piano in Leeds. She [has lived with epilepsy since her "
        "teens and takes lamotrigine daily]. Her pupils know her for strict scales.",
    ),
    (
        "politic",
        "Jonas Berg runs a bakery near the harbour. He [has been a card-carrying member "
        "of the Green Party for ten years]. His rye loaves sell out by noon.",
    ),
    (
        "judicial",
        "Priya Nair drives a delivery van across Cardiff. In 2018 she [was convicted "
        "of shoplifting and fined two hundred pounds]. She now volunteers at a food bank.",
    ),
    (
        "philosophy",
        "Tomas Ruiz repairs bicycles in a shed behind his flat. He [converted to "
        "Buddhism after a retreat in Nepal and meditates every dawn]. Customers bring old frames.",
    ),
    (
        "sexuality",
        "Lena Fischer coaches a youth football team. She [came out as bisexual to her "
        "family last winter]. The team trains on Tuesday evenings.",
    ),
    (
        "ethnic",
        "Kwame Mensah is a surveyor for the county council. He [is of Ghanaian Ashanti "
        "descent and speaks Twi at home]. He maps flood plains each spring.",
    ),
    (
        "health",
        "Giulia Ferri manages a small bookshop. She [was treated for breast cancer in "
        "2021 and finished chemotherapy last May]. The shop hosts poetry readings.",
    ),
    (
        "judicial",
        "Declan Moore works nights at a warehouse. He [served eighteen months in "
        "prison for burglary] before this job. He is saving for a motorbike.",
    ),
    (
        "politic",
        "Sofia Lind writes grant reports for a museum. She [canvasses for the Labour "
        "Party at weekends]. Her desk faces the sculpture garden.",
    ),
    (
        "philosophy",
        "Ahmed Saleh is a pharmacist in Bradford. He [is a practising Muslim who "
        "prays five times a day]. The pharmacy opens at eight.",
    ),
    (
        "health",
        "Nora Blake trains guide dogs in Bristol. She [has type 1 diabetes and wears an "
        "insulin pump]. Her latest dog is a calm labrador.",
    ),
    (
        "other",
        "The county library opens late in summer. Residents borrow e-books with a "
        "library card, and staff run a reading club for children.",
    ),
]


def _kept_run() -> list[Record]:
    records = []
    for index, (category, marked) in enumerate(KEPT_RUN):
        text = marked.replace("[", "").replace("]", "")
        planned, spans = [], []
        if "[" in marked:
            start = marked.index("[")
            end = marked.index("]") - 1
            fact = {"category": category, "text": text[start:end], "source": "pack"}
            planned.append({**fact, "found": "exact", "start": start, "end": end, "score": 1.0})
            spans.append(Span(start, end, category, "planned", "exact", 1.0))
        meta = {"disclosures": {"facts": "pack", "style": "inline", "planned": planned}}
        records.append(
            Record(f"run-en-{index:03d}", text, category, "Notes", "en", "llm", spans, meta=meta)
        )
    return records


@pytest.mark.model
def test_the_encoder_trains_on_an_imported_run_from_its_planned_spans(tmp_path, monkeypatch):
    pytest.importorskip("sklearn")
    monkeypatch.setenv("GEN_CACHE_DIR", str(tmp_path / "cache"))
    kept = _parquet(tmp_path / "kept.parquet", _kept_run())
    run = tmp_path / "run"
    runner = CliRunner()
    steps = [
        ["import", str(kept), "--as", "records", "--sources", "planned", "--run", str(run)],
        ["build", "--run", str(run)],
        ["train", "--run", str(run), "--trainer", "encoder", "--identifiers", "none"],
    ]
    for step in steps:
        result = runner.invoke(main, step)
        assert result.exit_code == 0, result.output
    info = json.loads((run / "models" / "encoder" / "detector.json").read_text())
    assert sum(info["train_positive_units"].values()) > 0
    assert info["identifiers"] == [] and set(info["labels"]) <= {c for c, _ in KEPT_RUN}


def test_a_record_error_names_the_file_and_line(kept, tmp_path):
    records = _records()
    records[1] = replace(records[1], language="xx")
    path = _jsonl(tmp_path / "other.jsonl", records)
    result = _gen(path, "--as", "records", "--run", tmp_path / "run")
    assert result.exit_code == 2, result.output
    assert result.output.startswith(
        f"error: records file {path} line 2: record kept-en-001: no prompts for language 'xx'"
    )
    row = _parquet(tmp_path / "other.parquet", records)
    assert f"records file {row} row 2: record kept-en-001: no prompts" in (
        _gen(row, "--as", "records", "--run", tmp_path / "run").output
    )
    assert not (tmp_path / "run").exists()


def test_a_gold_file_is_refused_pointing_to_as_gold(tmp_path):
    gold = tmp_path / "gold.jsonl"
    line = {"id": "g-1", "text": "Anna has asthma.", "category": "health",
            "doc_type": "letter", "language": "en",
            "spans": [{"start": 9, "end": 15, "label": "health"}]}  # fmt: skip
    gold.write_text(json.dumps(line) + "\n" + json.dumps({**line, "id": "g-2"}) + "\n")
    run = tmp_path / "run"
    result = _gen(gold, "--as", "records", "--run", run)
    assert result.exit_code == 2, result.output
    (message,) = result.output.strip().splitlines()
    assert message.startswith(f"error: records file {gold} line 1: record g-1 holds gold spans")
    assert "(and 1 more records)" in message and "--as gold" in message
    assert not run.exists()
    # Left out with --sources, the gold spans are counted like any other source's.
    kept = _gen(gold, "--as", "records", "--run", run, "--sources", "planned")
    assert kept.exit_code == 0, kept.output
    assert "spans of source gold left out (--sources) 2" in kept.output
    assert _gen(gold, "--as", "gold", "--run", run).exit_code == 0
