"""`--facts model`: the model's facts request, its answer read line by line, and an item
whose answer holds no fact stored with its reason."""

from __future__ import annotations

import json
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fakes import ScriptedBackend, SlowBackend
from planned_fakes import FACT_REQUEST, fact_writer

from gen.backends.base import GenerationRequest
from gen.core.packs import load_language_pack
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from gen.generate.disclosures import DisclosureSpec
from gen.generate.model_facts import parse_facts
from gen.generate.options import DocumentsOptions
from gen.generate.plan_spec import PlanSpec
from gen.generate.run import run as generate_run

PERSONA = {"name": "Maria Rossi", "first_name": "Maria", "last_name": "Rossi"}
SETTINGS = load_language_pack("en").facts.model
ANSWER = """Sure! Here are two facts about Maria Rossi:

1. Maria Rossi was diagnosed with asthma in 2010.
2) "She takes a salbutamol inhaler before every run."
- **uses a peak flow meter every morning**
3. Asthma.
"""


def test_an_answer_is_read_line_by_line() -> None:
    facts, dropped = parse_facts(ANSWER, PERSONA, SETTINGS, wanted=2)
    assert facts == [
        "was diagnosed with asthma in 2010",
        "takes a salbutamol inhaler before every run",
    ]
    assert [(d["line"][:12], d["why"]) for d in dropped] == [
        ("Sure! Here a", "heading"),
        ("- **uses a p", "beyond_n"),
        ("3. Asthma.", "too_short"),
    ]


def test_repeats_long_lines_and_lines_without_letters_are_dropped() -> None:
    long = " ".join(["word"] * (SETTINGS.max_words + 1))
    answer = f"- votes Green at every election\n- Votes green at every election.\n{long}\n---\n"
    facts, dropped = parse_facts(answer, PERSONA, SETTINGS, wanted=3)
    assert facts == ["votes Green at every election"]
    assert [d["why"] for d in dropped] == ["repeated", "too_long", "no_letters"]


def test_a_line_that_opens_with_the_full_name_loses_all_of_it() -> None:
    persona = {"name": "Andre Russell", "first_name": "Andre", "last_name": "Russell"}
    answer = (
        "1. Andre Russell, a 28-year-old dentist, takes metformin for type 2 diabetes.\n"
        "2. Andre Russell: was diagnosed with asthma in 2010.\n"
        "3. Andre Russell uses a peak flow meter every morning.\n"
    )
    facts, _ = parse_facts(answer, persona, SETTINGS, wanted=3)
    assert facts == [
        "takes metformin for type 2 diabetes",
        "was diagnosed with asthma in 2010",
        "uses a peak flow meter every morning",
    ]


def test_an_echo_of_the_request_is_no_fact() -> None:
    topic = "their political opinions or their trade-union membership: a party, a union, a role"
    request = f"Write 2 short facts about Maria Rossi that disclose {topic}, a campaign."
    answer = "A Party, a Union, a Role, a Campaign\nhas voted Green at every election since 2010\n"
    facts, dropped = parse_facts(answer, PERSONA, SETTINGS, wanted=2, request=request)
    assert facts == ["has voted Green at every election since 2010"]
    assert dropped == [{"line": "A Party, a Union, a Role, a Campaign", "why": "echo"}]


def generate(tmp_path: Path, good: bool, n: int = 4) -> tuple[RunPaths, ScriptedBackend]:
    paths = RunPaths(tmp_path)
    spec = PlanSpec(language="en", category="health", disclosures=DisclosureSpec(facts="model"))
    backend = ScriptedBackend(fact_writer(good))
    generate_run(paths, DocumentsOptions(spec, n=n), backend)
    return paths, backend


def test_the_models_facts_are_asked_first_then_written_in_and_found(tmp_path: Path) -> None:
    paths, backend = generate(tmp_path, good=True)
    records = RecordTable(paths.documents).read()
    assert len(records) == 4
    asks = [r for r in backend.requests if FACT_REQUEST.search(r.prompt)]
    assert len(asks) == sum(len(r.meta["disclosures"]["model"]) for r in records)
    assert len(backend.requests) == len(asks) + 4
    for record in records:
        meta = record.meta["disclosures"]
        assert meta["facts"] == "model"
        answers = meta["model"]
        assert answers[0]["category"] == "health" and "1. " in answers[0]["answer"]
        texts = [fact["text"] for fact in meta["planned"]]
        assert texts == [fact for answer in answers for fact in answer["facts"]]
        assert all(text.startswith("keeps fact number") for text in texts)
        assert all(
            fact["found"] == "exact" and fact["source"] == "model" for fact in meta["planned"]
        )
        assert f"- {record.persona['name']} {texts[0]}" in record.prompt
    plan = next(iter(json.loads(paths.manifest("documents").read_text())["plans"].values()))
    counts = plan["disclosures"]
    assert counts["asked"] == counts["planned"] == counts["exact"] > 4


