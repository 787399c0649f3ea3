"""Every option of every command says what it does, its default and its range.

The test walks each command's options through click (`Context`, `params`) and reads
the help line click prints for it, so an option added without help, without its
default shown, or with a range the code enforces but the help hides, fails here.
"""

from __future__ import annotations

import click
import pytest

from gen.cli import COMMANDS, main

#: Numeric options that take any value, with the reason: every other INT/FLOAT option must
#: declare its range (click.IntRange / FloatRange), which click then shows and enforces.
UNBOUNDED = {
    "--seed": "any integer seeds the draws",
    "--n-gpu-layers": "-1 means every layer",
}


def _commands() -> list[tuple[str, click.Command, click.Context]]:
    """(path, command, context) for every command and subcommand."""
    root = click.Context(main, info_name="gen")
    found = []

    def walk(command: click.Command, context: click.Context, path: str) -> None:
        found.append((path, command, context))
        if isinstance(command, click.Group):
            for name in command.list_commands(context):
                child = command.get_command(context, name)
                assert child is not None, f"{path} {name}"
                walk(child, click.Context(child, info_name=name, parent=context), f"{path} {name}")

    for name in COMMANDS:
        command = main.get_command(root, name)
        walk(command, click.Context(command, info_name=name, parent=root), f"gen {name}")
    return found


def _options() -> list[tuple[str, click.Option, click.Context]]:
    return [
        (f"{path} {option.opts[0]}", option, context)
        for path, command, context in _commands()
        for option in command.params
        if isinstance(option, click.Option) and option.name != "help"
    ]


OPTIONS = _options()


def test_the_walk_reaches_every_command_and_subcommand() -> None:
    paths = {path for path, _, _ in _commands()}
    assert {f"gen {name}" for name in COMMANDS} <= paths
    assert {"gen review push", "gen review pull", "gen review report"} <= paths


@pytest.mark.parametrize(("where", "option", "context"), OPTIONS, ids=[o[0] for o in OPTIONS])
def test_every_option_has_help_with_its_default_and_range(where, option, context) -> None:
    record = option.get_help_record(context)
    assert record is not None, f"{where} is hidden"
    text = " ".join(record[1].split())
    assert option.help and option.help.strip(), f"{where} has no help text"
    plain_flag = option.is_flag and not option.secondary_opts
    if not (option.required or plain_flag):
        assert "default" in text.lower(), f"{where} does not show its default: {text!r}"
    if isinstance(option.type, click.types._NumberRangeBase):
        assert option.type._describe_range() in text, f"{where} hides its range: {text!r}"
    elif isinstance(option.type, click.types.IntParamType | click.types.FloatParamType):
        assert option.opts[0] in UNBOUNDED, (
            f"{where} takes any number: declare its range (click.IntRange/FloatRange) or "
            "list it in UNBOUNDED with the reason"
        )


def test_each_review_command_shows_its_own_default() -> None:
    """`--table` of `review report` defaults to the pushed table, not to push's `labeled`."""
    by_path = {path: option for path, option, _ in OPTIONS}
    for path, default in (
        ("gen review push --table", "labeled"),
        ("gen review pull --table", "as pushed"),
        ("gen review report --table", "as pushed"),
        ("gen review push --offsets", "codepoint"),
    ):
        assert by_path[path].show_default == default, path
