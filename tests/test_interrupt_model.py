"""Ctrl-C on `gen documents --disclosures planned` with the embedded model, in a process of
its own as a user runs it: it stops within a few seconds even in the middle of a prompt's
evaluation (the whole prompt went to llama.cpp in one call that nothing stops, and the run
waited 14.6 s for it on a busy machine), keeps the documents written, and the same command
resumes without duplicates."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from gen.backends.llama_cpp import PROMPT_PIECE
from gen.cli import main
from gen.core.store import RecordTable

pytestmark = pytest.mark.model

#: gen with Python's own Ctrl-C handler (a shell that starts the tests in the background
#: ignores SIGINT, and Python then never turns it into KeyboardInterrupt), saying on stderr
#: each time llama.cpp starts evaluating prompt tokens.
ENTRY = """
import signal, sys
import llama_cpp
signal.signal(signal.SIGINT, signal.default_int_handler)
evaluate = llama_cpp.Llama.eval
def announced(self, tokens):
    if len(tokens) > 1:
        print(f"evaluating {len(tokens)} prompt tokens", file=sys.stderr, flush=True)
    evaluate(self, tokens)
llama_cpp.Llama.eval = announced
from gen.backends.llama_cpp import PROMPT_PIECE
from gen.cli import main
main()
"""
#: A user expects a stop within a few seconds.
STOP_SECONDS = 5


def documents(run: Path, n: int) -> list[str]:
    return [
        *("documents", "--run", str(run), "--n", str(n), "--category", "health"),
        *("--disclosures", "planned", "--seed", "11", "--max-tokens", "160", "--ctx", "1024"),
    ]


def stored(run: Path) -> dict[str, str]:
    """Id -> text of every finished item, accepted or rejected, each once."""
    tables = [RecordTable(run / "documents"), RecordTable(run / "rejects" / "documents")]
    records = [r for table in tables if table.exists() for r in table.read()]
    assert len(records) == len({r.id for r in records})
    return {r.id: r.text for r in records}


def test_ctrl_c_stops_within_seconds_keeps_what_was_written_and_resumes(tmp_path: Path) -> None:
    first = CliRunner().invoke(main, documents(tmp_path, 1))
    assert first.exit_code in (0, 3), first.output
    kept = stored(tmp_path)
    assert len(kept) >= 1
    process = subprocess.Popen(
        [sys.executable, "-c", ENTRY, *documents(tmp_path, 3)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    said = []
    while "evaluating" not in (line := process.stderr.readline()):  # the next item's prompt
        assert line, f"gen documents ended before a prompt: {''.join(said)}"
        said.append(line)
    process.send_signal(signal.SIGINT)
    interrupted = time.monotonic()
    _, rest = process.communicate(timeout=120)
    stopped_after = time.monotonic() - interrupted
    assert process.returncode == 130, rest
    assert "interrupted" in rest
    assert stopped_after < STOP_SECONDS, f"stopped {stopped_after:.1f} s after Ctrl-C"
    assert int(line.split()[1]) <= PROMPT_PIECE  # what the engine cannot stop is a piece
    assert stored(tmp_path) == kept
    resumed = CliRunner().invoke(main, documents(tmp_path, 3))
    assert resumed.exit_code in (0, 3), resumed.output
    final = stored(tmp_path)
    assert {key: final[key] for key in kept} == kept
    assert len(final) > len(kept)  # the item in flight was asked for again
    assert len(RecordTable(tmp_path / "documents").read()) <= 3
    [plan] = json.loads((tmp_path / "manifests" / "documents.json").read_text())["plans"].values()
    assert [run["status"] for run in plan["runs"]][1] == "interrupted"
