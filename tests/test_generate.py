"""The `gen documents` loop with a scripted backend: exact counts, resume, rejects."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pandas as pd
import pytest

from gen.core.errors import GenError, ModelError
from gen.core.packs import load_language_pack
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from gen.generate.plan import PlanSpec
from gen.generate.run import DocumentsOptions, generate_documents
from tests.fakes import ScriptedBackend

BODY = (
    "Dear colleague,\nI write to tell you about {name}. The visit on Monday went well and the "
    "results of the tests arrived this morning. {name} will need a follow-up in three weeks, "
    "and the clinic will send a reminder. Item number {index}.\nBest regards."
)


WORDS = [
    "clinic",
    "visit",
    "results",
    "therapy",
    "morning",
    "letter",
    "nurse",
    "report",
    "doctor",
    "week",
    "follow-up",
    "tests",
    "blood",
    "pressure",
    "medicine",
    "treatment",
    "hospital",
    "office",
    "reminder",
    "schedule",
]


def unique_reply(request) -> str:
    """A plausible English document that differs from item to item (no near duplicates)."""
    name = re.search(r"referred to (.+?) of the type", request.prompt)
    person = name.group(1) if name else "the applicant"
    rng = random.Random(request.seed)
    filler = " ".join(rng.choice(WORDS) for _ in range(40))
    return (
        "Sure! Here's the generated document:\n"
        + BODY.format(name=person, index=request.seed)
        + f" Notes: {filler}."
    )


@pytest.fixture(scope="module")
def pack():
    return load_language_pack("en")


def run_documents(tmp_path: Path, pack, backend, n: int = 5, category: str = "health"):
    options = DocumentsOptions(spec=PlanSpec(language="en", category=category), n=n)
    return generate_documents(RunPaths(tmp_path), pack, backend, options)


def test_n_documents_are_written_with_their_provenance(tmp_path: Path, pack) -> None:
    backend = ScriptedBackend(unique_reply)
    summary = run_documents(tmp_path, pack, backend, n=4)
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


def test_rerun_resumes_to_exactly_n(tmp_path: Path, pack) -> None:
    run_documents(tmp_path, pack, ScriptedBackend(unique_reply), n=3)
    backend = ScriptedBackend(unique_reply)
    summary = run_documents(tmp_path, pack, backend, n=5)
    assert len(backend.requests) == 2
    assert summary.accepted == 5 and summary.new_accepted == 2
    again = ScriptedBackend(unique_reply)
    run_documents(tmp_path, pack, again, n=5)
    assert again.requests == []
    assert len(pd.read_parquet(tmp_path / "documents")) == 5


def test_interrupted_run_loses_nothing_stored_and_resumes(tmp_path: Path, pack) -> None:
    calls = []

    def interrupt_third(request) -> str:
        calls.append(request)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return unique_reply(request)

    with pytest.raises(KeyboardInterrupt):
        run_documents(tmp_path, pack, ScriptedBackend(interrupt_third), n=5)
    assert len(RecordTable(tmp_path / "documents").read()) == 2
    run_documents(tmp_path, pack, ScriptedBackend(unique_reply), n=5)
    ids = list(pd.read_parquet(tmp_path / "documents")["id"])
    assert len(ids) == 5 == len(set(ids))


def test_rejected_documents_are_kept_with_reason_and_replaced(tmp_path: Path, pack) -> None:
    answers = iter(
        [
            "",
            "Too short.",
            "Sure! Here's the generated document:\n" + BODY.format(name="X", index=1),
        ]
        * 2
    )
    backend = ScriptedBackend(lambda request: next(answers, unique_reply(request)))
    summary = run_documents(tmp_path, pack, backend, n=3)
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
    run_documents(tmp_path, pack, backend, n=3)
    assert backend.requests == []


def test_wrong_language_is_rejected(tmp_path: Path, pack) -> None:
    italian = (
        "Gentile dottore, le scrivo per informarla che il paziente ha completato la terapia "
        "prevista e che i risultati delle analisi sono arrivati questa mattina. La visita di "
        "controllo è fissata per la prossima settimana presso il nostro ambulatorio."
    )
    answers = iter([italian])
    backend = ScriptedBackend(lambda request: next(answers, unique_reply(request)))
    summary = run_documents(tmp_path, pack, backend, n=1)
    assert summary.rejected == {"wrong_language": 1}


def test_concurrent_backend_still_writes_exactly_n(tmp_path: Path, pack) -> None:
    backend = ScriptedBackend(unique_reply, concurrency=4)
    summary = run_documents(tmp_path, pack, backend, n=9, category="all")
    assert summary.accepted == 9 and len(backend.requests) == 9
    frame = pd.read_parquet(tmp_path / "documents")
    assert frame["id"].is_unique and len(frame) == 9


def test_model_errors_are_stored_and_a_broken_backend_stops_the_run(tmp_path: Path, pack) -> None:
    def broken(request) -> str:
        raise ModelError("connection refused")

    with pytest.raises(GenError, match="failed 5 times in a row"):
        run_documents(tmp_path, pack, ScriptedBackend(broken), n=3)
    rejects = pd.read_parquet(tmp_path / "rejects" / "documents")
    assert len(rejects) == 5 and set(rejects["flags"].map(tuple)) == {("model_error",)}
