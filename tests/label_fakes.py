"""A pretend labeling model for the labeling tests: it knows which words are sensitive.

It answers the English prompts of prompts/en/labeling.yaml rendered with the simple chat
template of `fakes.SIMPLE_CHAT_TEMPLATE`: a sentence mentioning a SENSITIVE_WORDS word is
labeled with the category, and the censor rewrite replaces such sentences by the tag.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

from fakes import ScriptedBackend

from gen.backends.base import Backend, Capabilities, GenerationRequest
from gen.core.packs import load_language_pack
from gen.core.records import Record
from gen.text.sentences import split_sentences
from labeling.options import LabelOptions
from labeling.strategies import LabelerSetup, load_labeling, strategy

SENSITIVE_WORDS = re.compile(r"\b(diabetes|insulin|asthma|convicted|theft)\b", re.IGNORECASE)
KEYWORD_LABELS = {
    "diabetes": "health",
    "insulin": "health",
    "asthma": "health",
    "convicted": "judicial",
    "theft": "judicial",
}
TAGS = {"health": "HEALTH_DATA", "judicial": "JUDICIAL_DATA"}

HEALTH_TEXT = (
    "Patient: Mario Rossi, born in Turin.\n"
    "Mario Rossi has had type 2 diabetes since 2015. He takes insulin every morning.\n"
    "He works as a librarian and likes cycling. Rossi lives in Turin."
)
JUDICIAL_TEXT = (
    "Report on Anna Verdi. Anna Verdi was convicted of theft in 2019. "
    "She now works in a bakery in Milan."
)
OTHER_TEXT = "The spring catalogue of Verdi Furniture lists twelve new chairs. Delivery is free."


def document(
    doc_id: str, text: str, category: str, persona: dict[str, str] | None = None
) -> Record:
    return Record(
        id=doc_id,
        text=text,
        category=category,
        doc_type="Medical records",
        language="en",
        source="llm",
        persona=persona,
        model="writer.gguf",
        seed=1,
        group=doc_id,
        meta={"finish_reason": "stop"},
    )


def documents() -> list[Record]:
    return [
        document(
            "d-health",
            HEALTH_TEXT,
            "health",
            {"name": "Mario Rossi", "first_name": "Mario", "last_name": "Rossi", "city": "Turin"},
        ),
        document(
            "d-judicial",
            JUDICIAL_TEXT,
            "judicial",
            {"name": "Anna Verdi", "first_name": "Anna", "last_name": "Verdi", "city": "Milan"},
        ),
        document("d-other", OTHER_TEXT, "other", {"name": "Luca Verdi", "last_name": "Verdi"}),
    ]


def user_text(prompt: str) -> str:
    return prompt.split("<user>", 1)[1].split("</user>", 1)[0]


def sentence_answer(prompt: str) -> str:
    """Labels for the numbered sentences after the examples."""
    block = user_text(prompt).rsplit("Now label these sentences:\n", 1)[1]
    positive = re.search(r"Answer (\w+) if it does", prompt).group(1)
    lines = [line.split(". ", 1)[1] for line in block.splitlines() if line.strip()]
    labels = [positive if SENSITIVE_WORDS.search(line) else f"NON_{positive}" for line in lines]
    return "".join(f"{number}: {label}\n" for number, label in enumerate(labels, 1))


def censor_answer(prompt: str) -> str:
    """The document with every sensitive sentence replaced by the tag."""
    text = user_text(prompt).rsplit("Document:\n", 1)[1]
    tag = re.search(r"with the tag \[(\w+)\]", prompt).group(1)
    pieces, cursor = [], 0
    for start, end in split_sentences(text):
        if SENSITIVE_WORDS.search(text[start:end]):
            pieces += [text[cursor:start], f"[{tag}]"]
            cursor = end
    return "Here is the document:\n" + "".join(pieces) + text[cursor:]


def unit_of(prompt: str) -> str:
    """The passage of a scored-answers prompt (the last `Passage:` line)."""
    return user_text(prompt).rsplit("Passage: ", 1)[1].strip()


class ScoringBackend(ScriptedBackend):
    """Scores labels as the keyword model would answer: a unit with a SENSITIVE_WORDS word
    gets `confidence` on the first (sensitive) label, the rest spread over the others."""

    capabilities = Capabilities(logprobs=True)

    def __init__(self, confidence: float = 0.8, **kwargs: Any) -> None:
        super().__init__(keyword_reply, **kwargs)
        self.confidence = confidence
        self.scored: list[tuple[str, list[str]]] = []

    def label_logprobs(self, prompt: str, labels: Sequence[str]) -> list[float]:
        self.scored.append((prompt, list(labels)))
        unit = unit_of(prompt)
        match = SENSITIVE_WORDS.search(unit)
        wanted = 0 if match else len(labels) - 1
        if match and len(labels) > 2:  # all categories: the keyword's own category
            wanted = next(
                i
                for i, label in enumerate(labels)
                if label.strip() == KEYWORD_LABELS[match.group(1).lower()]
            )
        rest = (1 - self.confidence) / (len(labels) - 1)
        return [math.log(self.confidence if i == wanted else rest) for i in range(len(labels))]


def keyword_reply(request: GenerationRequest) -> str:
    if request.grammar:
        return sentence_answer(request.prompt)
    return censor_answer(request.prompt)


def labeler(name: str, backend: Backend | None, language: str = "en", **options: Any) -> Any:
    """The labeler of strategy `name` for one language pack, as `gen label` builds it."""
    pack = load_language_pack(language)
    settings = LabelOptions(strategy=name, backend=backend, **options)
    setup = LabelerSetup(pack, load_labeling(pack, needed=(name,)), settings)
    return strategy(name).build(setup)
