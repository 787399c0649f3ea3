"""What runs on a worker thread of a `gen documents` call: one plan item's requests (its
facts first when the model writes some, then the document), and what the backend wrote.

Apart from `gen.generate.call` because the worker only asks: judging, storing and counting
the answers stay with the call, on its own thread.
"""

from __future__ import annotations

import dataclasses
import threading
from dataclasses import dataclass

from gen.backends.base import Backend, Completion, check_abandoned
from gen.backends.prompting import RenderedPrompt
from gen.core.packs import LanguagePack
from gen.generate.disclosures import asked_of_model
from gen.generate.model_facts import WrittenFacts, ask_facts
from gen.generate.plan import PlanItem, with_written_facts
from gen.generate.plan_spec import PlanSpec
from gen.generate.requests import Prompter


@dataclass(frozen=True)
class Written:
    """What the backend wrote for one item: the document (None when its facts request
    gave no fact), and the facts the model wrote first, if it did."""

    item: PlanItem
    rendered: RenderedPrompt | None
    completion: Completion | None
    facts: WrittenFacts | None = None


@dataclass(frozen=True)
class ItemWriter:
    """Sends the requests of the call's items; `stopping` set abandons them."""

    pack: LanguagePack
    spec: PlanSpec
    backend: Backend
    prompter: Prompter
    stopping: threading.Event

    def write(self, item: PlanItem, facts: WrittenFacts | None = None) -> Written:
        """One item's requests: its facts first when the model writes some (unless it wrote
        them already: `facts`, for a document written again), then the document (a failed
        request raises GenError; one of a stopping call, RequestAbandoned)."""
        if facts is None and asked_of_model(item.disclosures):
            facts = ask_facts(self.backend, self.prompter, self.pack, item, self.stopping)
            if facts.failed:
                return Written(item, None, None, facts)
            item = with_written_facts(self.pack, self.spec, item, facts.texts)
        rendered, request = self.prompter.request(item)
        request = dataclasses.replace(request, abandon=self.stopping)
        check_abandoned(request)
        return Written(item, rendered, self.backend.generate(request), facts)
