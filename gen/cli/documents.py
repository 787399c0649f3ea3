"""`gen documents` and its dry run `gen plan`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from gen.cli.options import (
    backend_options,
    backend_options_from,
    compose_options,
    language_option,
    prompts_option,
    run_option,
    seed_option,
    shard_option,
)
from gen.core.errors import IncompleteError, UsageError
from gen.core.packs import load_language_pack
from gen.core.runs import RunPaths
from gen.core.shards import Shard
from gen.generate.disclosures import FACT_SOURCES, FACT_STYLES, MAX_PER_DOCUMENT, DisclosureSpec
from gen.generate.options import DocumentsOptions
from gen.generate.plan import (
    ALL,
    PlanItem,
    PlanSpec,
    category_counts,
    doc_type_counts,
    plan_item,
)
from gen.generate.records import STAGE
from gen.generate.run import run
from gen.generate.summary import NOTHING_TO_DO, DocumentsSummary

plan_options = compose_options(
    click.option(
        "--category",
        default=ALL,
        show_default=True,
        help="A category from prompts/categories.yaml, or 'all' (spread, with 'other' negatives).",
    ),
    click.option(
        "--doc-type",
        default=None,
        show_default="every type of the category, drawn per item",
        help="Only this document type (name from the taxonomy).",
    ),
    click.option(
        "--n",
        "n",
        type=click.IntRange(min=1),
        default=10,
        show_default=True,
        help="Documents wanted in this plan (a re-run resumes up to n).",
    ),
    language_option,
    seed_option,
    prompts_option,
    click.option(
        "--disclosures",
        type=click.Choice(["none", "planned"]),
        default="none",
        show_default=True,
        help="planned: decide the sensitive facts of each document before it is written, ask "
        "the writer to include them, and find them in the text as `planned` spans "
        "(docs/generation.md); none: the model writes freely.",
    ),
    click.option(
        "--facts",
        type=click.Choice(FACT_SOURCES),
        default=DisclosureSpec.facts,
        show_default=True,
        help="Where planned facts come from: the language pack's facts.yaml, or the model "
        "itself, asked in a short first request.",
    ),
    click.option(
        "--fact-style",
        type=click.Choice(FACT_STYLES),
        default=DisclosureSpec.style,
        show_default=True,
        help="inline: the writer is told the facts; placeholder: it writes [[FACT_1]]... where "
        "they go, replaced by the facts afterwards.",
    ),
    click.option(
        "--facts-per-document",
        type=click.IntRange(1, MAX_PER_DOCUMENT),
        default=DisclosureSpec.per_document,
        show_default=True,
        help="Each document discloses 1 to this many facts of its own category.",
    ),
    click.option(
        "--second-category-share",
        type=click.FloatRange(0.0, 1.0),
        default=DisclosureSpec.second_share,
        show_default=True,
        help="Share of documents that also disclose one fact of a second sensitive category "
        "(in whole percent: 0.3, not 0.004).",
    ),
)

#: Options that only mean something with --disclosures planned.
_DISCLOSURE_OPTIONS = ("facts", "fact_style", "facts_per_document", "second_category_share")


def _spec(kwargs: dict[str, Any]) -> PlanSpec:
    return PlanSpec(
        language=kwargs["language"],
        category=kwargs["category"],
        doc_type=kwargs["doc_type"],
        seed=kwargs["seed"],
        disclosures=_disclosures(kwargs),
    )


def _disclosures(kwargs: dict[str, Any]) -> DisclosureSpec | None:
    if kwargs["disclosures"] == "none":
        context = click.get_current_context()
        for name in _DISCLOSURE_OPTIONS:
            if context.get_parameter_source(name) == ParameterSource.COMMANDLINE:
                flag = "--" + name.replace("_", "-")
                raise UsageError(f"{flag} needs --disclosures planned")
        return None
    return DisclosureSpec(
        facts=kwargs["facts"],
        style=kwargs["fact_style"],
        per_document=kwargs["facts_per_document"],
        second_share=kwargs["second_category_share"],
    )


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
    options = DocumentsOptions(
        spec=_spec(kwargs),
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
    rejected = ", ".join(f"{reason} {count}" for reason, count in summary.rejected.most_common())
    if rejected:
        click.echo(f"rejected (kept in {paths.rejects(STAGE)}): {rejected}")
    if summary.ctx_truncated:
        click.echo(
            f"{summary.ctx_truncated} documents were cut by the context window (--ctx) and are "
            "flagged ctx_truncated"
        )
    facts = summary.facts.total()
    if facts["planned"]:
        click.echo(
            f"planned facts: {facts['planned']} in the checked documents: {facts['exact']} "
            f"found exact, {facts['fuzzy']} fuzzy, {facts['missing']} missing "
            "(documents flagged or rejected disclosure_missing)"
        )
    flagged = ", ".join(f"{flag} {count}" for flag, count in summary.flagged.most_common())
    if flagged:
        click.echo(f"flagged (kept; gen build --exclude-flagged leaves them out): {flagged}")


@click.command()
@plan_options
@click.option(
    "--show",
    type=click.IntRange(min=0),
    default=3,
    show_default=True,
    help="Print the rendered prompts of the first K items.",
)
@click.option(
    "--prompt-format",
    default=None,
    show_default="generation.yaml's format",
    help="Show the prompts in this format: 'chat' or a raw format from prompts/formats.yaml.",
)
def plan(show: int, prompt_format: str | None, **kwargs: Any) -> None:
    """Dry run of `gen documents`: prompts and counts, no model, nothing written."""
    pack = load_language_pack(kwargs["language"], kwargs["prompts_dir"])
    pack.formats.check_option(prompt_format)
    spec = _spec(kwargs)
    n = kwargs["n"]
    by_category = category_counts(pack, spec, n)
    format_name = prompt_format or pack.generation.format
    for index in range(min(show, n)):
        item = plan_item(pack, spec, index)
        click.secho(
            f"--- {item.id}  [{item.category} / {item.doc_type}]  seed={item.seed}", bold=True
        )
        click.echo(f"[format: {format_name}]")
        click.echo(f"system: {item.parts.system}")
        click.echo(f"instruction: {item.parts.instruction}")
        click.echo(f"response prefix: {item.parts.response_prefix!r}")
        for line in _planned_facts(item):
            click.echo(line)
        click.echo()
    by_type, exact = doc_type_counts(pack, spec, n)
    how = "" if exact else " (document types: expected counts, each type of a category as likely)"
    click.secho(f"plan {spec.key}: {n} documents{how}", bold=True)
    if spec.disclosures:
        click.echo(f"  {_disclosures_line(spec.disclosures)}")
    for category, total in by_category.items():
        click.echo(f"  {category:<12} {total:>5}")
        for (cat, doc_type), count in sorted(by_type.items()):
            if cat == category:
                shown = f"{count:>5}" if exact else f"~{round(count)}"
                click.echo(f"      {doc_type:<50} {shown:>5}")


def _planned_facts(item: PlanItem) -> list[str]:
    """`planned fact 1 [health]: was diagnosed with ...` (or asked of the model)."""
    return [
        f"planned fact {number} [{fact.category}]: "
        + (fact.text or "written by the model in a first request")
        for number, fact in enumerate(item.disclosures, 1)
    ]


def _disclosures_line(spec: DisclosureSpec) -> str:
    return (
        f"planned disclosures: facts from the {spec.facts}, {spec.style} style, 1-"
        f"{spec.per_document} of the document's own category, plus one of a second category "
        f"in {round(spec.second_share * 100)}% of documents; none for `other`"
    )
