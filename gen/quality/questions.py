"""Which questions of the pack's quality.yaml a generated document is asked, and their prompts.

Every generated document is asked `real` and `language`. `persona` only where the writer
was asked for a document about the persona (a sensitive category; `other` documents only
borrow the persona's name where they need a person), and `facts` only where facts were
planned (`gen documents --disclosures planned`). A question a document is not asked gives
it no score, and `gen build --min-quality` does not hold that against it.
"""

from __future__ import annotations

from typing import Any

from gen.backends.prompting import PromptParts
from gen.core.pack_quality import QUESTIONS
from gen.core.packs import LanguagePack
from gen.core.records import PERSONA_FIELDS, Record
from labeling.planned import META_KEY as PLAN_KEY

__all__ = ["QUESTIONS", "asked", "planned_facts", "question_parts"]


def planned_facts(record: Record) -> list[str]:
    """The facts `record` was planned to disclose (found in the text or not), in plan order."""
    disclosures = record.meta.get(PLAN_KEY)
    if not isinstance(disclosures, dict):
        return []
    return [str(fact["text"]) for fact in disclosures.get("planned") or [] if fact.get("text")]


def asked(record: Record, pack: LanguagePack) -> tuple[str, ...]:
    """The questions `record` is asked, in `QUESTIONS` order."""
    info = pack.categories.categories.get(record.category)
    about_persona = bool(record.persona and record.persona.get("name") and info and info.sensitive)
    applies = {
        "real": True,
        "language": True,
        "persona": about_persona,
        "facts": bool(planned_facts(record)),
    }
    return tuple(name for name in QUESTIONS if applies[name])


def question_parts(pack: LanguagePack, record: Record, name: str) -> PromptParts:
    """The prompt that asks question `name` about `record`: its whole text, then the question."""
    prompts = pack.quality
    fields: dict[str, Any] = {field: "" for field in PERSONA_FIELDS}
    fields.update(record.persona or {})
    fields["doc_type"] = record.doc_type
    lines = [
        prompts.fact_line.format(**fields, fact=fact, number=number)
        for number, fact in enumerate(planned_facts(record), 1)
    ]
    question = getattr(prompts.questions, name).format(**fields, facts="\n".join(lines))
    return PromptParts(
        system=prompts.system,
        instruction=prompts.instruction.format(document=record.text, question=question),
        response_prefix=prompts.response_prefix,
    )
