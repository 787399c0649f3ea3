"""The planned facts and non-disclosures in the writer's prompt: the facts themselves
(`--fact-style inline`) or the placeholders that stand for them (`placeholder`), each on a
line of the pack's `facts.yaml` writer block, added to the instruction."""

from __future__ import annotations

import dataclasses

from gen.backends.prompting import PromptParts
from gen.core.packs import LanguagePack
from gen.generate.disclosures import Disclosure, FactStyle


def placeholder(number: int) -> str:
    """What the writer writes in place of fact `number` (1-based) in placeholder style."""
    return f"[[FACT_{number}]]"


def writer_parts(
    pack: LanguagePack,
    style: FactStyle,
    parts: PromptParts,
    persona: dict[str, str],
    disclosures: tuple[Disclosure, ...],
    non_disclosures: tuple[Disclosure, ...] = (),
) -> PromptParts:
    """The writer's prompt with the facts (or their placeholders) and the non-disclosures
    added to the instruction."""
    writer = pack.facts.writer
    blocks = [parts.instruction]
    if any(disclosure.form == "clause" for disclosure in disclosures):
        blocks.append(_facts_block(pack, style, persona, disclosures))
    if non_disclosures:
        lines = [
            writer.non_disclosure_line.format(**persona, passage=passage.text, number=number)
            for number, passage in enumerate(non_disclosures, 1)
        ]
        template = writer.non_disclosure_instruction or ""
        blocks.append(template.format(**persona, passages="\n".join(lines)))
    return dataclasses.replace(parts, instruction="\n\n".join(blocks))


def _facts_block(
    pack: LanguagePack,
    style: FactStyle,
    persona: dict[str, str],
    disclosures: tuple[Disclosure, ...],
) -> str:
    writer = pack.facts.writer
    lines = []
    clauses = [disclosure for disclosure in disclosures if disclosure.form == "clause"]
    for number, disclosure in enumerate(clauses, 1):
        fields = {**persona, "fact": disclosure.text, "number": number}
        if style == "placeholder":
            lines.append(writer.placeholder_line.format(**fields, placeholder=placeholder(number)))
        else:
            lines.append(writer.fact_line.format(**fields))
    template = writer.placeholder_instruction if style == "placeholder" else writer.instruction
    return template.format(**persona, facts="\n".join(lines))
