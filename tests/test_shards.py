"""One plan over several machines: shard K of N makes items i % N == K into its own part,
the parts read as one table, and N shards make exactly the records one machine makes.
Two writers of one table part: the second stops with one line and exit status 2."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner
from fakes import ScriptedBackend, table_held_elsewhere, unique_reply
from label_fakes import HEALTH_TEXT, JUDICIAL_TEXT, OTHER_TEXT, document, keyword_reply

from gen.cli import main
from gen.core.errors import UsageError
from gen.core.packs import default_prompts_dir
from gen.core.records import Record
from gen.core.runs import RunPaths
from gen.core.shards import Shard
from gen.core.store import RecordTable
from gen.generate import run as documents_stage
from gen.generate.options import DocumentsOptions
from gen.generate.plan_spec import PlanSpec
from labeling.options import LabelOptions
from labeling.run import run as label_run
from scraping.queries.generate import generate_queries

REPO = Path(__file__).resolve().parent.parent


def table(folder: Path) -> dict[str, Record]:
    """Records by id; `meta.run` names the call that wrote a record, which differs between
    machines by nature, so it is left out of the comparison."""
    records = RecordTable(folder).read()
    for record in records:
        record.meta.pop("run", None)
    return {record.id: record for record in records}


def make_documents(paths: RunPaths, n: int, shard: Shard) -> None:
    options = DocumentsOptions(spec=PlanSpec(language="en", category="all"), n=n, shard=shard)
    documents_stage.run(paths, options, ScriptedBackend(unique_reply))


def test_three_shards_write_the_documents_one_machine_writes(tmp_path: Path) -> None:
    one, three = RunPaths(tmp_path / "one"), RunPaths(tmp_path / "three")
    make_documents(one, 10, Shard())
    for k in range(3):
        make_documents(three, 10, Shard(k, 3))
    assert len(table(one.documents)) == 10
    assert table(three.documents) == table(one.documents)
    shard_ids = {p.name: len(RecordTable(p).ids()) for p in three.documents.iterdir()}
    assert shard_ids == {"shard-0-of-3": 4, "shard-1-of-3": 3, "shard-2-of-3": 3}
    assert sorted(pd.read_parquet(three.documents)["id"]) == sorted(table(one.documents))
    manifest = json.loads(three.manifest("documents", Shard(1, 3)).read_text())
    (plan,) = manifest["plans"].values()
    assert (plan["shard"], plan["accepted"]) == ("1/3", 3)
    # A shard run again has nothing left to do.
    backend = ScriptedBackend(unique_reply)
    options = DocumentsOptions(
        spec=PlanSpec(language="en", category="all"), n=10, shard=Shard(2, 3)
    )
    documents_stage.run(three, options, backend)
    assert backend.requests == []


def labeling_input(run: RunPaths) -> None:
    names = ["Mario Rossi", "Lia Conte", "Piero Gallo", "Ada Neri", "Ugo Sala", "Eva Riva"]
    texts = {"health": HEALTH_TEXT, "judicial": JUDICIAL_TEXT, "other": OTHER_TEXT}
    with RecordTable(run.documents) as documents:
        for i, name in enumerate(names * 2):
            category = list(texts)[i % 3]
            text = texts[category].replace("Mario Rossi", name).replace("Anna Verdi", name)
            documents.append(document(f"d{i:02d}", text, category, {"name": name}))


def test_three_shards_label_like_one_machine(tmp_path: Path) -> None:
    one, three = RunPaths(tmp_path / "one"), RunPaths(tmp_path / "three")
    for run in (one, three):
        labeling_input(run)
    label_run(one, LabelOptions(strategy="both", backend=ScriptedBackend(keyword_reply)))
    for k in range(3):
        options = LabelOptions(
            strategy="both", shard=Shard(k, 3), backend=ScriptedBackend(keyword_reply)
        )
        label_run(three, options)
    labeled = table(three.labeled)
    assert len(labeled) == 12 and labeled == table(one.labeled)
    assert any(span.source == "llm_censor" for record in labeled.values() for span in record.spans)
    assert sum(1 for p in three.labeled.iterdir() if p.name.startswith("shard-")) == 3
    with pytest.raises(UsageError, match="--overwrite cannot be combined with --shard"):
        LabelOptions(overwrite=True, shard=Shard(0, 3))


def test_cli_documents_and_label_take_a_shard(tmp_path: Path, monkeypatch) -> None:
    for name in ("gen.generate.run", "gen.cli.label"):
        module = importlib.import_module(name)
        reply = unique_reply if name == "gen.generate.run" else keyword_reply
        monkeypatch.setattr(module, "make_backend", lambda options, r=reply: ScriptedBackend(r))
    runner = CliRunner()
    made = runner.invoke(main, ["documents", "--run", str(tmp_path), "--n", "5", "--shard", "1/2"])
    assert made.exit_code == 0, made.output
    assert "2/2 documents for plan en-all-all-s0 shard 1/2 (2 new" in made.output
    labeled = runner.invoke(main, ["label", "--run", str(tmp_path), "--shard", "0/2"])
    assert labeled.exit_code == 0, labeled.output
    assert (tmp_path / "labeled" / "shard-0-of-2").is_dir()
    bad = runner.invoke(main, ["queries", "--run", str(tmp_path), "--shard", "3/3"])
    assert bad.exit_code == 2 and "shard 3/3 does not exist: expected K/N" in bad.output


def python_process(*args: str) -> subprocess.Popen[str]:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
    }
    return subprocess.Popen(
        [sys.executable, *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def gen_process(*args: str) -> subprocess.Popen[str]:
    """`gen ARGS` as its own process, the way a user (or a cluster) starts it."""
    return python_process("-c", "import sys; from gen.cli import main; sys.exit(main())", *args)


def test_three_concurrent_query_shards_equal_one_machine(tmp_path: Path) -> None:
    run = tmp_path / "three"
    shards = [
        gen_process("queries", "--run", str(run), "--n", "300", "--shard", f"{k}/3")
        for k in range(3)
    ]
    for process in shards:
        _, err = process.communicate(timeout=300)
        assert process.returncode == 0, err
    generate_queries(
        tmp_path / "one", locale="en_US", n=300, seed=0, prompts_dir=default_prompts_dir()
    )
    queries = table(run / "queries")
    assert len(queries) == 300 and queries == table(tmp_path / "one" / "queries")


def test_a_second_writer_of_a_table_stops_with_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "queries"
    # A writer busy with the table, e.g. a long `gen queries` on another machine.
    with table_held_elsewhere(folder) as holder:
        second = gen_process("queries", "--run", str(tmp_path), "--n", "10")
        _, err = second.communicate(timeout=120)
        assert second.returncode == 2
        (line,) = err.strip().splitlines()
        assert line.startswith(
            f"error: {folder} is being written by another process (pid {holder.pid}"
        )
        assert "--shard K/N" in line
        assert not RecordTable(folder).exists()  # the refused writer wrote nothing
    generate_queries(tmp_path, locale="en_US", n=10, seed=0, prompts_dir=default_prompts_dir())
    assert pd.read_parquet(folder)["id"].is_unique and len(RecordTable(folder)) == 10
