"""The `gen documents` loop with a scripted backend: exact counts, resume, rejects."""

from __future__ import annotations

import json
import math
import random
import shutil
from pathlib import Path

import pandas as pd
import pytest

from gen.core.errors import GenError, ModelError
from gen.core.packs import load_language_pack, prompts_root
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from gen.generate.options import DocumentsOptions
from gen.generate.plan import plan_item
from gen.generate.plan_spec import PlanSpec
from gen.generate.run import run
from tests.fakes import BODY, ScriptedBackend, unique_reply


def run_documents(
    tmp_path: Path, backend, n: int = 5, category: str = "health", max_tokens: int | None = None
):
    options = DocumentsOptions(
        spec=PlanSpec(language="en", category=category), n=n, max_tokens=max_tokens
    )
    return run(RunPaths(tmp_path), options, backend)


def asked_budgets(tmp_path: Path, backend: ScriptedBackend) -> list[tuple[str, int, int, int]]:
    """Per stored document: its type, the type's words and the token limit in its meta and
    in its request (matched by seed)."""
    frame = pd.read_parquet(tmp_path / "documents")
    sent = {request.seed: request.sampling.max_tokens for request in backend.requests}
    metas = frame["meta"].map(json.loads)
    return [
        (doc_type, meta["doc_words"], meta["max_tokens"], sent[seed])
        for doc_type, meta, seed in zip(frame["doc_type"], metas, frame["seed"], strict=True)
    ]


def test_without_max_tokens_each_document_gets_its_type_s_budget(tmp_path: Path) -> None:
    pack = load_language_pack("en")
    words = {t.name: t.words for prompts in pack.taxonomy.values() for t in prompts.doc_types}
    per_word = pack.generation.sampling.tokens_per_word
    backend = ScriptedBackend(unique_reply)
    run_documents(tmp_path, backend, n=8, category="all")
    budgets = asked_budgets(tmp_path, backend)
    for doc_type, doc_words, in_meta, in_request in budgets:
        assert doc_words == words[doc_type]
        assert in_meta == in_request == math.ceil(words[doc_type] * per_word)
    assert len({budget for *_, budget in budgets}) > 1  # a form and a report differ
    manifest = json.loads((tmp_path / "manifests" / "documents.json").read_text())
    (plan,) = manifest["plans"].values()
    assert plan["runs"][-1]["max_tokens"] is None
    assert plan["runs"][-1]["sampling"]["tokens_per_word"] == per_word


def test_an_explicit_max_tokens_wins_over_the_type_s_budget(tmp_path: Path) -> None:
    backend = ScriptedBackend(unique_reply)
    run_documents(tmp_path, backend, n=4, category="all", max_tokens=333)
    assert {
        (in_meta, in_request) for *_, in_meta, in_request in asked_budgets(tmp_path, backend)
    } == {(333, 333)}


def test_n_documents_are_written_with_their_provenance(tmp_path: Path) -> None:
    backend = ScriptedBackend(unique_reply)
    summary = run_documents(tmp_path, backend, n=4)
    frame = pd.read_parquet(tmp_path / "documents")
    assert summary.accepted == 4 and len(frame) == 4
    assert frame["id"].is_unique
    row = frame.iloc[0]
    assert row["text"].startswith("Dear colleague")  # echoed prefix removed
    assert row["persona"]["name"] in row["text"]
    assert row["model"] == "scripted-model" and row["prompt"].endswith("generated document:\n")
    assert {"category", "doc_type", "language", "seed"} <= set(frame.columns)
    manifest = (tmp_path / "manifests" / "documents.json").read_text()
    assert '"accepted": 4' in manifest and "prompts_sha256" in manifest


def test_rerun_resumes_to_exactly_n(tmp_path: Path) -> None:
    run_documents(tmp_path, ScriptedBackend(unique_reply), n=3)
    backend = ScriptedBackend(unique_reply)
    summary = run_documents(tmp_path, backend, n=5)
    assert len(backend.requests) == 2
    assert summary.accepted == 5 and summary.new_accepted == 2
    again = ScriptedBackend(unique_reply)
    run_documents(tmp_path, again, n=5)
    assert again.requests == []
    assert len(pd.read_parquet(tmp_path / "documents")) == 5


def test_interrupted_run_loses_nothing_stored_and_resumes(tmp_path: Path) -> None:
    calls = []

    def interrupt_third(request) -> str:
        calls.append(request)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return unique_reply(request)

    with pytest.raises(KeyboardInterrupt):
        run_documents(tmp_path, ScriptedBackend(interrupt_third), n=5)
    assert len(RecordTable(tmp_path / "documents").read()) == 2
    run_documents(tmp_path, ScriptedBackend(unique_reply), n=5)
    ids = list(pd.read_parquet(tmp_path / "documents")["id"])
    assert len(ids) == 5 == len(set(ids))


