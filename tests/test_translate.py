"""`gen translate` as a stage and a command, with a pretend translator: records translated
piece by piece with their spans, resumable, locked, nothing half-written, bad input
refused in one line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from fakes import table_held_elsewhere
from translate_fakes import TranslatingBackend, marked, span_texts

from gen.cli import main
from gen.core.errors import UsageError
from gen.core.records import check_spans
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from gen.dataset.assemble import build_dataset
from gen.dataset.options import BuildOptions
from gen.inspect.page import collect_documents
from gen.translate.run import TranslateOptions, run
from gen.translate.stored import META_KEY

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent

LETTER = (
    "Dear [[Anna Verdi|PERSON|faker]],\n\n"
    "The patient was seen today. [[She has asthma|health]] and [[voted for the Greens|politic]].\n"
    "Tel. [[0161 496 0755|PHONE|faker]]\n"
)


def source_file(tmp_path: Path, *records) -> Path:
    path = tmp_path / "source.jsonl"
    path.write_text(
        "".join(
            json.dumps(
                {
                    "id": r.id,
                    "text": r.text,
                    "language": r.language,
                    "category": r.category,
                    "doc_type": r.doc_type,
                    "spans": [{"start": s.start, "end": s.end, "label": s.label} for s in r.spans],
                },
                ensure_ascii=False,
            )
            + "\n"
            for r in records
        ),
        encoding="utf-8",
    )
    return path


def translate(tmp_path: Path, backend: TranslatingBackend, **options) -> RunPaths:
    paths = RunPaths(tmp_path / "run")
    run(paths, TranslateOptions(to="it", backend=backend, **options))
    return paths


def labeled_run(tmp_path: Path, *records) -> RunPaths:
    paths = RunPaths(tmp_path / "run")
    with RecordTable(paths.labeled) as table:
        table.extend(records)
    return paths


def test_a_labeled_record_is_translated_with_exact_spans(tmp_path: Path) -> None:
    record = marked(LETTER, persona={"name": "Anna Verdi"}, group="g1", seed=7)
    labeled_run(tmp_path, record)
    backend = TranslatingBackend()
    paths = translate(tmp_path, backend)
    (translated,) = RecordTable(paths.translated).read()
    assert translated.id == "d1~it" and translated.language == "it"
    assert translated.source == "translated" and translated.group == "g1"
    assert translated.persona == {"name": "Anna Verdi"} and translated.seed == 7
    assert translated.text.startswith("Dear Anna Verdi,\n\nIl paziente era visto oggi.")
    assert translated.text.endswith("\nTel. 0161 496 0755\n")  # layout and gaps kept
    assert span_texts(translated) == [
        ("Anna Verdi", "PERSON"),
        ("Lei ha asma", "health"),
        ("votato per il Verdi", "politic"),
        ("0161 496 0755", "PHONE"),
    ]
    check_spans(translated.text, translated.spans, record_id=translated.id)
    info = translated.meta[META_KEY]
    assert info["id"] == "d1" and info["language"] == "en"
    assert info["model"] == "translator.gguf"
    assert info["fates"] == {"tag": 4} and info["spans"] == 4 and info["pieces"] == 1
    # each span's origin is the source span it carries
    for span, (start, end) in zip(translated.spans, info["origins"], strict=True):
        assert record.text[start:end] in {
            "Anna Verdi",
            "She has asthma",
            "voted for the Greens",
            "0161 496 0755",
        }
        assert span.source in {"faker", "gold"}


def test_a_span_whose_tag_is_lost_is_found_again_or_dropped_and_counted(tmp_path: Path) -> None:
    labeled_run(tmp_path, marked(LETTER))
    drop_health = TranslatingBackend(
        edit=lambda answer, piece: answer.replace("<health>", "").replace("</health>", "")
    )
    paths = translate(tmp_path, drop_health)
    (translated,) = RecordTable(paths.translated).read()
    assert ("Lei ha asma", "health") in span_texts(translated)  # found by its translation
    assert drop_health.phrases == ["She has asthma"]
    assert translated.meta[META_KEY]["fates"]["found"] >= 1

    lose = TranslatingBackend(
        edit=lambda answer, piece: (
            answer.replace("<politic>", "")
            .replace("</politic>", "")
            .replace("votato per", "ha scelto")
        )
    )
    paths = translate(tmp_path / "b", lose, source=str(source_file(tmp_path, marked(LETTER))))
    (translated,) = RecordTable(paths.translated).read()
    info = translated.meta[META_KEY]
    assert info["fates"]["not_found"] == 1
    assert lose.phrases == ["voted for the Greens"]
    (dropped,) = info["dropped"]
    assert dropped["label"] == "politic" and dropped["reason"] == "not_found"
    assert marked(LETTER).text[dropped["start"] : dropped["end"]] == "voted for the Greens"
    assert "translation_spans_dropped" in translated.flags


def test_long_documents_go_in_pieces_and_no_span_is_cut(tmp_path: Path) -> None:
    body = " ".join(f"The patient was seen today {i}." for i in range(60))
    text = f"[[Anna Verdi|PERSON]]\n{body} [[She has asthma and diabetes|health]]. {body}"
    labeled_run(tmp_path, marked(text))
    backend = TranslatingBackend()
    paths = translate(tmp_path, backend, piece_words=50)
    (translated,) = RecordTable(paths.translated).read()
    assert len(backend.pieces) >= 6
    assert translated.meta[META_KEY]["pieces"] == len(backend.pieces)
    assert sum("<health>" in piece and "</health>" in piece for piece in backend.pieces) == 1
    assert ("Lei ha asma e diabete", "health") in span_texts(translated)


def test_records_already_in_the_target_language_and_other_languages_are_skipped(
    tmp_path: Path,
) -> None:
    labeled_run(
        tmp_path,
        marked(LETTER, record_id="en1"),
        marked("Lui [[ha il diabete|health]].", language="it", record_id="it1"),
        marked("Er [[hat Diabetes|health]].", language="de", record_id="de1"),
    )
    paths = RunPaths(tmp_path / "run")
    summary = run(
        paths, TranslateOptions(to="it", from_language="en", backend=TranslatingBackend())
    )
    assert [r.id for r in RecordTable(paths.translated).read()] == ["en1~it"]
    assert summary.skipped == {"already_in_target_language": 1, "other_language": 1}


def test_an_unusable_answer_is_retried_then_the_record_is_rejected_with_its_answers(
    tmp_path: Path,
) -> None:
    labeled_run(tmp_path, marked(LETTER, record_id="a"), marked(LETTER, record_id="b"))
    calls = {"n": 0}

    def edit(answer: str, piece: str) -> str:
        calls["n"] += 1
        if "Greens" in piece and calls["n"] <= 3:
            return piece  # untranslated, twice for record a
        return answer

    paths = translate(tmp_path, TranslatingBackend(edit=edit))
    assert [r.id for r in RecordTable(paths.translated).read()] == ["b~it"]
    (rejected,) = RecordTable(paths.rejects("translate")).read()
    assert rejected.id == "a~it" and rejected.meta["reason"] == "untranslated"
    assert len(rejected.meta["answers"]) >= 2
    manifest = json.loads(paths.manifest("translate-it").read_text())
    assert manifest["rejected"] == {"untranslated": 1} and manifest["translated"] == 1


def test_a_second_run_resumes_and_asks_nothing_again(tmp_path: Path) -> None:
    labeled_run(tmp_path, *(marked(LETTER, record_id=f"r{i}") for i in range(3)))
    first = TranslatingBackend()
    translate(tmp_path, first)
    again = TranslatingBackend()
    summary = run(RunPaths(tmp_path / "run"), TranslateOptions(to="it", backend=again))
    assert again.requests == [] and summary.new_translated == 0 and summary.translated == 3


KILLED_RUN = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    sys.path.insert(0, {tests!r})
    from translate_fakes import TranslatingBackend
    from gen.core.runs import RunPaths
    from gen.translate.run import TranslateOptions, run

    class Slow(TranslatingBackend):
        def generate(self, request):
            time.sleep(0.05)
            return super().generate(request)

    run(RunPaths(Path({run!r})), TranslateOptions(to="it", backend=Slow(), source={source!r}))
""")


