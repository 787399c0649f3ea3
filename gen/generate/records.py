"""From a model's answer to a stored record: cleaned, checked, flagged, with provenance.

An answer that fails a check becomes a reject with its raw text, reason and detail,
never a silent drop; so does a request the backend failed, and an item whose facts
request gave no fact (`--facts model|mixed`). Slots the writer left in brackets are filled
from the persona where they can be (`gen.generate.slots`); a document written with planned
disclosures then gets its facts placed (`gen.generate.placed_facts`) before the checks. An
echo of the prompt in the model's text (`gen.generate.echo`) flags it `prompt_echo`, or
asks the call to write it again.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from gen.backends.base import Backend, Completion
from gen.backends.prompting import RenderedPrompt
from gen.core.pack_generation import GenerationPrompts
from gen.core.records import Record, check_spans
from gen.generate.checks import DuplicateIndex, Rejection, rejection
from gen.generate.echo import ECHO_KEY, PROMPT_ECHO, Echo, EchoCheck
from gen.generate.model_facts import FACTS_FAILED, WrittenFacts
from gen.generate.placed_facts import FactPlacer
from gen.generate.plan import PlanItem
from gen.generate.plan_spec import PlanSpec
from gen.generate.postprocess import clean_document, template_slots
from gen.generate.shapes import Frame
from gen.generate.slots import fill_slots
from gen.generate.summary import CTX_TRUNCATED, UNFILLED_SLOT
from labeling.planned import META_KEY
from labeling.strategies.inline import InlineLabels

STAGE = "documents"
#: `meta` key of a layout document's notes: [start, end] of the model's part of its text.
NOTES_KEY = "notes"


@dataclass(frozen=True)
class Answer:
    """One completion for one plan item, and the token limit it was asked with."""

    item: PlanItem
    rendered: RenderedPrompt
    completion: Completion
    max_tokens: int
    #: The model's facts requests, when it wrote some of the item's facts (`--facts
    #: model|mixed`).
    facts: WrittenFacts | None = None

    @property
    def ctx_truncated(self) -> bool:
        """Cut by the context window: stopped for length before reaching --max-tokens."""
        completion = self.completion
        return completion.finish_reason == "length" and 0 < completion.completion_tokens < (
            self.max_tokens
        )

    @property
    def at_token_limit(self) -> bool:
        return self.completion.finish_reason == "length" and not self.ctx_truncated


@dataclass(frozen=True)
class Judgement:
    record: Record
    rejection: Rejection | None
    #: Characters of the answer after clean-up.
    chars: int
    #: The answer passed the checks but holds an echo of its prompt: write it again.
    write_again: bool = False


def document_record(
    item: PlanItem,
    spec: PlanSpec,
    rendered: RenderedPrompt,
    completion: Completion,
    text: str,
    backend: Backend,
    *,
    removed: list[str],
    run_id: str,
) -> Record:
    return Record(
        id=item.id,
        text=text,
        category=item.category,
        doc_type=item.doc_type,
        language=spec.language,
        source="llm",
        persona=item.persona or None,  # a topic-only document is about no one
        prompt=rendered.text,
        model=backend.model_id,
        seed=item.seed,
        group=item.id,
        meta={
            "plan": spec.key,
            "run": run_id,
            "index": item.index,
            "doc_kind": item.doc_kind,
            "doc_words": item.words,
            "sensitive_info": item.sensitive_info,
            "backend": backend.name,
            "finish_reason": completion.finish_reason,
            "prompt_tokens": completion.prompt_tokens,
            "completion_tokens": completion.completion_tokens,
            "seconds": round(completion.seconds, 3),
            "cleanup": removed,
            "shape": item.shape,
            **({"layout": item.frame.layout} if item.frame else {}),
        },
    )


def rejected(record: Record, raw: str, refusal: Rejection) -> Record:
    """The record as a reject: the raw answer, its reason first among its flags."""
    record.text = raw
    record.spans = []  # spans of the clean text (inline labels) do not fit the raw one
    record.meta.update({"reason": refusal.reason, "detail": refusal.detail, "stage": STAGE})
    record.flags = [refusal.reason, *record.flags]
    return record


def filled(record: Record, generation: GenerationPrompts) -> Record:
    """The record with the slots it can fill filled (`meta.slots_filled`), before the facts
    are placed, so that every span is of the final text. A document about no one (a
    topic-only document) has none filled: its slots stay, flagged."""
    if record.persona is None:
        return record
    slots = fill_slots(record.text, record.persona, generation.slots, record.spans)
    if not slots.filled:
        return record
    check_spans(slots.text, slots.spans, record_id=record.id)
    meta = {**record.meta, "slots_filled": slots.filled}
    return dataclasses.replace(record, text=slots.text, spans=slots.spans, meta=meta)


def judge(
    answer: Answer,
    *,
    spec: PlanSpec,
    generation: GenerationPrompts,
    backend: Backend,
    duplicates: DuplicateIndex,
    run_id: str,
    inline: InlineLabels | None = None,
    placer: FactPlacer | None = None,
    echo: EchoCheck | None = None,
    write_again: bool = False,
) -> Judgement:
    """Clean the answer, strip the writer's inline tags into spans (when asked for), place
    the planned facts (when there are), and check it; an accepted text joins `duplicates`.
    A text that holds an echo of its prompt (`echo`) is flagged, or with `write_again`
    left out of `duplicates` and judged `write_again`."""
    item, completion = answer.item, answer.completion
    cleaned = clean_document(
        completion.text,
        echoes=[item.parts.response_prefix, item.parts.instruction],
        truncated=completion.finish_reason == "length",
        chatter=generation.chatter,
    )
    record = document_record(
        item,
        spec,
        answer.rendered,
        completion,
        cleaned.text,
        backend,
        removed=cleaned.removed,
        run_id=run_id,
    )
    record.meta["max_tokens"] = answer.max_tokens
    if inline:
        record = inline.written(record)
    record = filled(record, generation)
    written, fields = record.text, {}
    if item.frame is not None:
        record, fields = framed(record, item.frame)
    if placer and item.disclosures:
        record = placer.place(record, item, answer.facts, fields)
    if answer.ctx_truncated:
        record.flags.append(CTX_TRUNCATED)
    slots = template_slots(record.text)
    if slots:
        record.flags.append(UNFILLED_SLOT)
        record.meta["slots"] = slots
    echoes = _echoes(echo, item, answer.rendered, written if item.frame else record.text)
    if echoes:
        record.flags.append(PROMPT_ECHO)
        record.meta[ECHO_KEY] = [found.to_dict() for found in echoes]
    refusal = rejection(
        written,  # a layout document's notes: its frame is the program's
        language=spec.language,
        min_chars=item.frame.min_chars if item.frame else generation.checks.min_chars,
        duplicates=duplicates,
        chatter=generation.chatter,
    )
    if refusal is None and placer is not None:
        refusal = placer.refusal(record)
    if refusal:
        return Judgement(rejected(record, completion.text, refusal), refusal, len(record.text))
    if echoes and write_again:
        return Judgement(record, None, len(record.text), write_again=True)
    duplicates.add(written)
    return Judgement(record, None, len(record.text))


def _echoes(
    echo: EchoCheck | None, item: PlanItem, rendered: RenderedPrompt, text: str
) -> list[Echo]:
    """What of the prompt the model's part of the document holds (a layout's notes: its
    skeleton is the program's, and so are the people it and the persona name)."""
    if echo is None:
        return []
    frame = item.frame
    skeleton = (frame.before, frame.after) if frame else ()
    given = [rendered.text, *skeleton, *map(str, item.persona.values())]
    return echo.find(text, "\n".join(given))


