"""`gen plan`: the dry run of `gen documents`."""

from __future__ import annotations

from collections import Counter
from typing import Any

import click

from gen.cli.plan_options import plan_options, plan_spec
from gen.core.packs import load_language_pack
from gen.generate.disclosures import DisclosureSpec
from gen.generate.plan import PlanItem, plan_item
from gen.generate.plan_counts import category_counts, doc_type_counts
from gen.generate.plan_notes import plan_notes
from gen.generate.shapes import NARRATIVE, TOPIC


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
    spec = plan_spec(kwargs)
    n = kwargs["n"]
    by_category = category_counts(pack, spec, n)
    format_name = prompt_format or pack.generation.format
    for index in range(min(show, n)):
        item = plan_item(pack, spec, index)
        click.secho(
            f"--- {item.id}  [{item.category} / {item.doc_type} / {item.shape}]  seed={item.seed}",
            bold=True,
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
    for note in plan_notes(pack, spec):
        click.echo(f"note: {note}", err=True)
    click.secho(f"plan {spec.key}: {n} documents{how}", bold=True)
    if spec.disclosures:
        click.echo(f"  {_disclosures_line(spec.disclosures)}")
    if spec.shapes:
        shapes: Counter[str] = Counter()
        for (_, _, shape), count in by_type.items():
            shapes[shape] += count
        listed = (f"{shape} {_count(count, exact)}" for shape, count in sorted(shapes.items()))
        click.echo(f"  shapes: {', '.join(listed)}")
    for category, total in by_category.items():
        click.echo(f"  {category:<12} {total:>5}")
        for (cat, doc_type, shape), count in sorted(by_type.items(), key=_row_order):
            if cat == category:
                name = doc_type if shape == NARRATIVE else f"{doc_type} / {shape}"
                click.echo(f"      {name:<50} {_count(count, exact):>5}")


def _row_order(row: tuple[tuple[str, str, str], float]) -> tuple[bool, str, bool, str]:
    """A category's types in order, each type's narratives before its layouts, topics last."""
    (_, doc_type, shape), _ = row
    return shape == TOPIC, doc_type, shape != NARRATIVE, shape


def _count(count: float, exact: bool) -> str:
    """`12`, or `~12` for an expected count."""
    return str(round(count)) if exact else f"~{round(count)}"


def _planned_facts(item: PlanItem) -> list[str]:
    """`planned fact 1 [health]: was diagnosed with ...` (or asked of the model)."""
    return [
        f"planned fact {number} [{fact.category}"
        + (f", {fact.form}" if fact.form != "clause" else "")
        + "]: "
        + (fact.text or "written by the model in a first request")
        for number, fact in enumerate(item.disclosures, 1)
    ] + [
        f"non-disclosure {number} [{passage.category}]: {passage.text}"
        for number, passage in enumerate(item.non_disclosures, 1)
    ]


def _disclosures_line(spec: DisclosureSpec) -> str:
    facts = f"the {spec.facts}"
    if spec.facts == "mixed":
        facts = f"the model ({round(spec.share * 100)}%) and the pack"
    return (
        f"planned disclosures: facts from {facts}, {spec.style} style, 1-"
        f"{spec.per_document} of the document's own category, plus one of a second category "
        f"in {round(spec.second_share * 100)}% of documents; none for `other`"
        + (f"; 0-{spec.non_disclosures} non-disclosures each" if spec.non_disclosures else "")
    )
