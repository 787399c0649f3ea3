import json
import shutil
from pathlib import Path

import pytest
from build_fixtures import make_records, make_run
from click.testing import CliRunner
from export_fixtures import unwritable

from gen.cli import main
from gen.core.errors import UsageError
from gen.core.files import write_table_atomic
from gen.core.records import Record, Span, records_to_table
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from gen.dataset.assemble import assemble, build_dataset
from gen.dataset.options import BuildOptions
from gen.dataset.spans import check_dataset_spans, resolve_overlaps


def _assemble(**options):
    docs, negatives, queries = make_records()
    return assemble(docs, negatives, queries, BuildOptions(**options))


def test_build_writes_dataset_rejects_and_manifest(tmp_path):
    paths = make_run(tmp_path)
    report = build_dataset(tmp_path, BuildOptions())
    dataset = RecordTable(paths.dataset).read()
    assert len(dataset) == report.records == 60 + 8 + 3
    assert report.inputs_found == ["labeled", "wikipedia", "queries"]
    assert report.removed == {"exact_duplicate": 1, "near_duplicate": 1}
    rejected = RecordTable(paths.rejects("build")).read()
    assert {(r.id, r.meta["reason"], r.meta["detail"]) for r in rejected} == {
        ("doc-copy", "exact_duplicate", "doc-001"),
        ("doc-near", "near_duplicate", "doc-002"),
    }
    manifest = json.loads(paths.manifest("build").read_text())
    assert manifest["records"] == len(dataset)
    assert manifest["options"]["negatives_share"] == 0.05
    for record in dataset:
        check_dataset_spans(record)


def test_rebuild_replaces_the_dataset(tmp_path):
    paths = make_run(tmp_path)
    build_dataset(tmp_path, BuildOptions())
    build_dataset(tmp_path, BuildOptions(include_queries=False))
    dataset = RecordTable(paths.dataset).read()
    assert not [r for r in dataset if r.source == "faker"]
    assert len(RecordTable(paths.dataset).part_paths()) == 1


def test_negatives_share_is_a_fraction_of_documents():
    dataset, _, report = _assemble(negatives_share=0.25)
    documents = sum(r.source == "llm" for r in dataset)
    negatives = sum(r.source == "wikipedia" for r in dataset)
    assert negatives == report.negatives_used == round(0.25 / 0.75 * documents)
    assert negatives / (documents + negatives) == pytest.approx(0.25, abs=0.01)
    none, _, _ = _assemble(negatives_share=0)
    assert not [r for r in none if r.source == "wikipedia"]


def test_negatives_sample_is_reproducible():
    first = {r.id for r in _assemble(seed=4)[0]}
    assert first == {r.id for r in _assemble(seed=4)[0]}
    assert first != {r.id for r in _assemble(seed=5)[0]}


def test_label_schemes():
    categories, _, report = _assemble(scheme="categories")
    labels = {s.label for r in categories for s in r.spans}
    assert labels == {"health", "politic", "judicial", "sexuality"}
    assert report.spans_dropped["scheme"] > 0
    with_pii = {s.label for r in _assemble(scheme="categories+pii")[0] for s in r.spans}
    assert {"PERSON", "DATE", "health"} <= with_pii
    binary = {s.label for r in _assemble(scheme="binary")[0] for s in r.spans}
    assert binary == {"sensitive"}


def test_span_sources_and_overlap_policies():
    by_priority, _, _ = _assemble(sources=("llm_censor", "llm_sentences"))
    sources = {s.source for r in by_priority for s in r.spans}
    assert sources == {"llm_censor"}, "censor spans sit inside sentence spans and win"
    longest, _, _ = _assemble(sources=("llm_censor", "llm_sentences"), overlap="longest")
    assert {s.source for r in longest for s in r.spans} == {"llm_sentences"}
    only_sentences, _, report = _assemble(sources=("llm_sentences",))
    assert {s.source for r in only_sentences for s in r.spans} == {"llm_sentences"}
    assert report.spans_dropped["source"] > 0