def framed(record: Record, frame: Frame) -> tuple[Record, dict[int, tuple[int, int]]]:
    """A layout document: the model's notes in their filled skeleton (where they are in
    `meta.notes`), the notes' spans moved with them, and where each field fact's value is."""
    text, fields = frame.assemble(record.text)
    shift = len(frame.before)
    spans = [dataclasses.replace(s, start=s.start + shift, end=s.end + shift) for s in record.spans]
    check_spans(text, spans, record_id=record.id)
    meta = {**record.meta, NOTES_KEY: [shift, shift + len(record.text)]}
    return dataclasses.replace(record, text=text, spans=spans, meta=meta), fields


def failed_request(
    item: PlanItem,
    spec: PlanSpec,
    rendered: RenderedPrompt,
    backend: Backend,
    error: Exception,
    *,
    run_id: str,
) -> Record:
    """The reject of a request the backend failed."""
    failed = Completion("", 0, 0, 0.0, "error")
    record = document_record(item, spec, rendered, failed, "", backend, removed=[], run_id=run_id)
    return rejected(record, "", Rejection("model_error", str(error)))


def facts_failed(
    item: PlanItem, spec: PlanSpec, backend: Backend, facts: WrittenFacts, *, run_id: str
) -> Record:
    """The reject of an item whose facts requests gave no usable fact: the requests and
    answers are kept, and the item is not written."""
    prompt = RenderedPrompt("\n\n".join(answer.prompt for answer in facts.answers), ())
    completion = Completion("", 0, facts.completion_tokens, facts.seconds, "stop")
    record = document_record(item, spec, prompt, completion, "", backend, removed=[], run_id=run_id)
    assert spec.disclosures is not None
    record.meta[META_KEY] = {
        "facts": spec.disclosures.facts,
        "style": spec.disclosures.style,
        "planned": [],
        "model": facts.meta(),
    }
    raw = "\n\n".join(answer.answer for answer in facts.answers)
    return rejected(record, raw, Rejection(FACTS_FAILED, facts.why))
