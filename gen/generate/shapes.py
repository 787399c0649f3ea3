"""Document shapes: narratives, program-filled layouts, and topic-only documents.

A plan item is a `narrative` unless its shape draw (a random stream of its own, so the
rest of the item is what it would be without shapes) makes it

- a `layout` document (`--layout-share`, planned disclosures only, document types with a
  skeleton in the pack's shapes.yaml): the program fills a skeleton with the persona's
  fields, a reference, a date, and each planned fact whose category has a field label the
  skeleton names, in field form ("Diagnosis: E11.9 Type 2 diabetes mellitus"), whose span
  is exact by construction; the model writes only the `{notes}` part, around the facts left
  as clauses, which the finder finds as in any document. The model's tokens per document
  fall to the notes' few;
- a `topic` document (`--topic-share`): about its category's topic, disclosing nothing
  about anyone: no persona, no facts, no spans (the hard negatives of a clinic's leaflet or
  a party programme); a slot the model leaves is flagged, never filled.

`meta.shape` of every record says which.
"""

from __future__ import annotations

import dataclasses
import random
import string
from dataclasses import dataclass
from datetime import timedelta

from gen.backends.prompting import PromptParts
from gen.core.composition import Half, compose, half_of
from gen.core.errors import UsageError
from gen.core.pack_shapes import FIELDS_SLOT, NOTES_SLOT, Layout, Topic
from gen.core.packs import LanguagePack
from gen.core.placeholders import template_pieces
from gen.core.seeds import derive_seed
from gen.generate.disclosures import Disclosure, DisclosureSpec, whole_percent
from gen.generate.personas import REFERENCE_DAY, Persona, other_person

NARRATIVE, LAYOUT, TOPIC = "narrative", "layout", "topic"
SHAPES = (NARRATIVE, LAYOUT, TOPIC)
#: How a planned fact is written: a clause of the text, or a field value of a layout.
CLAUSE, FIELD = "clause", "field"
#: Stands for the notes while the skeleton is filled (no skeleton holds it).
_NOTES_MARK = "\x00notes\x00"


@dataclass(frozen=True)
class ShapeSpec:
    """Shares of layout and topic-only items (0-1, whole percent); part of the plan key."""

    layout_share: float = 0.0
    topic_share: float = 0.0

    def __post_init__(self) -> None:
        layout = whole_percent(self.layout_share, "--layout-share")
        topic = whole_percent(self.topic_share, "--topic-share")
        object.__setattr__(self, "layout_share", layout)
        object.__setattr__(self, "topic_share", topic)

    @property
    def key(self) -> str:
        """`-l40-t20`; "" when every item is a narrative (older plans keep their ids)."""
        key = f"-l{round(self.layout_share * 100)}" if self.layout_share else ""
        return key + (f"-t{round(self.topic_share * 100)}" if self.topic_share else "")


@dataclass(frozen=True)
class Frame:
    """A layout document around its notes: the filled text before and after them, and
    where each field fact's value sits (fact index, start, end) in `before + after` counted
    as if the notes were empty; `gen.generate.records` shifts those after the notes."""

    layout: int
    before: str
    after: str
    fields: tuple[tuple[int, int, int], ...]
    #: Notes shorter than this are rejected (shapes.yaml `min_notes_chars`).
    min_chars: int = 1

    def assemble(self, notes: str) -> tuple[str, dict[int, tuple[int, int]]]:
        """The document with `notes` in place, and each field fact's offsets in it."""
        text = self.before + notes + self.after
        shift = len(notes)
        places = {}
        for index, start, end in self.fields:
            moved = shift if start >= len(self.before) else 0
            places[index] = (start + moved, end + moved)
        return text, places


def draw_shape(
    spec: ShapeSpec | None,
    pack: LanguagePack,
    category: str,
    doc_type: str,
    rng: random.Random,
    planned: bool,
) -> str:
    """The item's shape: topic-only first (sensitive categories: `other` documents disclose
    nothing already), then a layout where its type has one."""
    if spec is None:
        return NARRATIVE
    draw = rng.random()
    if draw < spec.topic_share and category in pack.categories.sensitive:
        return TOPIC
    if planned and doc_type in pack.shapes.layouts and rng.random() < spec.layout_share:
        return LAYOUT
    return NARRATIVE


def check_shapes(
    pack: LanguagePack, spec: ShapeSpec | None, disclosures: DisclosureSpec | None
) -> None:
    """Refuse shares the pack or the plan cannot serve, before any work."""
    if spec is None or not (spec.layout_share or spec.topic_share):
        return
    if spec.layout_share and disclosures is None:
        raise UsageError("--layout-share needs --disclosures planned: layouts hold planned facts")
    if spec.layout_share and disclosures is not None and disclosures.style != "inline":
        raise UsageError(
            "--layout-share needs --fact-style inline: the notes are found like any text"
        )
    pack.shapes  # noqa: B018 (loaded and checked now, not at the first document)