def test_resolve_overlaps_keeps_disjoint_spans():
    spans = [
        Span(0, 10, "health", "llm_sentences"),
        Span(2, 5, "health", "llm_censor"),
        Span(12, 20, "PERSON", "faker"),
    ]
    order = ("llm_censor", "llm_sentences", "faker")
    assert resolve_overlaps(spans, order, "priority") == [spans[1], spans[2]]
    assert resolve_overlaps(spans, order, "longest") == [spans[0], spans[2]]


def test_exclude_flagged_is_counted():
    flagged = sum(bool(r.flags) for r in make_records()[0])
    dataset, rejected, report = _assemble(exclude_flagged=True)
    assert report.removed["flagged"] == flagged > 0
    assert not [r for r in dataset if r.flags]
    assert all(
        r.meta["detail"] == "alignment_low" for r in rejected if r.meta["reason"] == "flagged"
    )


def _echoing(tmp_path: Path) -> RunPaths:
    """A run whose labeled documents 5 and 6 hold an echo of their prompt; 6 has another
    flag too."""
    paths = RunPaths(tmp_path)
    docs, negatives, _ = make_records()
    both = (["prompt_echo"], ["alignment_low", "prompt_echo"])
    for record, flags in zip(docs[5:7], both, strict=True):
        record.flags = flags
        record.meta = {**record.meta, "echo": [{"kind": "slot", "text": "[Insert Date]"}]}
    for folder, records in ((paths.labeled, docs), (paths.wikipedia, negatives)):
        with RecordTable(folder) as table:
            table.extend(records)
    return paths


