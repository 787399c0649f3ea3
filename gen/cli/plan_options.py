"""The plan options that `gen documents` shares with its dry run `gen plan`, and their spec."""

from __future__ import annotations

from typing import Any

import click
from click.core import ParameterSource

from gen.cli.options import compose_options, language_option, prompts_option, seed_option
from gen.core.composition import HALVES
from gen.core.errors import UsageError
from gen.generate.disclosures import (
    FACT_ORIGINS,
    FACT_STYLES,
    MAX_PER_DOCUMENT,
    MIXED_MODEL_SHARE,
    DisclosureSpec,
)
from gen.generate.plan_spec import ALL, PlanSpec
from gen.generate.shapes import ShapeSpec

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
        show_default="every value of each list",
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
