"""The `gen` command group: every command listed, each module imported only when used."""

from __future__ import annotations

import json
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

import gen.cli
from gen.cli import COMMANDS, main

REPO = Path(__file__).resolve().parents[1]
#: Modules of gen/cli that hold no command.
SHARED_MODULES = {"gen.cli.options", "gen.cli.plan_options"}


def loaded_after(*args: str) -> tuple[str, list[str]]:
    """The output of `gen ARGS` in a fresh interpreter, and the gen.cli modules it imported."""
    script = (
        "import json, sys; from gen.cli import main; "
        "main.main(sys.argv[1:], prog_name='gen', standalone_mode=False); "
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('gen.cli.'))))"
    )
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
    }
    done = subprocess.run(
        [sys.executable, "-c", script, *args], env=env, capture_output=True, text=True, check=True
    )
    *output, modules = done.stdout.splitlines()
    return "\n".join(output), json.loads(modules)


def test_every_command_module_is_in_the_table() -> None:
    modules = {module.name for module in pkgutil.iter_modules(gen.cli.__path__, "gen.cli.")}
    named = {target.partition(":")[0] for target, _ in COMMANDS.values()}
    assert named == modules - SHARED_MODULES


@pytest.mark.parametrize("name", list(COMMANDS))
def test_the_listed_summary_is_the_command_s_own(name: str) -> None:
    command = main.get_command(click.Context(main), name)
    assert command is not None and command.name == name
    listed = click.Command(name, help=COMMANDS[name][1])
    for width in (45, 70, 500):  # as `gen --help` cuts it on narrow and wide terminals
        assert listed.get_short_help_str(width) == command.get_short_help_str(width)


def test_gen_help_lists_every_command_without_importing_one() -> None:
    output, modules = loaded_after("--help")
    listed = output.split("Commands:\n", 1)[1].splitlines()
    assert [line.split()[0] for line in listed] == list(COMMANDS)
    assert modules == []


def test_a_command_s_help_imports_that_command_only() -> None:
    output, modules = loaded_after("stats", "--help")
    assert "Usage: gen stats [OPTIONS]" in output
    assert set(modules) == {"gen.cli.stats", "gen.cli.options"}


def test_an_unknown_command_is_a_usage_error() -> None:
    result = CliRunner().invoke(main, ["bogus"])
    assert result.exit_code == 2 and "No such command 'bogus'" in result.output
