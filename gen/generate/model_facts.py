"""`--facts model|mixed`: the model writes planned facts itself, in a short first request.

For each category a plan item asks of the model (the facts of source `model`; with
`mixed`, the pack writes the others), the model is asked for that many facts
about the persona, one per line (`model.request` in the pack's facts.yaml), so their
wording is the model's own and unlimited in variety. The answer is read line by line:
numbering, bullets, quotes, emphasis and closing punctuation are stripped, and so is a
subject that opens the line (the persona's full name or one of its names, the pack's
`subjects`: "She"; with an aside after a comma: "Andre Russell, a dentist, takes..."), so
that a fact starts at its verb like the pack's own. Lines too short or too long, headings
("Here are two facts:"), lines without a letter, echoes of the request (every word of the
line is in it: "A party, a union, a role") and repeats are dropped, each with its
reason. Every answer is kept with the document (`meta.disclosures.model`); an item whose
answers hold no fact at all is rejected as `facts_failed`, with the answers.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from gen.backends.base import Backend, GenerationRequest, check_abandoned
from gen.backends.prompting import PromptParts
from gen.core.pack_facts import ModelFacts
from gen.core.packs import LanguagePack
from gen.core.seeds import derive_seed
from gen.generate.disclosures import asked_of_model
from gen.generate.plan import PlanItem
from gen.generate.requests import Prompter, sampling_for
from gen.text.words import alphanumeric_words

#: The reason of an item whose facts request gave no usable fact.
FACTS_FAILED = "facts_failed"

_BULLET = re.compile(r"^(?:[-*•·–—>#]+|\(?\d{1,2}\s*[.):\]]|[a-z]\))\s*", re.IGNORECASE)
_QUOTES = "\"'“”‘’«»`*_"
_CLOSING = ".;,!"


@dataclass
class FactsAnswer:
    """The model's answer for the facts of one category."""

    category: str
    wanted: int
    prompt: str
    answer: str
    facts: list[str] = field(default_factory=list)
    #: Lines that were no fact: {"line": ..., "why": too_short|too_long|heading|...}.
    dropped: list[dict[str, str]] = field(default_factory=list)

    def meta(self) -> dict[str, Any]:
        return {
            "category": self.category,
            "wanted": self.wanted,
            "prompt": self.prompt,
            "answer": self.answer,
            "facts": self.facts,
            "dropped": self.dropped,
        }


@dataclass
class WrittenFacts:
    """The answers of one item's facts requests."""

    answers: list[FactsAnswer] = field(default_factory=list)
    completion_tokens: int = 0
    seconds: float = 0.0

    @property
    def texts(self) -> dict[str, list[str]]:
        return {answer.category: answer.facts for answer in self.answers}

    @property
    def failed(self) -> bool:
        """No answer held a fact: the item cannot be written as planned."""
        return not any(answer.facts for answer in self.answers)

    @property
    def why(self) -> str:
        """`no usable fact in 4 lines (too_short 3, heading 1)`."""
        lines = sum(len(answer.dropped) for answer in self.answers)
        reasons = Counter(drop["why"] for answer in self.answers for drop in answer.dropped)
        listed = ", ".join(f"{why} {count}" for why, count in reasons.most_common())
        return f"no usable fact in {lines} lines" + (f" ({listed})" if listed else "")

    def meta(self) -> list[dict[str, Any]]:
        return [answer.meta() for answer in self.answers]


def facts_parts(pack: LanguagePack, item: PlanItem, category: str, wanted: int) -> PromptParts:
    """The prompt that asks for `wanted` facts of `category` about the item's persona."""
    model = pack.facts.model
    topic = pack.facts.categories[category].topic
    return PromptParts(
        system=model.system.format(**item.persona),
        instruction=model.request.format(**item.persona, n=wanted, topic=topic),
    )


