"""Model processes of one machine share its cores: each counts the others before a request."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from gen.backends import cpu_share
from gen.backends.cpu_share import CoreShare

REGISTER_AND_WAIT = """
import sys, time
from pathlib import Path
from gen.backends.cpu_share import CoreShare
CoreShare(folder=Path(sys.argv[1])).register("gen documents")
print("ready", flush=True)
time.sleep(60)
"""


@contextmanager
def other_model_process(folder: Path) -> Iterator[subprocess.Popen[str]]:
    """A second process registered as a model process, until the block ends."""
    process = subprocess.Popen(
        [sys.executable, "-c", REGISTER_AND_WAIT, str(folder)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None and process.stdout.readline().strip() == "ready"
        yield process
    finally:
        process.kill()
        process.wait()


def share(folder: Path, **kwargs: object) -> CoreShare:
    fresh = CoreShare(folder=folder, cores=2, **kwargs)  # type: ignore[arg-type]
    fresh.register("gen label")
    return fresh


def recount(core_share: CoreShare) -> int:
    core_share._counted_at = float("-inf")
    return core_share.threads()


def test_alone_a_process_uses_every_core(tmp_path: Path) -> None:
    alone = share(tmp_path)
    assert alone.threads() == 2
    assert [p.name for p in tmp_path.iterdir()] == [f"{cpu_share.os.getpid()}.json"]
    alone.close()
    assert list(tmp_path.iterdir()) == []


def test_two_processes_split_the_cores_and_the_survivor_takes_them_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with other_model_process(tmp_path) as other:
        mine = share(tmp_path)
        assert mine.threads() == 1
        warning = capsys.readouterr().err
        assert f"1 other gen model process(es) on this machine: pid {other.pid} " in warning
        assert "(gen documents)" in warning and "this one uses 1 of 2 cores" in warning
    # killed without unregistering (kill -9): its file is stale and goes at the next count
    assert recount(mine) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"{cpu_share.os.getpid()}.json"]
    mine.close()


def test_a_fixed_thread_count_is_kept_but_still_registered(tmp_path: Path) -> None:
    with other_model_process(tmp_path):
        fixed = share(tmp_path, fixed=3)
        assert fixed.threads() == 3
        assert len(list(tmp_path.glob("*.json"))) == 2
        fixed.close()


def test_stale_and_garbled_entries_do_not_count(tmp_path: Path) -> None:
    finished = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    (tmp_path / "dead.json").write_text(json.dumps({"pid": int(finished.stdout)}))
    (tmp_path / "reused.json").write_text(json.dumps({"pid": 1, "started": "no such start"}))
    (tmp_path / "garbled.json").write_text("{not json")
    mine = share(tmp_path)
    assert mine.threads() == 2
    assert not (tmp_path / "dead.json").exists() and not (tmp_path / "reused.json").exists()
    mine.close()


def test_an_unwritable_registry_does_not_stop_a_run(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    mine = CoreShare(folder=blocker / "registry", cores=2)
    mine.register("gen label")
    assert mine.threads() == 2


@pytest.mark.model
def test_the_llama_cpp_backend_gives_up_a_core_while_another_model_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from llama_cpp import llama_n_threads

    from gen.backends.base import GenerationRequest, SamplingParams
    from gen.backends.llama_cpp import LlamaCppBackend
    from gen.backends.models import embedded_model_path

    monkeypatch.setenv("GEN_PROCESS_DIR", str(tmp_path))
    monkeypatch.setattr(cpu_share, "available_cores", lambda: 2)
    request = GenerationRequest(prompt="Hello", sampling=SamplingParams(max_tokens=2), seed=1)
    with other_model_process(tmp_path):
        backend = LlamaCppBackend(embedded_model_path(), n_ctx=512)
        assert backend.describe()["threads"] == 1
        backend.generate(request)
        assert llama_n_threads(backend._llama._ctx.ctx) == 1
    time.sleep(cpu_share.RECOUNT_SECONDS)
    backend.generate(request)
    assert backend.describe()["threads"] == 2
    assert llama_n_threads(backend._llama._ctx.ctx) == 2
    backend.close()
    assert list(tmp_path.glob("*.json")) == []
