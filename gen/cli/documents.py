"""`gen documents`, and the plan options it shares with its dry run `gen plan`."""

from __future__ import annotations

from collections import Counter
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
from gen.core.composition import HALVES
from gen.core.errors import IncompleteError, UsageError
from gen.core.packs import load_language_pack
from gen.core.runs import RunPaths
from gen.core.shards import Shard
from gen.generate.disclosures import (
    FACT_ORIGINS,
    FACT_STYLES,
    MAX_PER_DOCUMENT,
    MIXED_MODEL_SHARE,
    DisclosureSpec,
)
from gen.generate.echo import PROMPT_ECHO
from gen.generate.options import DocumentsOptions
from gen.generate.plan import ALL, PlanSpec
from gen.generate.plan_notes import plan_notes
from gen.generate.records import STAGE
from gen.generate.run import run
from gen.generate.shapes import ShapeSpec
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
        type=click.Choice(FACT_ORIGINS),
        default=DisclosureSpec.facts,
        show_default=True,
        help="Where planned facts come from: the language pack's facts.yaml, the model "
        "itself, asked in a short first request, or both (mixed: each fact draws its source).",
    ),
    click.option(
        "--model-fact-share",
        type=click.FloatRange(0.0, 1.0),
        default=None,
        show_default=f"{MIXED_MODEL_SHARE} with --facts mixed",
        help="With --facts mixed: share of the facts the model writes, the rest from the pack "
        "(in whole percent: 0.3, not 0.004).",
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
    click.option(
        "--non-disclosures",
        type=click.IntRange(0, MAX_PER_DOCUMENT),
        default=DisclosureSpec.non_disclosures,
        show_default=True,
        help="Each document also includes 0 to this many passages on a sensitive topic that "
        "disclose nothing about anyone (hard negatives from facts.yaml; never labeled).",
    ),
    click.option(
        "--value-half",
        type=click.Choice(HALVES),
        default=None,
        help="Draw every fact and field value from this half of each value list of facts.yaml "
        "and shapes.yaml (a split fixed by the entries): train on one half, score on the "
        "other, to see whether a detector learns the form of a field or its list.",
    ),
    click.option(
        "--layout-share",
        type=click.FloatRange(0.0, 1.0),
        default=0.0,
        show_default=True,
        help="With --disclosures planned: share of documents whose type has a skeleton in "
        "shapes.yaml that the program fills (fields, facts as field values); the model writes "
        "only their notes (in whole percent).",
    ),
    click.option(
        "--topic-share",
        type=click.FloatRange(0.0, 1.0),
        default=0.0,
        show_default=True,
        help="Share of documents about a category's topic that disclose nothing about anyone "
        "(shapes.yaml topics; no spans; in whole percent).",
    ),
)

#: Options that only mean something with --disclosures planned.
_DISCLOSURE_OPTIONS = (
    "facts",
    "model_fact_share",
    "fact_style",
    "facts_per_document",
    "second_category_share",
    "non_disclosures",
    "value_half",
)


def plan_spec(kwargs: dict[str, Any]) -> PlanSpec:
    return PlanSpec(
        language=kwargs["language"],
        category=kwargs["category"],
        doc_type=kwargs["doc_type"],
        seed=kwargs["seed"],
        disclosures=_disclosures(kwargs),
        shapes=_shapes(kwargs),
    )


def _shapes(kwargs: dict[str, Any]) -> ShapeSpec | None:
    """None when every document is a narrative (the plan key stays as before)."""
    if not (kwargs["layout_share"] or kwargs["topic_share"]):
        return None
    return ShapeSpec(layout_share=kwargs["layout_share"], topic_share=kwargs["topic_share"])


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
        non_disclosures=kwargs["non_disclosures"],
        model_share=kwargs["model_fact_share"],
        value_half=kwargs["value_half"],
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
