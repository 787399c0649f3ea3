"""The deterministic plan of a `gen documents` run.

Item *i* gets its category, document type, persona, prompt and sampling seed
from (global seed, i) alone, so the same command always asks for the same
documents, a resumed run asks for exactly the missing ones, and `gen plan`
shows what `gen documents` will do without loading a model. With planned disclosures
(`gen.generate.disclosures`) an item also carries the sensitive facts its document must
disclose, and the writer's prompt asks for them. What a plan asks for, and the categories
and document types it draws from, are in `gen.generate.plan_spec`.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from dataclasses import dataclass

from gen.backends.prompting import PromptParts
from gen.core.pack_taxonomy import DocType
from gen.core.packs import LanguagePack
from gen.core.seeds import derive_seed
from gen.generate.disclosures import (
    Disclosure,
    asked_of_model,
    disclosure_rng,
    draw_disclosures,
    draw_non_disclosures,
)
from gen.generate.personas import Persona, draw_persona
from gen.generate.plan_spec import PlanSpec, category_doc_types, plan_categories, validate_spec
from gen.generate.shapes import (
    LAYOUT,
    NARRATIVE,
    TOPIC,
    Frame,
    draw_shape,
    layout_item,
    shape_rng,
    topic_item_parts,
)
from gen.generate.writer_facts import writer_parts


@dataclass(frozen=True)
class PlanItem:
    index: int
    id: str
    category: str
    doc_type: str
    doc_kind: str
    #: The document type's usual length in words, asked of the writer.
    words: int
    sensitive_info: str
    persona: dict[str, str]
    seed: int
    parts: PromptParts
    #: The facts the document must disclose; texts of source `model` are "" until the
    #: model wrote them (`--facts model|mixed`, see `with_written_facts`).
    disclosures: tuple[Disclosure, ...] = ()
    #: Passages on a sensitive topic that disclose nothing (`--non-disclosures`).
    non_disclosures: tuple[Disclosure, ...] = ()
    #: `narrative`, `layout` or `topic` (`gen.generate.shapes`).
    shape: str = NARRATIVE
    #: A layout document's filled skeleton; the model writes its notes.
    frame: Frame | None = None


def prompt_parts(
    pack: LanguagePack, persona: Persona, category: str, doc_type: DocType, sensitive_info: str
) -> PromptParts:
    """The prompt asking for a document of `doc_type` about `persona`, in the pack's words,
    at the type's usual length and in its layout."""
    generation = pack.generation
    sensitive = pack.categories.categories[category].sensitive
    template = generation.instruction if sensitive else generation.other_instruction
    values = {
        **persona.placeholders(pack.language.gendered),
        "doc_type": doc_type.name,
        "sensitive_info": sensitive_info,
        "category": category,
        "length": str(doc_type.words),
        "layout": doc_type.layout,
    }
    return PromptParts(
        system=generation.system.format(**values),
        instruction=template.format(**values),
        response_prefix=generation.response_prefix,
    )


def draw_doc_type(
    pack: LanguagePack, spec: PlanSpec, index: int
) -> tuple[str, DocType, random.Random]:
    """Category, document type and the rest of the random draws of item `index`."""
    categories = plan_categories(pack, spec)
    category = categories[index % len(categories)]
    rng = random.Random(derive_seed(spec.seed, spec.draw_key, index))
    return category, rng.choice(category_doc_types(pack, category, spec.doc_type)), rng