def test_a_document_written_again_keeps_the_facts_the_model_wrote(tmp_path: Path) -> None:
    """The first document echoes its prompt: it is asked again, its facts are not."""
    paths = RunPaths(tmp_path)
    spec = PlanSpec(language="en", category="health", disclosures=DisclosureSpec(facts="model"))
    facts_and_document, documents, answers = fact_writer(True), [], []

    def reply(request: GenerationRequest) -> str:
        answer = facts_and_document(request)
        if not FACT_REQUEST.search(request.prompt):
            documents.append(request)
            answer += "\nFeel free to adapt it." if len(documents) == 1 else ""
        answers.append(answer)
        return answer

    backend = ScriptedBackend(reply)
    summary = generate_run(paths, DocumentsOptions(spec, n=1), backend)
    assert summary.written_again == 1 and len(documents) == 2
    [record] = RecordTable(paths.documents).read()
    asks = len(backend.requests) - len(documents)  # one request per category, once
    assert asks == len(record.meta["disclosures"]["model"])
    assert record.seed == documents[1].seed != documents[0].seed
    assert documents[0].prompt == documents[1].prompt
    assert all(fact["found"] == "exact" for fact in record.meta["disclosures"]["planned"])
    assert record.meta["disclosures"]["model"] and not record.flags
    [plan] = json.loads(paths.manifest("documents").read_text())["plans"].values()
    written = sum(len(answer) // 4 for answer in answers)  # the scripted backend's tokens
    assert plan["runs"][-1]["completion_tokens"] == written  # the facts counted once


def test_an_answer_without_facts_is_stored_with_its_reason_and_resumed_past(
    tmp_path: Path,
) -> None:
    paths, backend = generate(tmp_path, good=False, n=2)
    assert not RecordTable(paths.documents).exists() or not RecordTable(paths.documents).read()
    rejects = RecordTable(paths.rejects("documents")).read()
    assert len(rejects) == 6  # 3 attempts per wanted document, every one kept
    for reject in rejects:
        assert reject.meta["reason"] == "facts_failed"
        answers = reject.meta["disclosures"]["model"]
        lines = 2 * len(answers)  # one request per category planned
        assert reject.meta["detail"] == f"no usable fact in {lines} lines (too_short {lines})"
        assert reject.text == "\n\n".join(["Sorry, no.\nOk."] * len(answers))
        assert answers[0]["prompt"] in reject.prompt
    assert all(FACT_REQUEST.search(request.prompt) for request in backend.requests)
    plan = next(iter(json.loads(paths.manifest("documents").read_text())["plans"].values()))
    assert plan["rejected"] == {"facts_failed": 6}
    again = ScriptedBackend(fact_writer(good=True))
    spec = PlanSpec(language="en", category="health", disclosures=DisclosureSpec(facts="model"))
    generate_run(paths, DocumentsOptions(spec, n=2), again)
    ids = {r.id for r in RecordTable(paths.documents).read()}
    assert len(ids) == 2 and not ids & {r.id for r in rejects}


@pytest.mark.parametrize("language", ["en", "it", "de", "es", "fr"])
def test_the_facts_request_names_the_topic_and_the_count(language: str) -> None:
    from gen.generate.model_facts import facts_parts
    from gen.generate.plan import plan_item

    pack = load_language_pack(language)
    spec = PlanSpec(
        language=language, category="judicial", disclosures=DisclosureSpec(facts="model")
    )
    item = plan_item(pack, spec, 0)
    parts = facts_parts(pack, item, "judicial", 2)
    assert item.persona["name"] in parts.instruction and " 2 " in parts.instruction
    assert pack.facts.categories["judicial"].topic in parts.instruction


@pytest.fixture
def ctrl_c_raises() -> Iterator[None]:
    """Python's own Ctrl-C handler for one test: a shell that starts the tests in the
    background ignores SIGINT, and Python then never turns it into KeyboardInterrupt."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.mark.usefixtures("ctrl_c_raises")
def test_ctrl_c_abandons_the_request_in_flight_and_a_rerun_loses_and_repeats_nothing(
    tmp_path: Path,
) -> None:
    """Ctrl-C in the middle of an item's facts request stops at the next token: neither that
    request nor the item's document request runs to its end, and the re-run ends with every
    document once, the ones stored before unchanged."""
    paths = RunPaths(tmp_path)
    spec = PlanSpec(language="en", category="health", disclosures=DisclosureSpec(facts="model"))
    options = DocumentsOptions(spec, n=4)
    written = fact_writer(good=True)
    documents_answered = []
    interrupted: list[float] = []

    def reply(request: GenerationRequest) -> str:
        backend.slow = len(documents_answered) >= 2  # the third item is slow
        if not FACT_REQUEST.search(request.prompt):
            documents_answered.append(request)
        return written(request)

    def ctrl_c(request: GenerationRequest, number: int) -> None:
        if number == 5 and not interrupted:
            interrupted.append(time.monotonic())
            signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)

    backend = SlowBackend(reply, tokens=100, token_seconds=0.05, on_token=ctrl_c)
    with pytest.raises(KeyboardInterrupt):
        generate_run(paths, options, backend)
    stopped_after = time.monotonic() - interrupted[0]
    assert stopped_after < 2, f"stopped {stopped_after:.1f} s after Ctrl-C"
    assert len(backend.abandoned) == 1 and FACT_REQUEST.search(backend.abandoned[0].prompt)
    assert len(documents_answered) == 2  # the third item's document was never asked for
    kept = {r.id: r.text for r in RecordTable(paths.documents).read()}
    assert len(kept) == 2
    assert not RecordTable(paths.rejects("documents")).exists()
    generate_run(paths, options, ScriptedBackend(written))
    final = RecordTable(paths.documents).read()
    assert len(final) == 4 == len({r.id for r in final})
    assert {r.id: r.text for r in final if r.id in kept} == kept
    plan = next(iter(json.loads(paths.manifest("documents").read_text())["plans"].values()))
    assert [run["status"] for run in plan["runs"]] == ["interrupted", "complete"]
