"""Every `gen` command of the README's code blocks runs as shown, in README order, in an
empty folder: those that need a model, the network, a server or a GPU are listed below with
the reason and not run; the tables they would write, and the files the README names as the
user's own (`gold.jsonl`, `new_letters/`), are written first as stand-ins. `gen train` (and
the `gen predict` of its model) run as shown on a run of 60 queries: on the README's 2,000
they train for minutes."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from build_fixtures import make_records
from click.testing import CliRunner

from gen.cli import main
from gen.core.packs import default_prompts_dir
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from gen.dataset.assemble import build_dataset
from gen.dataset.options import BuildOptions
from scraping.queries.generate import generate_queries

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"

#: Commands of the README that are not run here, and why.
NOT_RUN = {
    "gen documents --category health --n 500": "asks a model",
    "gen label --strategy censor": "asks a model",
    "gen wikipedia": "needs the network",
    "gen documents --category all --n 700 --language it": "asks a model",
    "gen documents --category all --n 700 --disclosures planned": "asks a model",
    "gen documents --disclosures planned --non-disclosures 2": "asks a model",
    "gen documents --disclosures planned --layout-share 1 --topic-share 0.25": "asks a model",
    "gen score --model FILE.gguf": "asks a model",
    "gen label": "asks a model",
    "gen label --strategy sentences,censor --model FILE.gguf": "asks a model",
    "gen wikipedia --language it --depth 2 --max-pages 500 --contact you@example.org": (
        "needs the network"
    ),
    "gen train --run outputs --trainer encoder --encoder WRITER.gguf": "reads a model",
    "gen train --run outputs --trainer transformers --base-model ~/models/xlm-roberta-base "
    "--device cuda": "needs a model and a GPU",
    "gen review push --sample 50 --stratify category": "needs a Label Studio server",
    "gen review pull": "needs a Label Studio server",
    "gen review report": "needs what gen review pull brought from a Label Studio server",
    "gen bench": "runs a model",
    "gen translate --to it": "asks a model",
    "gen translate --to de --from en --source my_gold.jsonl": "asks a model",
}
#: Commands run as shown in a run folder of their own, with fewer records.
ON_A_SMALL_RUN = (
    "gen train --run outputs --gold bench/gold/gold-test.jsonl",
    "gen predict --model outputs/models/spacy new_letters/ --out found.jsonl",
)
#: Lines of the README's code blocks that are not `gen` commands.
OTHER_TOOLS = ("make ", "python ")


def readme_commands() -> list[str]:
    """Every command of the README's code blocks, in order, comments left out; `a && b` is
    two commands."""
    commands: list[str] = []
    inside = False
    for line in README.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            inside = not inside
            continue
        words = shlex.split(line, comments=True) if inside else []
        command: list[str] = []
        for word in [*words, "&&"]:
            if word != "&&":
                command.append(word)
            elif command:
                commands.append(" ".join(command))
                command = []
    return commands


def test_the_readme_commands_are_read_and_every_one_not_run_is_still_there() -> None:
    commands = readme_commands()
    assert "gen build" in commands and "gen queries --n 1000" in commands
    listed = {*NOT_RUN, *ON_A_SMALL_RUN}
    assert listed <= set(commands), listed - set(commands)
    for command in commands:
        assert command.startswith(("gen ", *OTHER_TOOLS)), f"not a command: {command!r}"


def _stand_ins(folder: Path, queries: int = 0) -> None:
    """What the commands not run would have written (and `queries` queries, built), and the
    user's own files."""
    paths = RunPaths(folder / "outputs")
    documents, negatives, _ = make_records(documents=30, pages=4, queries=0)
    for table, records in (
        (paths.documents, documents),
        (paths.labeled, documents),
        (paths.wikipedia, negatives),
    ):
        with RecordTable(table) as writer:
            writer.extend(records)
    if queries:
        generate_queries(paths.root, locale="en_US", n=queries, seed=0,
                         prompts_dir=default_prompts_dir())  # fmt: skip
        build_dataset(paths.root, BuildOptions())
    gold = [
        {"id": r.id, "text": r.text, "spans": [s.to_dict() for s in r.spans if s.source == "faker"]}
        for r in documents
    ]
    (folder / "gold.jsonl").write_text("".join(json.dumps(row) + "\n" for row in gold))
    mine = {"id": "mine-1", "text": "Ilse Korvin was treated for asthma.",
            "spans": [{"start": 0, "end": 11, "label": "PERSON"}]}  # fmt: skip
    (folder / "my_gold.jsonl").write_text(json.dumps(mine) + "\n")
    letters = folder / "new_letters"
    letters.mkdir()
    (letters / "to-noor.txt").write_text("Dear Noor Pruitt,\nyour test came back clear.\n")
    (folder / "bench").symlink_to(ROOT / "bench")


def _run(command: str) -> None:
    result = CliRunner().invoke(main, shlex.split(command)[1:])
    assert result.exit_code == 0, f"{command}\n{result.output}"


def test_every_readme_command_that_needs_no_model_runs_as_shown(tmp_path, monkeypatch) -> None:
    pytest.importorskip("spacy")
    readme, small = tmp_path / "readme", tmp_path / "small"
    for folder, queries in ((readme, 0), (small, 60)):
        folder.mkdir()
        _stand_ins(folder, queries)
    ran = []
    for command in readme_commands():
        if command in NOT_RUN or command.startswith(OTHER_TOOLS):
            continue
        monkeypatch.chdir(small if command in ON_A_SMALL_RUN else readme)
        _run(command)
        ran.append(command)
    assert {"gen build", "gen export --format conll", "gen inspect", *ON_A_SMALL_RUN} <= set(ran)
    assert (small / "found.jsonl").is_file() and (readme / "outputs/inspect.html").is_file()
