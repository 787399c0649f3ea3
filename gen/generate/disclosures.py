"""Planned disclosures: which sensitive facts a document discloses, decided before writing.

With `gen documents --disclosures planned`, each plan item of a sensitive category draws
one to `per_document` facts of its own category and, with `second_share`, one fact of
another sensitive category (the mixed documents of the gold set: a psychiatric report that
mentions a conviction). Like everything in the plan, the draw depends on (seed, item) only,
from a random stream of its own: the rest of the item (persona, document type, seed) is
what it would be without disclosures, and every fact source and style plans the same
categories, so their runs compare document for document. Facts come from the language
pack (`facts.yaml`: a template and its slots filled from the value lists and the persona)
or from the model, asked first (`gen.generate.model_facts`; the plan then holds the
categories, the texts come later).

The writer is told the facts (`--fact-style inline`), or placeholders that stand for them
(`placeholder`: `[[FACT_1]]`, replaced after writing); `labeling.planned` then finds
each fact in the text. docs/generation.md explains the whole.
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass
from typing import Literal

from gen.backends.prompting import PromptParts
from gen.core.errors import UsageError
from gen.core.grammar import Gender, gendered_form
from gen.core.pack_facts import CategoryFacts
from gen.core.packs import LanguagePack
from gen.core.seeds import derive_seed
from gen.generate.personas import REFERENCE_DAY, Persona

FactSource = Literal["pack", "model"]
FactStyle = Literal["inline", "placeholder"]
FACT_SOURCES: tuple[FactSource, ...] = ("pack", "model")
FACT_STYLES: tuple[FactStyle, ...] = ("inline", "placeholder")
#: The most facts of its own category one document is planned to disclose.
MAX_PER_DOCUMENT = 3


@dataclass(frozen=True)
class DisclosureSpec:
    """How disclosures are planned; part of the plan's key, so runs of other settings never
    share ids."""

    facts: FactSource = "pack"
    style: FactStyle = "inline"
    #: Each item draws 1..per_document facts of its own category.
    per_document: int = 2
    #: Share of items that also disclose one fact of a second sensitive category (0-1,
    #: in whole percent).
    second_share: float = 0.3

    def __post_init__(self) -> None:
        """The key and the draws hold the share in whole percent: another share is refused,
        never rounded to another plan (0.004 would silently plan none)."""
        percent = self.second_share * 100
        if not 0 <= percent <= 100 or abs(percent - round(percent)) > 1e-6:
            raise UsageError(
                f"--second-category-share {self.second_share:g}: the plan draws in whole "
                f"percent (0.00 to 1.00, e.g. 0.3); {self.second_share:g} is none"
            )
        object.__setattr__(self, "second_share", round(percent) / 100)

    @property
    def key(self) -> str:
        """`planned-pack-inline-f2-x30`: what the plan's item ids carry."""
        share = round(self.second_share * 100)
        return f"planned-{self.facts}-{self.style}-f{self.per_document}-x{share}"


@dataclass(frozen=True)
class Disclosure:
    """One planned fact: its category and text ("" until the model wrote it)."""

    category: str
    text: str
    source: FactSource

    def with_text(self, text: str) -> Disclosure:
        return dataclasses.replace(self, text=text)


def draw_disclosures(
    pack: LanguagePack,
    spec: DisclosureSpec,
    category: str,
    persona: Persona,
    rng: random.Random,
) -> tuple[Disclosure, ...]:
    """The facts item `category` of `persona` is planned to disclose; none for a
    non-sensitive category. `rng` is the item's own disclosure stream."""
    sensitive = pack.categories.sensitive
    if category not in sensitive:
        return ()
    chosen = [category] * rng.randint(1, spec.per_document)
    others = [name for name in sensitive if name != category]
    if others and rng.random() < spec.second_share:
        chosen.append(rng.choice(others))
    if spec.facts == "model":
        return tuple(Disclosure(name, "", "model") for name in chosen)
    unused: dict[str, list[int]] = {}  # per category, the templates not drawn yet
    disclosures = []
    for name in chosen:
        facts = pack.facts.categories[name]
        left = unused.setdefault(name, list(range(len(facts.templates))))
        index = left.pop(rng.randrange(len(left))) if left else rng.randrange(len(facts.templates))
        text = fill_template(facts, index, persona.values, persona.gender, rng)
        disclosures.append(Disclosure(name, text, "pack"))
    return tuple(disclosures)


def fill_template(
    facts: CategoryFacts,
    index: int,
    persona: dict[str, str],
    gender: Gender,
    rng: random.Random,
) -> str:
    """Template `index` in the persona's `gender`, its slots filled from the value lists
    (each in that gender), the persona's values, and {year}."""
    values = {
        slot: gendered_form(rng.choice(options), gender) for slot, options in facts.values.items()
    }
    template = gendered_form(facts.templates[index], gender)
    return template.format(**persona, **values, year=str(adult_year(persona, rng)))


def adult_year(persona: dict[str, str], rng: random.Random) -> int:
    """A year after the persona turned 18 and before the reference year."""
    last = REFERENCE_DAY.year - 1
    first = min(last, REFERENCE_DAY.year - int(persona.get("age") or 18) + 18)
    return rng.randint(first, last)


def disclosure_rng(seed: int, plan_key: str, index: int) -> random.Random:
    """The disclosure stream of item `index`: apart from the item's own draws."""
    return random.Random(derive_seed(seed, plan_key, index, "disclosures"))


def placeholder(number: int) -> str:
    """What the writer writes in place of fact `number` (1-based) in placeholder style."""
    return f"[[FACT_{number}]]"


def writer_parts(
    pack: LanguagePack,
    style: FactStyle,
    parts: PromptParts,
    persona: dict[str, str],
    disclosures: tuple[Disclosure, ...],
) -> PromptParts:
    """The writer's prompt with the facts (or their placeholders) added to the instruction."""
    if not disclosures:
        return parts
    writer = pack.facts.writer
    lines = []
    for number, disclosure in enumerate(disclosures, 1):
        fields = {**persona, "fact": disclosure.text, "number": number}
        if style == "placeholder":
            lines.append(writer.placeholder_line.format(**fields, placeholder=placeholder(number)))
        else:
            lines.append(writer.fact_line.format(**fields))
    template = writer.placeholder_instruction if style == "placeholder" else writer.instruction
    block = template.format(**persona, facts="\n".join(lines))
    return dataclasses.replace(parts, instruction=f"{parts.instruction}\n\n{block}")