def test_rejected_documents_are_kept_with_reason_and_replaced(tmp_path: Path) -> None:
    answers = iter(
        [
            "",
            "Too short.",
            "Sure! Here's the generated document:\n" + BODY.format(name="X", index=1),
        ]
        * 2
    )
    backend = ScriptedBackend(lambda request: next(answers, unique_reply(request)))
    summary = run_documents(tmp_path, backend, n=3)
    rejects = pd.read_parquet(tmp_path / "rejects" / "documents")
    reasons = {row["id"]: row["flags"][0] for _, row in rejects.iterrows()}
    assert sorted(reasons.values()) == [
        "empty",
        "empty",
        "exact_duplicate",
        "too_short",
        "too_short",
    ]
    assert summary.rejected["too_short"] == 2
    assert "Too short." in set(rejects["text"])
    assert len(pd.read_parquet(tmp_path / "documents")) == 3
    # resuming skips the rejected items instead of retrying them
    backend = ScriptedBackend(unique_reply)
    run_documents(tmp_path, backend, n=3)
    assert backend.requests == []


def test_wrong_language_is_rejected(tmp_path: Path) -> None:
    italian = (
        "Gentile dottore, le scrivo per informarla che il paziente ha completato la terapia "
        "prevista e che i risultati delle analisi sono arrivati questa mattina. La visita di "
        "controllo è fissata per la prossima settimana presso il nostro ambulatorio."
    )
    answers = iter([italian])
    backend = ScriptedBackend(lambda request: next(answers, unique_reply(request)))
    summary = run_documents(tmp_path, backend, n=1)
    assert summary.rejected == {"wrong_language": 1}


def test_concurrent_backend_still_writes_exactly_n(tmp_path: Path) -> None:
    backend = ScriptedBackend(unique_reply, concurrency=4)
    summary = run_documents(tmp_path, backend, n=9, category="all")
    assert summary.accepted == 9 and len(backend.requests) == 9
    frame = pd.read_parquet(tmp_path / "documents")
    assert frame["id"].is_unique and len(frame) == 9


def test_model_errors_are_stored_and_a_broken_backend_stops_the_run(tmp_path: Path) -> None:
    def broken(request) -> str:
        raise ModelError("connection refused")

    with pytest.raises(GenError, match="failed 5 times in a row"):
        run_documents(tmp_path, ScriptedBackend(broken), n=3)
    rejects = pd.read_parquet(tmp_path / "rejects" / "documents")
    assert len(rejects) == 5 and set(rejects["flags"].map(tuple)) == {("model_error",)}


GERMAN = [
    "Die Patientin wurde am Montag in der Praxis untersucht.",
    "Die Ergebnisse der Blutuntersuchung liegen seit heute Morgen vor.",
    "Eine Kontrolluntersuchung ist in drei Wochen vorgesehen.",
    "Der Hausarzt erhält eine Kopie dieses Berichts.",
    "Die Medikamente werden zweimal täglich nach dem Essen eingenommen.",
    "Bei Beschwerden soll sie sich sofort in der Klinik melden.",
    "Der nächste Termin wird telefonisch vereinbart.",
    "Die Krankenkasse übernimmt die Kosten der Behandlung.",
]


def german_reply(request) -> str:
    body = " ".join(random.Random(request.seed).sample(GERMAN, 6))
    return f"Hier ist das Dokument:\n{body}\nIch hoffe, das hilft! Viel Erfolg."


def test_a_german_pack_strips_german_chatter(tmp_path: Path) -> None:
    """The German pack's own chatter phrases, nothing in code."""
    options = DocumentsOptions(spec=PlanSpec(language="de", category="health"), n=3)
    summary = run(RunPaths(tmp_path / "run"), options, ScriptedBackend(german_reply))
    assert summary.accepted == 3, summary.rejected
    for record in RecordTable(tmp_path / "run" / "documents").read():
        assert record.text.split(".")[0] + "." in GERMAN
        assert "Hier ist" not in record.text and "Ich hoffe" not in record.text
        assert record.meta["cleanup"] == ["preamble", "closing"]


