"""The `gen` command: parses options and calls library functions, nothing more.

One module per command, imported only when that command runs or shows its help: the
modules pull in pandas, pyarrow, Faker and the backends, which `gen --help` and every
other command need not pay for. `COMMANDS` names each command's module and carries its
one-line summary, so `gen --help` lists them all without importing any.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import click

from gen import __version__
from gen.core.errors import GenError, warnings_once

#: Every command in pipeline order, as `gen --help` lists them: name -> ("module:attribute",
#: the first paragraph of its help). tests/test_cli_commands.py keeps the two in step.
COMMANDS: dict[str, tuple[str, str]] = {
    "packs": (
        "gen.cli.packs:packs",
        "Check the language packs in prompts/ (one line per problem).",
    ),
    "plan": (
        "gen.cli.plan:plan",
        "Dry run of `gen documents`: prompts and counts, no model, nothing written.",
    ),
    "documents": (
        "gen.cli.documents:documents",
        "Write N fictional documents with the LLM into RUN/documents.",
    ),
    "import": (
        "gen.cli.import_:import_command",
        "Bring outside texts into RUN/documents (to label) or RUN/gold (checked spans), or "
        "gen's own kept records into RUN/labeled (--as records).",
    ),
    "label": (
        "gen.cli.label:label",
        "Label RUN/documents with character spans into RUN/labeled (resumable).",
    ),
    "translate": (
        "gen.cli.translate:translate",
        "Translate labeled records into another language, each span wrapped in a tag naming "
        "its label so the translation's spans are exact, into RUN/translated (resumable).",
    ),
    "score": (
        "gen.cli.score:score",
        "Score every generated document of RUN/documents with the yes/no questions of "
        "quality.yaml (real, language, persona, facts) into RUN/quality (resumable).",
    ),
    "wikipedia": (
        "gen.cli.wikipedia:wikipedia_command",
        "Scrape Wikipedia paragraphs into RUN/wikipedia (resumable, cached).",
    ),
    "queries": (
        "gen.cli.queries:queries_command",
        "Fill query templates with Faker values into RUN/queries (resumable).",
    ),
    "build": (
        "gen.cli.build:build",
        "Assemble RUN/dataset from RUN/labeled, RUN/translated, RUN/gold, RUN/wikipedia and "
        "RUN/queries.",
    ),
    "export": (
        "gen.cli.export:export",
        "Write RUN/export/FORMAT/{train,dev,test}.* with a manifest and a dataset card.",
    ),
    "stats": (
        "gen.cli.stats:stats",
        "Label shares, documents per category/type/split, rejects; Markdown, CSV and PNG.",
    ),
    "eval": (
        "gen.cli.eval:eval_command",
        "Score the spans of PRED against GOLD (Parquet, JSONL or record folders, same "
        "ids and texts): token overlap per label, documents, SemEval entity schemes, "
        "confusion.",
    ),
    "train": (
        "gen.cli.train:train",
        "Train a detector on RUN/export (re-exported when missing or stale), keep the "
        "best checkpoint on dev, score test (and --gold) and write a model card next to"
        " the model.",
    ),
    "predict": (
        "gen.cli.predict:predict",
        "Find sensitive spans in INPUT (JSONL/Parquet records, a record folder, a run "
        "folder with --split, or .txt files) with a detector from gen "
        "train; long documents are windowed with overlap and merged back to exact "
        "character offsets.",
    ),
    "inspect": (
        "gen.cli.inspect:inspect_command",
        "Write a self-contained HTML page with every document and its highlighted spans.",
    ),
    "review": (
        "gen.cli.review:review",
        "Review and correct labels in Label Studio, and pull them back as gold.",
    ),
    "bench": (
        "gen.cli.bench:bench",
        "Throughput of generation, labeling and alignment against the bare engine.",
    ),
}


class _Group(click.Group):
    """Loads a command's module on first use, turns expected failures into one line on
    stderr and their exit status, says each warning once per command, and lists commands
    in pipeline order."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        module, attribute = COMMANDS[cmd_name][0].split(":")
        command: click.Command = getattr(importlib.import_module(module), attribute)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list of `gen --help`, cut to the width as click cuts it, from
        `COMMANDS` alone."""
        limit = formatter.width - 6 - max(map(len, COMMANDS))
        rows = [
            (name, click.Command(name, help=summary).get_short_help_str(limit))
            for name, (_, summary) in COMMANDS.items()
        ]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def invoke(self, ctx: click.Context) -> object:
        before = _stored()
        try:
            with warnings_once():
                return super().invoke(ctx)
        except GenError as exc:
            click.secho(f"error: {exc}", fg="red", err=True)
            sys.exit(exc.exit_code)
        except KeyboardInterrupt:
            said = ctx.meta.get(_INTERRUPTED)
            if said is None:
                said = f"{_saved_since(before)}; re-run the same command to resume"
            click.echo(f"interrupted: {said}", err=True)
            sys.exit(130)


#: `click.Context.meta` key (shared by a command's context and the group's) of what an
#: interrupted command says instead of counting the records it stored.
_INTERRUPTED = "gen.interrupted"


def when_interrupted(message: str) -> None:
    """What Ctrl-C in the running command says: for a command that stores no records one
    by one (it replaces its outputs whole), "no new record was saved" would be beside the
    point."""
    click.get_current_context().meta[_INTERRUPTED] = message


def _stored() -> dict[Path, int]:
    """Records this process stored so far, per table. A process that never loaded the
    record store (it would import pyarrow just to ask) stored none."""
    store = sys.modules.get("gen.core.store")
    return store.saved_records() if store is not None else {}


def _saved_since(before: dict[Path, int]) -> str:
    """What an interrupted command kept: the records it stored, per table."""
    saved = {
        folder: count - before.get(folder, 0)
        for folder, count in _stored().items()
        if count > before.get(folder, 0)
    }
    if not saved:
        return "no new record was saved"
    tables = ", ".join(f"{count} in {folder}" for folder, count in saved.items())
    total = sum(saved.values())
    return f"{total} new record{'s' if total > 1 else ''} saved ({tables})"


@click.group(cls=_Group)
@click.version_option(__version__, prog_name="gen")
def main() -> None:
    """Write and label fictional sensitive documents with a local LLM."""
