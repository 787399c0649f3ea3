"""A pretend quality model and a small run of generated documents for the `gen score` tests.

The model reads the document and the question out of the English prompts of
prompts/en/quality.yaml rendered with `fakes.SIMPLE_CHAT_TEMPLATE`, and gives a yes answer
the probability `yes(document, question)` says, split over the answer words so that the
words' probabilities add up to half of one: a score is a share of the answers, never the
raw probability.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from typing import Any

from fakes import ScriptedBackend
from label_fakes import HEALTH_TEXT, JUDICIAL_TEXT, OTHER_TEXT, document

from gen.backends.base import Capabilities, GenerationRequest
from gen.core.errors import ModelError
from gen.core.records import Record
from gen.core.runs import RunPaths
from gen.core.store import RecordTable

_PROMPT = re.compile(r'Document:\n"""\n(.*)\n"""\n\nQuestion: (.*)\nAnswer with yes or no\.', re.S)
#: The facts the health document was planned to disclose.
FACTS = ["has had type 2 diabetes since 2015", "takes insulin every morning"]


def parse(prompt: str) -> tuple[str, str]:
    """(document, question) of a quality prompt."""
    match = _PROMPT.search(prompt)
    assert match, prompt
    return match.group(1), match.group(2)


def default_yes(document: str, question: str) -> float:
    """Likely yes, unless the question names someone the document does not."""
    if question.startswith("Is ") and "the person this document is mainly about" in question:
        name = question[3:].split(" the person")[0]
        return 0.9 if name in document else 0.1
    return 0.8


class QualityBackend(ScriptedBackend):
    """Scores the yes and no words of quality prompts; fails a question whose document holds
    `broken` (when given) with a ModelError, and raises KeyboardInterrupt on call number
    `interrupt_at` (1-based), as Ctrl-C would."""

    capabilities = Capabilities(logprobs=True)

    def __init__(
        self,
        yes: Callable[[str, str], float] = default_yes,
        *,
        broken: str | None = None,
        interrupt_at: int | None = None,
        model_id: str = "judge.gguf",
        **kwargs: Any,
    ) -> None:
        super().__init__(unused, **kwargs)
        self.yes = yes
        self.broken = broken
        self.interrupt_at = interrupt_at
        self.model_id = model_id
        self.scored: list[tuple[str, list[str]]] = []

    def label_logprobs(self, prompt: str, labels: Sequence[str]) -> list[float]:
        self.scored.append((prompt, list(labels)))
        if self.interrupt_at is not None and len(self.scored) == self.interrupt_at:
            raise KeyboardInterrupt
        text, question = parse(prompt)
        if self.broken is not None and self.broken in text:
            raise ModelError("the server went away")
        probability = self.yes(text, question)
        return [
            math.log(max(1e-12, (probability if is_yes(label) else 1 - probability) / 4))
            for label in labels
        ]

    def documents_asked(self) -> list[str]:
        """The documents of the prompts scored so far, once each, in order."""
        return list(dict.fromkeys(parse(prompt)[0] for prompt, _ in self.scored))


def is_yes(label: str) -> bool:
    return label.strip().lower() == "yes"


def unused(request: GenerationRequest) -> str:
    raise AssertionError("gen score generates nothing")


def generated_documents() -> list[Record]:
    """A planned health document, a free judicial one, an `other` one and an imported text."""
    health = document(
        "d-health",
        HEALTH_TEXT,
        "health",
        {"name": "Mario Rossi", "first_name": "Mario", "last_name": "Rossi", "city": "Turin"},
    )
    health.meta["disclosures"] = {
        "planned": [{"category": "health", "text": fact, "found": "exact"} for fact in FACTS]
    }
    judicial = document(
        "d-judicial",
        JUDICIAL_TEXT,
        "judicial",
        {"name": "Anna Verdi", "first_name": "Anna", "last_name": "Verdi", "city": "Milan"},
    )
    other = document("d-other", OTHER_TEXT, "other", {"name": "Luca Verdi"})
    imported = document("d-imported", "A letter written by hand, typed in later.", "other")
    imported.source = "import"
    return [health, judicial, other, imported]


def documents_run(root: Any, records: list[Record] | None = None) -> RunPaths:
    paths = RunPaths(root)
    with RecordTable(paths.documents) as table:
        table.extend(records if records is not None else generated_documents())
    return paths
