"""`gen documents`: write the documents of a plan with the LLM."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import click

from gen.cli.options import backend_options, backend_options_from, run_option, shard_option
from gen.cli.plan_options import plan_options, plan_spec
from gen.core.errors import IncompleteError
from gen.core.packs import load_language_pack
from gen.core.runs import RunPaths
from gen.core.shards import Shard
from gen.generate.echo import PROMPT_ECHO
from gen.generate.options import DocumentsOptions
from gen.generate.plan_notes import plan_notes
from gen.generate.records import STAGE
from gen.generate.run import run
from gen.generate.summary import NOTHING_TO_DO, DocumentsSummary


@click.command()
@run_option
@plan_options
@backend_options
@click.option(
    "--max-tokens",
    type=click.IntRange(min=16),
    default=None,
    help="Cap on generated tokens per document (default: each document type's budget, its "
    "words in taxonomy.yaml times sampling.tokens_per_word of generation.yaml).",
)
@click.option(
    "--prompt-format",
    default=None,
    show_default="generation.yaml's format",
    help="'chat' (the model's template) or a raw format from prompts/formats.yaml, e.g. alpaca.",
)
@click.option(
    "--inline-labels",
    is_flag=True,
    help="Ask the writer to wrap sensitive passages in tags (<health>...</health>); they "
    "become llm_inline spans of the clean text (gen label --strategy inline).",
)
@click.option(
    "--require-disclosures",
    is_flag=True,
    help="With --disclosures planned: reject a document that misses a planned fact (reason "
    "disclosure_missing) instead of keeping it flagged.",
)
@shard_option
def documents(
    run_dir: Path,
    max_tokens: int | None,
    prompt_format: str | None,
    inline_labels: bool,
    require_disclosures: bool,
    shard: Shard,
    **kwargs: Any,
) -> None:
    """Write N fictional documents with the LLM into RUN/documents.

    Exit status 3 when the attempt budget runs out before N documents are accepted.
    """
    spec = plan_spec(kwargs)
    for note in plan_notes(load_language_pack(spec.language, kwargs["prompts_dir"]), spec):
        click.echo(f"note: {note}", err=True)
    options = DocumentsOptions(
        spec=spec,
        n=kwargs["n"],
        max_tokens=max_tokens,
        prompt_format=prompt_format,
        prompts_dir=kwargs["prompts_dir"],
        backend=backend_options_from(kwargs),
        shard=shard,
        inline_labels=inline_labels,
        require_disclosures=require_disclosures,
    )
    paths = RunPaths(run_dir)
    summary = run(paths, options)
    report(summary, paths)
    if summary.short:
        raise IncompleteError(summary.diagnosis)


def report(summary: DocumentsSummary, paths: RunPaths) -> None:
    if summary.status == NOTHING_TO_DO:
        click.echo(
            f"{summary.title} already has {summary.accepted} documents ({summary.asked}): "
            f"nothing to generate in {paths.documents}"
        )
        return
    click.echo(
        f"{summary.accepted}/{summary.wanted} documents for {summary.title} "
        f"({summary.new_accepted} new, {summary.tokens_per_second:.1f} tokens/s) "
        f"in {paths.documents}"
    )
    if set(summary.shapes) - {"narrative"}:
        shapes = ", ".join(f"{shape} {count}" for shape, count in sorted(summary.shapes.items()))
        click.echo(f"new documents by shape: {shapes}")
    rejected = ", ".join(f"{reason} {count}" for reason, count in summary.rejected.most_common())
    if rejected:
        click.echo(f"rejected (kept in {paths.rejects(STAGE)}): {rejected}")
    if summary.ctx_truncated:
        click.echo(
            f"{summary.ctx_truncated} documents were cut by the context window (--ctx) and are "
            "flagged ctx_truncated"
        )
    facts = summary.facts.total()
    by_source = summary.facts.by_source
    if facts["planned"]:
        click.echo(
            f"planned facts: {facts['planned']} in the checked documents: {facts['exact']} "
            f"found exact, {facts['fuzzy']} fuzzy, {facts['missing']} missing "
            "(documents flagged or rejected disclosure_missing)"
        )
    if len(by_source) > 1:
        found = ", ".join(
            f"{source} {_found(counts)}" for source, counts in sorted(by_source.items())
        )
        click.echo(f"planned facts found per source: {found}")
    passages = summary.facts.non_disclosures
    if passages["planned"]:
        click.echo(
            f"non-disclosures: {passages['planned']} in the checked documents: "
            f"{passages['exact']} found exact, {passages['fuzzy']} fuzzy, "
            f"{passages['missing']} missing (counted only)"
        )
    if summary.written_again:
        click.echo(
            f"written again, their first answer holding an echo of the prompt: "
            f"{summary.written_again} ({summary.flagged[PROMPT_ECHO]} still flagged {PROMPT_ECHO})"
        )
    flagged = ", ".join(f"{flag} {count}" for flag, count in summary.flagged.most_common())
    if flagged:
        click.echo(
            f"flagged (kept; gen build leaves out {PROMPT_ECHO}, and with --exclude-flagged "
            f"every flag): {flagged}"
        )


def _found(counts: Counter[str]) -> str:
    """`90% (9 of 10)`: the share of planned facts found, exact or fuzzy."""
    found, planned = counts["exact"] + counts["fuzzy"], counts["planned"]
    return f"{round(100 * found / planned) if planned else 0}% ({found} of {planned})"