def test_kill_9_loses_no_finished_record_and_a_resume_duplicates_none(tmp_path: Path) -> None:
    records = [marked(LETTER, record_id=f"r{i:02d}") for i in range(40)]
    source = source_file(tmp_path, *records)
    run_dir = tmp_path / "run"
    script = KILLED_RUN.format(tests=str(TESTS), run=str(run_dir), source=str(source))
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
    }
    process = subprocess.Popen([sys.executable, "-c", script], env=env)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(RecordTable(run_dir / "translated").ids()) < 5:
        time.sleep(0.2)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    stored = RecordTable(run_dir / "translated").ids()
    assert 5 <= len(stored) < 40
    run(
        RunPaths(run_dir),
        TranslateOptions(to="it", backend=TranslatingBackend(), source=str(source)),
    )
    ids = [r.id for r in RecordTable(run_dir / "translated").read()]
    assert sorted(ids) == sorted(f"r{i:02d}~it" for i in range(40))
    uninterrupted = translate(tmp_path / "whole", TranslatingBackend(), source=str(source))
    assert {r.id: r.text for r in RecordTable(run_dir / "translated").read()} == {
        r.id: r.text for r in RecordTable(uninterrupted.translated).read()
    }


def test_a_second_process_on_the_same_run_is_refused(tmp_path: Path) -> None:
    labeled_run(tmp_path, marked(LETTER))
    paths = RunPaths(tmp_path / "run")
    with (
        table_held_elsewhere(paths.translated),
        pytest.raises(Exception, match=r"_lock|locked|another"),
    ):
        run(paths, TranslateOptions(to="it", backend=TranslatingBackend()))


def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *args: str, backend=None):
    import gen.cli.translate as command

    monkeypatch.setattr(command, "make_backend", lambda options: backend or TranslatingBackend())
    return CliRunner().invoke(main, ["translate", "--run", str(tmp_path / "run"), *args])