def ask_facts(
    backend: Backend,
    prompter: Prompter,
    pack: LanguagePack,
    item: PlanItem,
    abandon: threading.Event | None = None,
) -> WrittenFacts:
    """One request per category the item asks of the model; a failed request raises (the
    caller stores the item as a model error), and so does one sent or running once
    `abandon` is set (`RequestAbandoned`)."""
    written = WrittenFacts()
    settings = pack.facts.model
    for category, wanted in asked_of_model(item.disclosures).items():
        rendered = prompter.render_parts(facts_parts(pack, item, category, wanted))
        request = GenerationRequest(
            prompt=rendered.text,
            sampling=sampling_for(pack, rendered, settings.max_tokens),
            seed=derive_seed(item.seed, "facts", category),
            abandon=abandon,
        )
        check_abandoned(request)
        completion = backend.generate(request)
        written.completion_tokens += completion.completion_tokens
        written.seconds += completion.seconds
        facts, dropped = parse_facts(
            completion.text, item.persona, settings, wanted, request=rendered.text
        )
        written.answers.append(
            FactsAnswer(category, wanted, rendered.text, completion.text, facts, dropped)
        )
    return written


def parse_facts(
    answer: str,
    persona: dict[str, str],
    settings: ModelFacts,
    wanted: int,
    *,
    request: str = "",
) -> tuple[list[str], list[dict[str, str]]]:
    """The first `wanted` fact lines of `answer`, and every other line with why it was
    dropped; `request` is the prompt that asked for them (a line made of its words only
    echoes it)."""
    subjects = _subjects(persona, settings)
    asked = _folded_words(request)
    facts: list[str] = []
    dropped: list[dict[str, str]] = []
    for line in answer.splitlines():
        if not line.strip():
            continue
        fact = _strip_subject(_strip_marks(line), subjects)
        why = _not_a_fact(line, fact, settings, facts, wanted, asked)
        if why:
            dropped.append({"line": line.strip(), "why": why})
        else:
            facts.append(fact)
    return facts, dropped


def _strip_marks(line: str) -> str:
    """The line without numbering, bullets, quotes, emphasis and closing punctuation."""
    text = line.strip()
    while (stripped := _BULLET.sub("", text, count=1)) != text:
        text = stripped
    text = text.strip().strip(_QUOTES).strip()
    return text.rstrip(_CLOSING).strip().strip(_QUOTES).strip()


def _subjects(persona: dict[str, str], settings: ModelFacts) -> list[str]:
    """What may open a line as its subject, longest first."""
    names = [persona.get(key, "") for key in ("name", "first_name", "last_name")]
    found = {subject.casefold() for subject in [*names, *settings.subjects] if subject}
    return sorted(found, key=len, reverse=True)


def _strip_subject(fact: str, subjects: list[str]) -> str:
    """`fact` without the subject that opens it: the longest that ends at a space, a colon
    or a comma; after a comma, an aside up to the next one goes too ("Andre Russell, a
    dentist, takes..." -> "takes...")."""
    folded = fact.casefold()
    for subject in subjects:
        if not folded.startswith(subject):
            continue
        rest = fact[len(subject) :]
        if rest[:1] == ",":
            _, comma, after = rest[1:].partition(",")
            return (after if comma and after.strip() else rest[1:]).strip()
        if rest[:1] == ":" or rest[:1].isspace():
            return rest.removeprefix(":").strip()
    return fact


def _folded_words(text: str) -> set[str]:
    return {text[start:end].casefold() for start, end in alphanumeric_words(text)}


def _not_a_fact(
    line: str, fact: str, settings: ModelFacts, kept: list[str], wanted: int, asked: set[str]
) -> str | None:
    """Why a line is no fact, or None."""
    if line.rstrip().endswith(":"):
        return "heading"
    words = len(alphanumeric_words(fact))
    if not words:
        return "no_letters"
    if words < settings.min_words:
        return "too_short"
    if words > settings.max_words:
        return "too_long"
    if asked and _folded_words(fact) <= asked:
        return "echo"
    if fact.casefold() in {other.casefold() for other in kept}:
        return "repeated"
    if len(kept) >= wanted:
        return "beyond_n"
    return None