def shape_rng(seed: int, plan_key: str, index: int) -> random.Random:
    """The shape stream of item `index`: apart from the item's other draws."""
    return random.Random(derive_seed(seed, plan_key, index, "shape"))


def draw_topic(pack: LanguagePack, category: str, rng: random.Random) -> Topic:
    """The topic of a topic-only document, drawn right after its shape (`gen plan` counts
    the types of a plan's topic documents with it, without building the items)."""
    return rng.choice(pack.shapes.topics[category])


def topic_item_parts(
    pack: LanguagePack, category: str, rng: random.Random
) -> tuple[str, int, PromptParts]:
    """Document type, words and prompt of a topic-only document of `category`: no persona's
    value is in it, nor may be filled into it."""
    shapes = pack.shapes
    topic = draw_topic(pack, category, rng)
    values = {"type": topic.type, "subject": topic.subject, "words": shapes.topic_words}
    parts = PromptParts(
        system=shapes.system,
        instruction=shapes.topic_instruction.format(**values),
        response_prefix=pack.generation.response_prefix,
    )
    return topic.type, shapes.topic_words, parts


def layout_item(
    pack: LanguagePack,
    persona: Persona,
    doc_type: str,
    disclosures: tuple[Disclosure, ...],
    rng: random.Random,
    half: Half | None = None,
) -> tuple[Frame, Layout, tuple[Disclosure, ...]]:
    """A skeleton of `doc_type` filled for `persona`, and the facts: a fact of a category
    whose field labels the skeleton names becomes a field fact under one of them (each label
    once), its value composed from the label's values and the pack's parts (`half` of each
    list); the others stay clauses for the notes (a party donation has no field on a
    disability certificate, nor a disposal on a certificate of pending charges)."""
    shapes = pack.shapes
    number = rng.randrange(len(shapes.layouts[doc_type]))
    layout = shapes.layouts[doc_type][number]
    free = {fact.category: shapes.forms(fact.category, layout.fields) for fact in disclosures}
    facts: list[Disclosure] = []
    lines = []
    for disclosure in disclosures:
        forms = free[disclosure.category]
        if not forms:
            facts.append(disclosure)
            continue
        form = forms.pop(rng.randrange(len(forms)))
        value = compose(rng.choice(half_of(form.values, half)), shapes.parts, rng, half)
        facts.append(dataclasses.replace(disclosure, text=value, source="pack", form=FIELD))
        lines.append((len(facts) - 1, form.label, value))
    other = other_person(pack.language.faker_locale, rng.getrandbits(31))
    frame = _fill(layout.text, shapes.field_line, shapes.date_format, persona, other, lines, rng)
    frame = dataclasses.replace(frame, layout=number, min_chars=shapes.min_notes_chars)
    return frame, layout, tuple(facts)


def _fill(
    skeleton: str,
    field_line: str,
    date_format: str,
    persona: Persona,
    other: tuple[str, str],
    lines: list[tuple[int, str, str]],
    rng: random.Random,
) -> Frame:
    """The skeleton filled, with the offsets of each field value."""
    day = REFERENCE_DAY - timedelta(days=rng.randint(1, 330))
    values = {
        **persona.values,
        "date": day.strftime(date_format),
        "ref": _reference(rng),
        "other_name": other[0],
        "other_email": other[1],
        NOTES_SLOT: _NOTES_MARK,
    }
    rendered, fields = [], []
    length = 0
    for literal, name in template_pieces(skeleton):
        rendered.append(literal)
        length += len(literal)
        if name is None:
            continue
        if name == FIELDS_SLOT:
            block, offsets = _field_block(field_line, lines, length)
            rendered.append(block)
            fields.extend(offsets)
            length += len(block)
            continue
        rendered.append(str(values[name]))
        length += len(rendered[-1]) if name != NOTES_SLOT else 0
    text = "".join(rendered)
    before, after = text.split(_NOTES_MARK)
    return Frame(0, before, after, tuple(fields))


def _field_block(
    field_line: str, lines: list[tuple[int, str, str]], at: int
) -> tuple[str, list[tuple[int, int, int]]]:
    """The field facts as lines from offset `at`, and each value's offsets."""
    parts, offsets, position = [], [], at
    head = field_line.split("{value}")[0]
    for number, (index, label, value) in enumerate(lines):
        line = field_line.format(label=label, value=value)
        start = position + len(head.format(label=label))
        offsets.append((index, start, start + len(value)))
        parts.append(line)
        position += len(line) + (number < len(lines) - 1)
    return "\n".join(parts), offsets


def _reference(rng: random.Random) -> str:
    """A reference number as forms print them: letters and digits."""
    letters = "".join(rng.choice(string.ascii_uppercase) for _ in range(2))
    return f"{letters}{rng.randint(100000, 999999)}"