def test_documents_that_echo_their_prompt_are_left_out_and_counted_unless_kept(tmp_path):
    paths = _echoing(tmp_path)
    echoing = {r.id for r in RecordTable(paths.labeled).read() if "prompt_echo" in r.flags}
    report = build_dataset(tmp_path, BuildOptions())
    assert report.removed["prompt_echo"] == 2
    assert not echoing & {r.id for r in RecordTable(paths.dataset).read()}
    rejected = [r for r in RecordTable(paths.rejects("build")).read() if r.id in echoing]
    assert {(r.meta["reason"], r.meta["detail"]) for r in rejected} == {("prompt_echo", "slot")}
    flagged = build_dataset(tmp_path, BuildOptions(exclude_flagged=True))
    assert flagged.removed["prompt_echo"] == 2  # counted with its own reason first
    kept = build_dataset(tmp_path, BuildOptions(keep_echoes=True))
    assert "prompt_echo" not in kept.removed
    assert echoing <= {r.id for r in RecordTable(paths.dataset).read()}
    result = CliRunner().invoke(main, ["build", "--run", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "prompt_echo 2" in result.output
    result = CliRunner().invoke(main, ["build", "--run", str(tmp_path), "--keep-echoes"])
    assert result.exit_code == 0 and "prompt_echo" not in result.output


def test_cleaning_keeps_labels_on_the_same_words():
    plain = {r.id: r for r in _assemble()[0]}
    for record in _assemble(clean=True)[0]:
        assert record.text == record.text.lower()
        assert "," not in record.text
        original = plain[record.id]
        cleaned = [record.text[s.start : s.end] for s in record.spans]
        expected = [original.text[s.start : s.end].lower().replace(",", "") for s in original.spans]
        assert cleaned == expected


def test_invalid_spans_are_rejected_never_kept():
    blank = Record("blank", "   x", "health", "email", "en", "llm", [Span(0, 2, "health", "faker")])
    dataset, rejected, report = assemble([blank], [], [], BuildOptions())
    assert dataset == []
    assert report.removed == {"invalid_span": 1}
    assert "whitespace" in rejected[0].meta["detail"]


def test_similar_documents_share_a_group():
    docs, _, _ = make_records()
    twin = Record(**{**{k: getattr(docs[5], k) for k in Record.__slots__}, "id": "twin"})
    twin.text = docs[5].text.replace("Dear", "Hello") + " See you soon, and thanks again."
    twin.group = "twin"
    twin.persona = None
    dataset, _, _ = assemble([docs[5], twin], [], [], BuildOptions())
    assert dataset[0].group == dataset[1].group


def test_missing_inputs_are_named(tmp_path):
    paths = make_run(tmp_path)
    for path in sorted(paths.queries.iterdir()):
        path.unlink()
    paths.queries.rmdir()
    report = build_dataset(tmp_path, BuildOptions())
    assert report.inputs_missing == ["translated", "gold", "queries"]
    with pytest.raises(UsageError, match="nothing to build"):
        build_dataset(tmp_path / "empty", BuildOptions())


def test_bad_options_are_usage_errors():
    with pytest.raises(UsageError, match="span sources"):
        BuildOptions(sources=("llm_censor", "pred"))
    with pytest.raises(UsageError, match="negatives share"):
        BuildOptions(negatives_share=1.0)


def test_cli_build(tmp_path):
    make_run(tmp_path)
    runner = CliRunner()
    result = runner.invoke(main, ["build", "--run", str(tmp_path), "--scheme", "categories+pii"])
    assert result.exit_code == 0, result.output
    assert "removed records: exact_duplicate 1, near_duplicate 1" in result.output
    assert RecordTable(RunPaths(tmp_path).dataset).read()
    bad = runner.invoke(main, ["build", "--run", str(tmp_path), "--sources", "pred"])
    assert bad.exit_code == 2
    assert "span sources" in bad.output


def _gold_table(paths: RunPaths) -> tuple[Record, Record]:
    """RUN/gold: a reviewed copy of doc-003 (the LLM's health span replaced by a shorter
    one, its other spans deleted) and an imported document the run does not have."""
    labeled = {r.id: r for r in RecordTable(paths.labeled).read()}["doc-003"]
    start = labeled.text.index("Dear ") + 5
    reviewed = Record(
        "doc-003", labeled.text, labeled.category, labeled.doc_type, "en", "gold",
        [Span(start, start + 4, "PERSON", "gold")],
    )  # fmt: skip
    text = "Patient Ilse Korvin was admitted with a broken hip."
    imported = Record(
        "g-new", text, "health", "imported", "en", "gold",
        [Span(8, 19, "PERSON", "gold"), Span(40, 50, "health", "gold")],
    )  # fmt: skip
    with RecordTable(paths.gold) as table:
        table.extend([reviewed, imported])
    return reviewed, imported


def test_gold_spans_join_the_dataset_with_the_highest_priority(tmp_path):
    paths = make_run(tmp_path)
    reviewed, imported = _gold_table(paths)
    report = build_dataset(tmp_path, BuildOptions())
    assert report.inputs_found == ["labeled", "gold", "wikipedia", "queries"]
    dataset = {r.id: r for r in RecordTable(paths.dataset).read()}
    # A reviewed document has the reviewer's spans only: what they deleted stays deleted.
    assert dataset["doc-003"].spans == reviewed.spans
    assert dataset["g-new"].spans == imported.spans
    assert report.spans_dropped["superseded_by_gold"] >= 2
    assert report.by_source["gold"] == 1


def test_gold_is_a_source_of_the_cli_and_left_out_when_not_named(tmp_path):
    paths = make_run(tmp_path)
    _gold_table(paths)
    result = CliRunner().invoke(
        main, ["build", "--run", str(tmp_path), "--sources", "gold,llm_sentences,faker"]
    )
    assert result.exit_code == 0, result.output
    assert "g-new" in {r.id for r in RecordTable(paths.dataset).read()}
    build_dataset(tmp_path, BuildOptions(sources=("llm_sentences", "faker")))
    dataset = {r.id: r for r in RecordTable(paths.dataset).read()}
    assert "g-new" not in dataset
    assert {s.source for s in dataset["doc-003"].spans} <= {"llm_sentences", "faker"}


def test_gold_whose_text_differs_from_the_run_s_is_rejected_with_its_reason(tmp_path):
    paths = make_run(tmp_path)
    with RecordTable(paths.gold) as table:
        table.append(Record("doc-004", "Another text altogether.", "health", "x", "en", "gold"))
    report = build_dataset(tmp_path, BuildOptions())
    assert report.removed["gold_text_differs"] == 1
    rejected = {r.id: r for r in RecordTable(paths.rejects("build")).read()}
    assert rejected["doc-004"].meta["reason"] == "gold_text_differs"
    kept = {r.id: r for r in RecordTable(paths.dataset).read()}["doc-004"]
    assert kept.source == "llm" and kept.spans


def test_gold_in_the_dataset_is_not_scored_as_unseen_gold():
    """gen train scores RUN/gold by default; the gold records gen build put into the train
    or dev split are left out of that score."""
    from gen.train.data import TrainingData
    from gen.train.scoring import unseen_gold

    docs, _, _ = make_records(documents=6)
    data = TrainingData(Path(), {}, {"train": docs[:3], "dev": docs[3:4], "test": docs[4:]})
    kept, left_out = unseen_gold(docs, data)
    assert [r.id for r in kept] == [r.id for r in docs[4:]]
    assert left_out == sorted(r.id for r in docs[:4])


def _outside_span_record(record_id: str = "oor") -> Record:
    text = "Record oor says that he has chronic asthma."
    return Record(
        record_id, text, "health", "letter", "en", "llm", [Span(30, 99, "health", "llm_sentences")]
    )


def _write_unchecked(folder, records: list[Record]) -> None:
    """A part file written past the span checks, as a tool outside gen may write one."""
    write_table_atomic(folder / "part-00009.parquet", records_to_table(records))


def test_a_record_with_a_span_outside_its_text_is_a_reject_and_the_build_goes_on(tmp_path):
    paths = make_run(tmp_path)
    _write_unchecked(paths.labeled, [_outside_span_record()])
    result = CliRunner().invoke(main, ["build", "--run", str(tmp_path), "--clean"])
    assert result.exit_code == 0, result.output
    assert "invalid_span 1" in result.output
    assert "oor" not in {r.id for r in RecordTable(paths.dataset).read()}
    (reject,) = [r for r in RecordTable(paths.rejects("build")).read() if r.id == "oor"]
    assert reject.meta["reason"] == "invalid_span"
    assert "30-99 (health) is outside the text of length 43" in reject.meta["detail"]
    assert reject.meta["spans"] == [Span(30, 99, "health", "llm_sentences").to_dict()]
    assert not reject.spans
    assert json.loads(paths.manifest("build").read_text())["removed"]["invalid_span"] == 1


def test_a_failing_build_leaves_the_previous_dataset_untouched(tmp_path):
    paths = make_run(tmp_path)
    build_dataset(tmp_path, BuildOptions())
    before = sorted(r.id for r in RecordTable(paths.dataset).read())
    manifest = paths.manifest("build").read_text()
    paths.rejects("build").parent.mkdir(parents=True, exist_ok=True)
    for path in paths.rejects("build").iterdir():
        path.unlink()
    paths.rejects("build").rmdir()
    paths.rejects("build").write_text("not a folder")  # the rejects cannot be written
    result = CliRunner().invoke(main, ["build", "--run", str(tmp_path), "--no-queries"])
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert sorted(r.id for r in RecordTable(paths.dataset).read()) == before
    assert paths.manifest("build").read_text() == manifest


@pytest.mark.parametrize("locked", ["", "rejects", "dataset"])
def test_a_read_only_run_is_refused_before_any_work_naming_the_folder(tmp_path, locked):
    paths = make_run(tmp_path)
    build_dataset(tmp_path, BuildOptions())
    shutil.rmtree(paths.rejects("build"))
    folder = tmp_path / locked
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    with unwritable(folder):
        result = CliRunner().invoke(main, ["build", "--run", str(tmp_path)])
    assert result.exit_code == 2, result.output
    (line,) = result.output.strip().splitlines()
    assert f": {folder} is not writable (" in line and line.endswith("choose a writable place")
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before
