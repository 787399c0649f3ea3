"""Planned disclosures: which sensitive facts a document discloses, decided before writing.

With `gen documents --disclosures planned`, each plan item of a sensitive category draws
one to `per_document` facts of its own category and, with `second_share`, one fact of
another sensitive category (the mixed documents of the gold set: a psychiatric report that
mentions a conviction). Like everything in the plan, the draw depends on (seed, item) only,
from a random stream of its own: the rest of the item (persona, document type, seed) is
what it would be without disclosures, and every fact source and style plans the same
categories, so their runs compare document for document. Facts come from the language
pack (`facts.yaml`: a template and its slots filled from the value lists and the persona),
from the model, asked first (`gen.generate.model_facts`; the plan then holds the
categories, the texts come later), or from both (`mixed`: each fact draws its source).

The writer is told the facts (`--fact-style inline`), or placeholders that stand for them
(`placeholder`: `[[FACT_1]]`, replaced after writing); `labeling.planned` then finds
each fact in the text. docs/generation.md explains the whole.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from gen.backends.prompting import PromptParts
from gen.core.errors import UsageError
from gen.core.grammar import Gender, gendered_form
from gen.core.pack_facts import CategoryFacts
from gen.core.packs import LanguagePack
from gen.core.seeds import derive_seed
from gen.generate.personas import REFERENCE_DAY, Persona

#: Where one fact comes from (`meta.disclosures.planned[].source`).
FactSource = Literal["pack", "model"]
#: Where a plan's facts come from: one source, or each fact drawing its own (`mixed`).
FactOrigin = Literal["pack", "model", "mixed"]
FactStyle = Literal["inline", "placeholder"]
FACT_SOURCES: tuple[FactSource, ...] = ("pack", "model")
FACT_ORIGINS: tuple[FactOrigin, ...] = ("pack", "model", "mixed")
FACT_STYLES: tuple[FactStyle, ...] = ("inline", "placeholder")
#: The most facts of its own category one document is planned to disclose.
MAX_PER_DOCUMENT = 3


@dataclass(frozen=True)
class DisclosureSpec:
    """How disclosures are planned; part of the plan's key, so runs of other settings never
    share ids."""

    facts: FactOrigin = "pack"
    style: FactStyle = "inline"
    #: Each item draws 1..per_document facts of its own category.
    per_document: int = 2
    #: Share of items that also disclose one fact of a second sensitive category (0-1,
    #: in whole percent).
    second_share: float = 0.3
    #: Share of the facts the model writes (0-1, in whole percent): 0 with `pack`, 1 with
    #: `model`, chosen with `mixed` (None: MIXED_MODEL_SHARE).
    model_share: float | None = None

    def __post_init__(self) -> None:
        """The key and the draws hold the shares in whole percent: another share is refused,
        never rounded to another plan (0.004 would silently plan none)."""
        second = whole_percent(self.second_share, "--second-category-share")
        object.__setattr__(self, "second_share", second)
        fixed = {"pack": 0.0, "model": 1.0}.get(self.facts)
        if fixed is None:
            share = MIXED_MODEL_SHARE if self.model_share is None else self.model_share
            fixed = whole_percent(share, "--model-fact-share")
        elif self.model_share not in (None, fixed):
            raise UsageError("--model-fact-share needs --facts mixed")
        object.__setattr__(self, "model_share", fixed)

    @property
    def key(self) -> str:
        """`planned-pack-inline-f2-x30` (`planned-mixed50-...` with half the facts the
        model's): what the plan's item ids carry."""
        share = round(self.second_share * 100)
        facts = f"mixed{round(self.share * 100)}" if self.facts == "mixed" else self.facts
        return f"planned-{facts}-{self.style}-f{self.per_document}-x{share}"

    @property
    def share(self) -> float:
        """The share of facts the model writes, as set by `__post_init__`."""
        assert self.model_share is not None
        return self.model_share


#: `--model-fact-share` of `--facts mixed` unless given.
MIXED_MODEL_SHARE = 0.5


def whole_percent(share: float, flag: str) -> float:
    """`share` when it is a whole percent from 0 to 1; `flag` names it in the refusal."""
    percent = share * 100
    if not 0 <= percent <= 100 or abs(percent - round(percent)) > 1e-6:
        raise UsageError(
            f"{flag} {share:g}: the plan draws in whole percent (0.00 to 1.00, e.g. 0.3); "
            f"{share:g} is none"
        )
    return round(percent) / 100


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
    non-sensitive category. `rng` is the item's own disclosure stream. With `mixed`, the
    sources are drawn after the pack's texts: a fact the pack keeps is the one `--facts
    pack` plans, and a share of 0 plans what `pack` does."""
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
    if spec.facts == "mixed":
        disclosures = [
            Disclosure(fact.category, "", "model") if rng.random() < spec.share else fact
            for fact in disclosures
        ]
    return tuple(disclosures)


def asked_of_model(disclosures: Iterable[Disclosure]) -> Counter[str]:
    """Facts per category the model is to write first (sources `model`)."""
    return Counter(fact.category for fact in disclosures if fact.source == "model")


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