def test_refusals_are_rejected_and_unfilled_slots_flagged_and_counted(tmp_path: Path) -> None:
    """A slot is an echo of the prompt too: its document is written again, and the second
    answer, with a slot as well, is kept with both flags."""
    refusal = "Medical certificate\n\nI'm sorry, but I can't generate that kind of information."
    slot = BODY.format(name="Y", index=7) + "\nTo: [Recipient's Name]"
    answers = iter([refusal, slot, slot])
    backend = ScriptedBackend(lambda request: next(answers, unique_reply(request)))
    summary = run_documents(tmp_path, backend, n=2)
    assert summary.rejected == {"refusal": 1}
    assert summary.flagged == {"unfilled_slot": 1, "prompt_echo": 1}
    assert summary.written_again == 1
    [rejected] = RecordTable(tmp_path / "rejects" / "documents").read()
    assert rejected.flags == ["refusal"] and rejected.text == refusal
    assert rejected.meta["detail"] == "I'm sorry, but I can't generate"
    documents = RecordTable(tmp_path / "documents").read()
    flagged = [d for d in documents if d.flags]
    assert [d.flags for d in flagged] == [["unfilled_slot", "prompt_echo"]]
    assert flagged[0].meta["slots"] == ["[Recipient's Name]"]
    assert flagged[0].meta["echo"] == [{"kind": "slot", "text": "[Recipient's Name]"}]
    manifest = json.loads((tmp_path / "manifests" / "documents.json").read_text())
    [plan] = manifest["plans"].values()
    assert plan["flagged"] == {"unfilled_slot": 1, "prompt_echo": 1} == plan["runs"][-1]["flagged"]
    assert plan["runs"][-1]["written_again"] == 1


#: An opening, words of the writer's system prompt and a remark on the document: none is
#: chatter the clean-up removes (the opening line ends without a stop).
ECHOED = (
    "Sure! Written with the length and the layout of a real document of its type, so that "
    "it looks real\n" + BODY.format(name="Y", index=3) + "\nThis document is entirely "
    "fictional and was written as asked."
)


def test_an_answer_that_echoes_its_prompt_is_written_again_with_another_seed(
    tmp_path: Path,
) -> None:
    answers = iter([ECHOED])
    backend = ScriptedBackend(lambda request: next(answers, unique_reply(request)))
    summary = run_documents(tmp_path, backend, n=2)
    assert summary.accepted == 2 and summary.written_again == 1 and not summary.flagged
    first, again = backend.requests[0], backend.requests[1]
    assert first.prompt == again.prompt and first.seed != again.seed
    documents = {d.seed: d for d in RecordTable(tmp_path / "documents").read()}
    written_again = documents[again.seed]
    assert first.seed not in documents and not written_again.flags
    noted = written_again.meta["first_answer"]
    assert noted["seed"] == first.seed and noted["text"] == ECHOED
    assert [echo["kind"] for echo in noted["echo"]] == ["instruction", "opening", "remark"]
    assert not list((tmp_path / "rejects").glob("**/*.parquet"))


def test_an_answer_is_written_again_once_and_only_while_the_budget_lasts(
    tmp_path: Path,
) -> None:
    """Every answer echoes: each item is asked twice and its second answer kept flagged;
    when the attempt budget (3 per document) is spent, the answer is kept flagged at once.
    No answer is lost."""

    def echoing(request) -> str:
        return unique_reply(request) + "\nFeel free to adapt it."

    backend = ScriptedBackend(echoing)
    summary = run_documents(tmp_path / "once", backend, n=2)
    assert len(backend.requests) == 4 and summary.written_again == 2
    assert summary.accepted == 2 and summary.flagged == {"prompt_echo": 2}
    for document in RecordTable(tmp_path / "once" / "documents").read():
        assert document.flags == ["prompt_echo"] and "first_answer" in document.meta

    refusal = "I'm sorry, but I can't generate that kind of information."
    answers = iter([refusal, refusal])
    backend = ScriptedBackend(lambda request: next(answers, echoing(request)))
    summary = run_documents(tmp_path / "spent", backend, n=1)
    assert len(backend.requests) == 3 and summary.written_again == 0
    [document] = RecordTable(tmp_path / "spent" / "documents").read()
    assert document.flags == ["prompt_echo"] and "first_answer" not in document.meta


def test_a_name_the_persona_holds_is_no_placeholder_person(tmp_path: Path) -> None:
    """The doctor a slot was filled with is the persona's, even when a pack lists the
    name among its placeholder people."""
    spec = PlanSpec(language="en", category="health")
    doctor = plan_item(load_language_pack("en"), spec, 0).persona["doctor"].split(". ")[-1]
    root = tmp_path / "prompts"
    shutil.copytree(prompts_root(None), root)
    generation = root / "en" / "generation.yaml"
    text = generation.read_text(encoding="utf-8")
    generation.write_text(text.replace("    - Jane Doe\n", f"    - {doctor}\n", 1))
    backend = ScriptedBackend(lambda request: unique_reply(request) + "\nSeen by [Doctor's name].")
    options = DocumentsOptions(spec=spec, n=1, prompts_dir=root)
    summary = run(RunPaths(tmp_path / "run"), options, backend)
    [document] = RecordTable(tmp_path / "run" / "documents").read()
    assert doctor in document.text and document.meta["slots_filled"]
    assert summary.written_again == 0 and not document.flags
