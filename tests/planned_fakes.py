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
#: The English request for the model's facts (`model.request` of facts.yaml).
FACT_REQUEST = re.compile(r"Write (\d+) short facts about (.+?) that disclose")


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


_PASSAGES = re.compile(r"say nothing about .+?:\n((?:- .+\n?)+)")


def non_disclosures(prompt: str) -> list[str]:
    """The passages on a sensitive topic the writer prompt asks for (`--non-disclosures`)."""
    found = _PASSAGES.search(prompt.split("</user>")[0])
    return [line[2:] for line in found.group(1).splitlines()] if found else []


def passage_writer(leave_out: int | None = None) -> Callable[[GenerationRequest], str]:
    """A writer that copies every planned fact and every non-disclosure but number
    `leave_out`."""

    def reply(request: GenerationRequest) -> str:
        facts = [f"The person {fact}." for fact in planned_facts(request.prompt)]
        passages = [
            passage
            for number, passage in enumerate(non_disclosures(request.prompt), 1)
            if number != leave_out
        ]
        return _document(request.seed, [*passages, *facts])

    return reply


def fact_writer(good: bool) -> Callable[[GenerationRequest], str]:
    """Answers the facts request with numbered facts (or chatter only) and writes the
    document with the facts it is given."""
    document = writer(lambda number, fact: fact)

    def reply(request: GenerationRequest) -> str:
        asked = FACT_REQUEST.search(request.prompt)
        if asked is None:
            return document(request)
        if not good:
            return "Sorry, no.\nOk."
        return "\n".join(
            f"{n}. {asked.group(2)} keeps fact number {n} of seed {request.seed} in a diary."
            for n in range(1, int(asked.group(1)) + 1)
        )

    return reply