def test_the_command_reports_what_was_carried_and_dropped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    labeled_run(tmp_path, marked(LETTER))
    result = cli(tmp_path, monkeypatch, "--to", "it")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == f"1 records translated into it (1 new) in {tmp_path / 'run' / 'translated'}"
    assert any(line.startswith("  spans carried over: 4 of 4 (100.0%)") for line in lines)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--to", "xx"], "no prompts for language 'xx'"),
        (["--to", "it", "--from", "it"], "--from and --to are both 'it'"),
        (["--to", "it", "--source", "gold"], "no records to translate in"),
        (["--to", "it", "--source", "missing.jsonl"], "--source missing.jsonl not found"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], message: str
) -> None:
    labeled_run(tmp_path, marked(LETTER))
    monkeypatch.chdir(tmp_path)
    result = cli(tmp_path, monkeypatch, *args)
    assert result.exit_code == 2, result.output
    assert message in result.output and len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "run" / "translated").exists()


def test_a_pack_without_translation_prompts_is_refused_before_the_model_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prompts = tmp_path / "prompts"
    import shutil

    shutil.copytree(REPO / "prompts", prompts)
    (prompts / "it" / "translation.yaml").unlink()
    labeled_run(tmp_path, marked(LETTER))
    loaded = []
    result = cli(
        tmp_path, monkeypatch, "--to", "it", "--prompts", str(prompts), backend=loaded.append
    )
    assert result.exit_code == 2, result.output
    assert "translation.yaml: not found" in result.output
    assert not loaded and not (tmp_path / "run" / "translated").exists()


def test_empty_source_file_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    result = cli(tmp_path, monkeypatch, "--to", "it", "--source", str(empty))
    assert result.exit_code == 2 and "no records found" in result.output


def test_usage_error_without_backend() -> None:
    with pytest.raises(UsageError, match="needs a model backend"):
        run(RunPaths(Path("nowhere")), TranslateOptions(to="it"))


def test_gen_build_takes_translations_beside_their_sources_in_one_group(tmp_path: Path) -> None:
    labeled_run(tmp_path, marked(LETTER, record_id="d1", source="llm"))
    paths = translate(tmp_path, TranslatingBackend())
    build_dataset(paths.root, BuildOptions(negative_labels=("other",), include_queries=False))
    dataset = {r.id: r for r in RecordTable(paths.dataset).read()}
    assert set(dataset) == {"d1", "d1~it"}
    assert dataset["d1"].group == dataset["d1~it"].group
    assert {s.source for s in dataset["d1~it"].spans} <= {"gold", "faker"}
    build_dataset(
        paths.root,
        BuildOptions(negative_labels=("other",), include_queries=False, include_translated=False),
    )
    assert [r.id for r in RecordTable(paths.dataset).read()] == ["d1"]


def test_gen_inspect_shows_a_translation_beside_its_source(tmp_path: Path) -> None:
    labeled_run(tmp_path, marked(LETTER))
    drop = TranslatingBackend(
        edit=lambda answer, piece: (
            answer.replace("<politic>", "")
            .replace("</politic>", "")
            .replace("votato per", "ha scelto")
        )
    )
    paths = translate(tmp_path, drop)
    entries = {e["id"]: e for e in collect_documents(paths)}
    assert entries["d1"]["translation"] is None
    source = entries["d1~it"]["translation"]
    assert source["id"] == "d1" and source["language"] == "en"
    assert source["text"] == marked(LETTER).text
    shown = {(source["text"][s[0] : s[1]], s[4]) for s in source["spans"]}
    assert ("voted for the Greens", "dropped") in shown and ("She has asthma", "carried") in shown


def test_retry_rejected_asks_the_rejected_records_again(tmp_path: Path) -> None:
    labeled_run(tmp_path, marked(LETTER, record_id="a"), marked(LETTER, record_id="b"))
    translate(tmp_path, TranslatingBackend(edit=lambda answer, piece: piece))  # all untranslated
    paths = RunPaths(tmp_path / "run")
    assert len(RecordTable(paths.rejects("translate")).read()) == 2
    summary = run(paths, TranslateOptions(to="it", backend=TranslatingBackend()))
    assert summary.new_translated == 0  # rejects are not asked again by default
    summary = run(
        paths, TranslateOptions(to="it", backend=TranslatingBackend(), retry_rejected=True)
    )
    assert summary.retried == 2 and summary.new_translated == 2
    assert sorted(RecordTable(paths.translated).ids()) == ["a~it", "b~it"]
    assert RecordTable(paths.rejects("translate")).read() == []


def test_a_date_with_a_month_both_languages_spell_alike_is_not_untranslated(
    tmp_path: Path,
) -> None:
    labeled_run(tmp_path, marked("[[Thomas Reeve|PERSON]], 11 April 2025"))
    german = TranslatingBackend(edit=lambda answer, piece: piece.replace("11 April", "11. April"))
    paths = translate(tmp_path, german)
    (translated,) = RecordTable(paths.translated).read()
    assert translated.text == "Thomas Reeve, 11. April 2025"
