"""Pretend writers for planned disclosures: they read the facts (or placeholders) the English
writer prompt asks for, and write a document that includes, rephrases or leaves them out."""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from fakes import WORDS

from gen.backends.base import GenerationRequest

_NAME = re.compile(r"these facts about (.+?), with the words")
_PLACEHOLDER_NAME = re.compile(r"some facts about (.+?)\. Do not write")
_PLACEHOLDER = re.compile(r"^- (\[\[FACT_\d+\]\]) stands for:", re.MULTILINE)
#: First-person forms of the verbs the English facts start with.
_FIRST_PERSON = {"has": "have", "is": "am", "was": "was", "does": "do"}


def planned_facts(prompt: str) -> list[str]:
    """The facts the writer prompt lists, without the persona's name."""
    name = _NAME.search(prompt)
    if not name:
        return []
    lead = f"- {name.group(1)} "
    lines = prompt.split("</user>")[0].splitlines()  # the chat template closes the turn
    return [line[len(lead) :] for line in lines if line.startswith(lead)]


def placeholders(prompt: str) -> list[str]:
    return _PLACEHOLDER.findall(prompt)


def _document(seed: int | None, sentences: list[str]) -> str:
    """A plausible document around `sentences`, different for every seed."""
    rng = random.Random(seed)
    filler = " ".join(rng.choice(WORDS) for _ in range(40))
    body = "\n".join(sentences)
    return (
        "Sure! Here's the generated document:\nReport of the visit.\n"
        f"{body}\nNotes: {filler}.\nThe office will write again after the next appointment."
    )


def first_person(fact: str) -> str:
    verb, _, rest = fact.partition(" ")
    return f"{_FIRST_PERSON.get(verb, verb)} {rest}"


def writer(change: Callable[[int, str], str | None]) -> Callable[[GenerationRequest], str]:
    """A writer that puts `change(number, fact)` in a sentence of its own for every planned
    fact (None leaves the fact out)."""

    def reply(request: GenerationRequest) -> str:
        sentences = []
        for number, fact in enumerate(planned_facts(request.prompt), 1):
            written = change(number, fact)
            if written is not None:
                sentences.append(f"The person {written}.")
        return _document(request.seed, sentences)

    return reply


def placeholder_writer(leave_out: int | None = None) -> Callable[[GenerationRequest], str]:
    """A writer of placeholder style: every placeholder once, but number `leave_out`, and
    one placeholder of no fact."""

    def reply(request: GenerationRequest) -> str:
        name = _PLACEHOLDER_NAME.search(request.prompt)
        person = name.group(1) if name else "The person"
        sentences = [
            f"{person} {held}."
            for number, held in enumerate(placeholders(request.prompt), 1)
            if number != leave_out
        ]
        return _document(request.seed, [*sentences, "See also [[FACT_9]]."])

    return reply
