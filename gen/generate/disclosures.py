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
(`placeholder`: `[[FACT_1]]`, replaced after writing; both in `gen.generate.writer_facts`);
`labeling.planned` then finds each fact in the text. docs/generation.md explains the whole.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from gen.core.composition import Half, half_of
from gen.core.errors import UsageError
from gen.core.grammar import Gender, Gendered, gendered_form
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
    #: Each item draws 0..non_disclosures passages on a sensitive topic that disclose
    #: nothing (hard negatives; 0: none).
    non_disclosures: int = 0
    #: Share of the facts the model writes (0-1, in whole percent): 0 with `pack`, 1 with
    #: `model`, chosen with `mixed` (None: MIXED_MODEL_SHARE).
    model_share: float | None = None
    #: Draw every value (facts.yaml's value lists, shapes.yaml's field values and parts)
    #: from this half of its list (`--value-half`); None: the whole lists.
    value_half: Half | None = None

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
        if self.non_disclosures and self.style == "placeholder":
            raise UsageError(
                "--non-disclosures needs --fact-style inline: the writer is given the "
                "passages word for word"
            )

    @property
    def key(self) -> str:
        """`planned-pack-inline-f2-x30` (`planned-mixed50-...` with half the facts the
        model's, `-n2` with non-disclosures, `-firsthalf` with the first half of every value
        list): what the plan's item ids carry."""
        share = round(self.second_share * 100)
        facts = f"mixed{round(self.share * 100)}" if self.facts == "mixed" else self.facts
        key = f"planned-{facts}-{self.style}-f{self.per_document}-x{share}"
        key += f"-n{self.non_disclosures}" if self.non_disclosures else ""
        return key + (f"-{self.value_half}half" if self.value_half else "")

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
    #: `clause` (the writer writes it) or `field` (a layout document's program-filled field
    #: value, `gen.generate.shapes`).
    form: str = "clause"

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
    unused: dict[str, list[int]] = {}
    disclosures = []
    for name in chosen:
        facts = pack.facts.categories[name]
        template = _draw_unused(unused, name, facts.templates, rng)
        text = fill_template(facts, template, persona.values, persona.gender, rng, spec.value_half)
        disclosures.append(Disclosure(name, text, "pack"))
    if spec.facts == "mixed":
        disclosures = [
            Disclosure(fact.category, "", "model") if rng.random() < spec.share else fact
            for fact in disclosures
        ]
    return tuple(disclosures)


def draw_non_disclosures(
    pack: LanguagePack,
    spec: DisclosureSpec,
    category: str,
    persona: Persona,
    rng: random.Random,
) -> tuple[Disclosure, ...]:
    """0..`spec.non_disclosures` passages on the topic of `category` (of any sensitive
    category for a non-sensitive one) that disclose nothing; `rng` is the item's own
    non-disclosure stream, so the facts of a plan do not change when these are added."""
    sensitive = pack.categories.sensitive
    count = rng.randint(0, spec.non_disclosures) if spec.non_disclosures else 0
    unused: dict[str, list[int]] = {}
    passages = []
    for _ in range(count):
        name = category if category in sensitive else rng.choice(sensitive)
        facts = pack.facts.categories[name]
        template = _draw_unused(unused, name, facts.non_disclosures, rng)
        text = fill_template(facts, template, persona.values, persona.gender, rng, spec.value_half)
        passages.append(Disclosure(name, text, "pack"))
    return tuple(passages)


def _draw_unused(
    unused: dict[str, list[int]],
    name: str,
    templates: tuple[Gendered, ...],
    rng: random.Random,
) -> Gendered:
    """A template of category `name` this document has not drawn yet (`unused` keeps the
    indices left per category), or any once all were drawn."""
    left = unused.setdefault(name, list(range(len(templates))))
    index = left.pop(rng.randrange(len(left))) if left else rng.randrange(len(templates))
    return templates[index]


def check_non_disclosures(pack: LanguagePack, spec: DisclosureSpec) -> None:
    """Refuse `--non-disclosures` when the pack has no passages or writer lines for them."""
    if not spec.non_disclosures:
        return
    where = pack.folder / "facts.yaml"
    if pack.facts.writer.non_disclosure_instruction is None:
        raise UsageError(
            f"--non-disclosures: {where} has no writer.non_disclosure_instruction; expected "
            "the line that asks the writer for the passages"
        )
    empty = [name for name, facts in pack.facts.categories.items() if not facts.non_disclosures]
    if empty:
        raise UsageError(
            f"--non-disclosures: {where} has no non_disclosures for the category {empty[0]!r}; "
            "expected a list of passages on its topic"
        )


def asked_of_model(disclosures: Iterable[Disclosure]) -> Counter[str]:
    """Facts per category the model is to write first (sources `model`)."""
    return Counter(fact.category for fact in disclosures if fact.source == "model")


def fill_template(
    facts: CategoryFacts,
    template: Gendered,
    persona: dict[str, str],
    gender: Gender,
    rng: random.Random,
    half: Half | None = None,
) -> str:
    """`template` in the persona's `gender`, its slots filled from the value lists of
    `facts` (from `half` of each; each in that gender), the persona's values, and {year}."""
    values = {
        slot: gendered_form(rng.choice(half_of(options, half)), gender)
        for slot, options in facts.values.items()
    }
    text = gendered_form(template, gender)
    return text.format(**persona, **values, year=str(adult_year(persona, rng)))


def adult_year(persona: dict[str, str], rng: random.Random) -> int:
    """A year after the persona turned 18 and before the reference year."""
    last = REFERENCE_DAY.year - 1
    first = min(last, REFERENCE_DAY.year - int(persona.get("age") or 18) + 18)
    return rng.randint(first, last)


def disclosure_rng(
    seed: int, plan_key: str, index: int, stream: str = "disclosures"
) -> random.Random:
    """The disclosure stream of item `index` (or its `non-disclosures` stream): apart from
    the item's own draws."""
    return random.Random(derive_seed(seed, plan_key, index, stream))