def plan_item(pack: LanguagePack, spec: PlanSpec, index: int) -> PlanItem:
    """Item `index` of the plan; categories take turns so any prefix of the plan is balanced."""
    category, doc_type, rng = draw_doc_type(pack, spec, index)
    prompts = pack.taxonomy[category]
    sensitive_info = rng.choice(prompts.sensitive_info) if prompts.sensitive_info else ""
    persona = draw_persona(pack.language.faker_locale, pack.persona, rng.getrandbits(31))
    parts = prompt_parts(pack, persona, category, doc_type, sensitive_info)
    disclosures: tuple[Disclosure, ...] = ()
    non_disclosures: tuple[Disclosure, ...] = ()
    if spec.disclosures is not None:
        draws = disclosure_rng(spec.seed, spec.draw_key, index)
        disclosures = draw_disclosures(pack, spec.disclosures, category, persona, draws)
        draws = disclosure_rng(spec.seed, spec.draw_key, index, "non-disclosures")
        non_disclosures = draw_non_disclosures(pack, spec.disclosures, category, persona, draws)
    item = PlanItem(
        index=index,
        id=f"{spec.key}-{index:06d}",
        category=category,
        doc_type=doc_type.name,
        doc_kind=doc_type.kind,
        words=doc_type.words,
        sensitive_info=sensitive_info,
        persona=persona.values,
        seed=rng.getrandbits(31),
        parts=parts,
        disclosures=disclosures,
        non_disclosures=non_disclosures,
    )
    item = shaped(pack, spec, item, persona)
    if spec.disclosures is not None and not asked_of_model(item.disclosures):
        parts = writer_parts(
            pack,
            spec.disclosures.style,
            item.parts,
            persona.values,
            item.disclosures,
            item.non_disclosures,
        )
        item = dataclasses.replace(item, parts=parts)
    return item


def shaped(pack: LanguagePack, spec: PlanSpec, item: PlanItem, persona: Persona) -> PlanItem:
    """The item in its shape (`gen.generate.shapes`): a narrative as it is, a topic-only
    document with its own type and prompt and no persona nor facts, a layout document with its
    skeleton filled, its field facts, and a prompt for the notes alone."""
    rng = shape_rng(spec.seed, spec.draw_key, item.index)
    shape = draw_shape(
        spec.shapes, pack, item.category, item.doc_type, rng, spec.disclosures is not None
    )
    if shape == TOPIC:
        doc_type, words, parts = topic_item_parts(pack, item.category, rng)
        return dataclasses.replace(
            item,
            persona={},
            shape=shape,
            doc_type=doc_type,
            doc_kind=TOPIC,
            words=words,
            parts=parts,
            disclosures=(),
            non_disclosures=(),
        )
    if shape != LAYOUT:
        return item
    half = spec.disclosures.value_half if spec.disclosures else None
    frame, layout, disclosures = layout_item(
        pack, persona, item.doc_type, item.disclosures, rng, half
    )
    values = {
        **persona.placeholders(pack.language.gendered),
        "notes": layout.notes,
        "doc_type": item.doc_type,
        "words": layout.words,
    }
    parts = dataclasses.replace(
        item.parts,
        system=pack.shapes.system,
        instruction=pack.shapes.notes_instruction.format(**values),
    )
    return dataclasses.replace(
        item, shape=shape, frame=frame, words=layout.words, parts=parts, disclosures=disclosures
    )


def with_written_facts(
    pack: LanguagePack, spec: PlanSpec, item: PlanItem, texts: dict[str, list[str]]
) -> PlanItem:
    """The item once the model wrote its facts (`--facts model|mixed`): the model's planned
    facts of each category take that category's texts in order (a fact the model did not
    write leaves the plan), the pack's stay, and the writer's prompt carries them all."""
    assert spec.disclosures is not None
    left = {category: list(written) for category, written in texts.items()}
    disclosures = []
    for disclosure in item.disclosures:
        if disclosure.source != "model":
            disclosures.append(disclosure)
        elif left.get(disclosure.category):
            disclosures.append(disclosure.with_text(left[disclosure.category].pop(0)))
    parts = writer_parts(
        pack,
        spec.disclosures.style,
        item.parts,
        item.persona,
        tuple(disclosures),
        item.non_disclosures,
    )
    return dataclasses.replace(item, parts=parts, disclosures=tuple(disclosures))


def iter_plan(pack: LanguagePack, spec: PlanSpec, start: int = 0) -> Iterator[PlanItem]:
    validate_spec(pack, spec)
    index = start
    while True:
        yield plan_item(pack, spec, index)
        index += 1
