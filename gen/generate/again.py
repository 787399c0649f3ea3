"""Documents a call writes once more: their first answer held an echo of the prompt.

The answer is not stored (nor counted as a near-duplicate to avoid): the item is asked
again with another seed, since the same seed writes the same answer, and with the facts
the model already wrote for it, before any new item of the plan. Whatever the second
answer is, it is judged and stored like any other, flagged `prompt_echo` when it holds an
echo too, and carries what the first answer was in `meta.first_answer`, so nothing is lost.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from gen.core.records import Record
from gen.core.seeds import derive_seed
from gen.generate.echo import ECHO_KEY
from gen.generate.model_facts import WrittenFacts
from gen.generate.plan import PlanItem
from gen.generate.writing import Written

#: `meta` key of a document written again: the seed, echoes and text of its first answer.
FIRST_ANSWER_KEY = "first_answer"


class WriteAgain:
    """The items of a call to write again, and what their first answers were."""

    def __init__(self) -> None:
        self._queue: list[tuple[PlanItem, WrittenFacts | None]] = []
        self._first: dict[str, dict[str, Any]] = {}

    def __len__(self) -> int:
        """Items waiting to be sent."""
        return len(self._queue)

    def allowed(self, item: PlanItem) -> bool:
        """An item is written again once."""
        return item.id not in self._first

    def ask(self, written: Written, flagged: Record) -> None:
        """Queue `written.item` again; `flagged` is its first answer, judged."""
        item = written.item
        self._first[item.id] = {
            "seed": item.seed,
            ECHO_KEY: flagged.meta[ECHO_KEY],
            "text": written.completion.text if written.completion else "",
        }
        again = dataclasses.replace(item, seed=derive_seed(item.seed, "again"))
        self._queue.append((again, written.facts))

    def next(self) -> tuple[PlanItem, WrittenFacts | None]:
        return self._queue.pop(0)

    def noted(self, item: PlanItem, record: Record) -> Record:
        """`record` (the item's answer, or the reject of its request) with its first
        answer in `meta.first_answer`, when the item was written again."""
        first = self._first.pop(item.id, None)
        if first is not None:
            record.meta[FIRST_ANSWER_KEY] = first
        return record
