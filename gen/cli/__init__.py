"""The `gen` command: parses options and calls library functions, nothing more."""

from __future__ import annotations

import sys

import click

from gen import __version__
from gen.errors import GenError


class _Group(click.Group):
    """Turns expected failures into one line on stderr and their exit status."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except GenError as exc:
            click.secho(f"error: {exc}", fg="red", err=True)
            sys.exit(exc.exit_code)
        except KeyboardInterrupt:
            click.echo(
                "interrupted: finished records are saved; re-run the same command to resume",
                err=True,
            )
            sys.exit(130)


@click.group(cls=_Group)
@click.version_option(__version__, prog_name="gen")
def main() -> None:
    """Write and label fictional sensitive documents with a local LLM."""


# Commands register themselves below, one module per command.
from gen.cli.eval import eval_command  # noqa: E402

main.add_command(eval_command)
from gen.cli.documents import documents, plan  # noqa: E402

main.add_command(documents)
main.add_command(plan)
from gen.cli.inspect import inspect_command  # noqa: E402

main.add_command(inspect_command)
from gen.cli.wikipedia import wikipedia_command  # noqa: E402

main.add_command(wikipedia_command)
from gen.cli.build import build  # noqa: E402

main.add_command(build)
from gen.cli.export import export  # noqa: E402

main.add_command(export)
from gen.cli.stats import stats  # noqa: E402

main.add_command(stats)
from gen.cli.bench import bench  # noqa: E402

main.add_command(bench)
from gen.cli.label import label  # noqa: E402

main.add_command(label)
from gen.cli.queries import queries_command  # noqa: E402

main.add_command(queries_command)
