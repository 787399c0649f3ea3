"""The `gen` command: parses options and calls library functions, nothing more."""

from __future__ import annotations

import sys

import click

from gen import __version__
from gen.core.errors import GenError


class _Group(click.Group):
    """Turns expected failures into one line on stderr and their exit status, and lists
    commands in pipeline order rather than alphabetically."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands)

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


# One module per command; imported after `main` exists.
from gen.cli.bench import bench  # noqa: E402
from gen.cli.build import build  # noqa: E402
from gen.cli.documents import documents, plan  # noqa: E402
from gen.cli.eval import eval_command  # noqa: E402
from gen.cli.export import export  # noqa: E402
from gen.cli.import_ import import_command  # noqa: E402
from gen.cli.inspect import inspect_command  # noqa: E402
from gen.cli.label import label  # noqa: E402
from gen.cli.predict import predict  # noqa: E402
from gen.cli.queries import queries_command  # noqa: E402
from gen.cli.review import review  # noqa: E402
from gen.cli.stats import stats  # noqa: E402
from gen.cli.train import train  # noqa: E402
from gen.cli.wikipedia import wikipedia_command  # noqa: E402

# In pipeline order, as `gen --help` lists them.
for command in (
    plan,
    documents,
    import_command,
    label,
    wikipedia_command,
    queries_command,
    build,
    export,
    stats,
    eval_command,
    train,
    predict,
    inspect_command,
    review,
    bench,
):
    main.add_command(command)
