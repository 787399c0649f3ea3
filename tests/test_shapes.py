"""Document shapes: layouts the program fills (field facts exact by construction, the model
writing only the notes) and topic-only documents (no facts, no spans)."""

from __future__ import annotations

import dataclasses
import json
import random
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from fakes import ScriptedBackend
from planned_fakes import writer
from stdnum.de import idnr
from stdnum.es import dni, nie
from stdnum.fr import nir
from stdnum.gb import nhs
from stdnum.it import codicefiscale

from gen.cli import main
from gen.core.composition import compose, count_values, half_of
from gen.core.errors import ConfigError, UsageError
from gen.core.pack_shapes import MIN_FIELD_VALUES
from gen.core.packs import load_language_pack, prompts_root
from gen.core.records import Record
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from gen.generate.disclosures import DisclosureSpec
from gen.generate.options import DocumentsOptions
from gen.generate.plan import plan_item
from gen.generate.plan_spec import PlanSpec, validate_spec
from gen.generate.postprocess import template_slots
from gen.generate.records import filled
from gen.generate.run import run as generate_run
from gen.generate.shapes import FIELD, LAYOUT, NARRATIVE, TOPIC, ShapeSpec

LANGUAGES = ("en", "it", "de", "es", "fr")


def date_pattern(date_format: str) -> re.Pattern[str]:
    """Numeric dates written with `date_format` (%d, %m, %Y and separators)."""
    parts = {"%d": r"(0[1-9]|[12]\d|3[01])", "%m": r"(0[1-9]|1[0-2])", "%Y": r"\d{4}"}
    return re.compile(re.sub(r"%[dmY]", lambda m: parts[m.group()], re.escape(date_format)))


def spec(language: str = "en", layout: float = 0.0, topic: float = 0.0, **kw: object) -> PlanSpec:
    shapes = ShapeSpec(layout_share=layout, topic_share=topic) if layout or topic else None
    return PlanSpec(language=language, seed=3, disclosures=DisclosureSpec(**kw), shapes=shapes)


@pytest.fixture(scope="module")
def pack():
    return load_language_pack("en")


def test_shapes_leave_the_other_items_of_the_plan_as_they_were(pack) -> None:
    plain, shaped = spec(), spec(layout=0.5, topic=0.2)
    assert shaped.key == plain.key + "-l50-t20"
    shapes = set()
    for index in range(60):
        before, after = plan_item(pack, plain, index), plan_item(pack, shaped, index)
        assert after == plan_item(pack, shaped, index)  # deterministic
        assert (before.seed, before.category) == (after.seed, after.category)
        assert after.persona == ({} if after.shape == TOPIC else before.persona)
        if after.shape == NARRATIVE:
            assert dataclasses.replace(after, id=before.id) == before
        shapes.add(after.shape)
    assert shapes == {NARRATIVE, LAYOUT, TOPIC}


#: The identifier each pack's forms show, and its check (python-stdnum).
VALID_ID = {
    "en": ("health_insurance_id", nhs.is_valid),
    "it": ("tax_id", codicefiscale.is_valid),
    "de": ("tax_id", idnr.is_valid),
    "es": ("national_id", lambda number: dni.is_valid(number) or nie.is_valid(number)),
    "fr": ("health_insurance_id", nir.is_valid),
}


def test_every_skeleton_of_every_pack_fills_with_exact_field_values() -> None:
    """Only the skeleton's own field labels, of its type's categories; every date in the
    pack's date format; the persona's identifier valid; field spans exact."""
    for language in LANGUAGES:
        pack = load_language_pack(language)
        planned = spec(language, layout=1.0, topic=0.1, per_document=3, second_share=0.5)
        validate_spec(pack, planned)
        categories = {
            t.name: {c for c, prompts in pack.taxonomy.items() if t in prompts.doc_types}
            for prompts in pack.taxonomy.values()
            for t in prompts.doc_types
        }
        dates = date_pattern(pack.shapes.date_format)
        field, valid = VALID_ID[language]
        layouts = set()
        for index in range(400):
            item = plan_item(pack, planned, index)
            if item.shape != LAYOUT:
                continue
            assert item.frame is not None
            layouts.add((item.doc_type, item.frame.layout))
            skeleton = pack.shapes.layouts[item.doc_type][item.frame.layout]
            notes = "Notes written by the model."
            text, fields = item.frame.assemble(notes)
            assert notes in text and "{" not in text and "[" not in text
            assert valid(item.persona[field]), item.persona[field]
            for found in re.findall(r"\b\d{1,2}[./]\d{1,2}[./]\d{4}\b", text):
                assert dates.fullmatch(found), (language, found, text)
            own = {
                f.label for c in categories[item.doc_type] for f in pack.shapes.fields.get(c, ())
            }
            for index_, (start, end) in fields.items():
                fact = item.disclosures[index_]
                assert fact.form == FIELD and text[start:end] == fact.text
                line = text[:end].rsplit("\n", 1)[-1]
                label = next(lab for lab in skeleton.fields if line.startswith(lab))
                assert label in own
                assert fact.category in categories[item.doc_type]
            assert item.words < 200  # the model writes the notes only
            clause_facts = [fact for fact in item.disclosures if fact.form != FIELD]
            for fact in clause_facts:
                assert fact.text in item.parts.instruction
            for index_ in fields:
                assert f"- {item.persona['name']} {item.disclosures[index_].text}" not in (
                    item.parts.instruction
                )
        every = {
            (name, number)
            for name, skeletons in pack.shapes.layouts.items()
            for number in range(len(skeletons))
            if any(t.name == name for c in pack.taxonomy.values() for t in c.doc_types)
        }
        missing = every - layouts
        assert len(missing) <= len(every) // 4, (language, sorted(missing))


def test_topic_documents_have_no_facts_and_their_own_prompt(pack) -> None:
    planned = spec(topic=1.0, non_disclosures=2)
    for index in range(14):
        item = plan_item(pack, planned, index)
        if item.category == "other":  # discloses nothing already: never a topic document
            assert item.shape == NARRATIVE
            continue
        assert item.shape == TOPIC and item.doc_kind == TOPIC
        assert item.disclosures == () and item.non_disclosures == ()
        assert item.persona == {}
        assert "must not name or describe any" in item.parts.instruction


@pytest.mark.parametrize("language", LANGUAGES)
def test_topic_documents_of_every_pack_are_about_no_one(language: str) -> None:
    """No persona in the item, its prompt or its record; no slot filled, none left unflagged,
    no span."""
    pack = load_language_pack(language)
    planned = spec(language, topic=1.0)
    plain = PlanSpec(language=language, seed=3, disclosures=DisclosureSpec())
    for index in range(12):
        item = plan_item(pack, planned, index)
        if item.shape != TOPIC:
            continue
        persona = plan_item(pack, plain, index).persona
        assert item.persona == {}
        for value in (persona["name"], persona["address"], persona["email"], persona["phone"]):
            assert value not in item.parts.instruction and value not in item.parts.system
        record = Record(item.id, "Contact: [Address], [Company Name].", item.category,
                        item.doc_type, language, "llm", persona=item.persona or None)  # fmt: skip
        kept = filled(record, pack.generation)
        assert kept.text == record.text and kept.spans == [] and "slots_filled" not in kept.meta
        assert template_slots(kept.text)  # left, so flagged


def layout_writer():
    """A notes writer: every planned clause fact in a sentence, and a line of its own."""
    facts_writer = writer(lambda _number, fact: fact)

    def reply(request):
        return facts_writer(request).replace("Report of the visit.", "Seen today in clinic.")

    return reply


def test_layout_and_topic_documents_are_written_stored_and_counted(tmp_path: Path) -> None:
    paths = RunPaths(tmp_path)
    options = DocumentsOptions(spec(layout=1.0, topic=0.3), n=14)
    backend = ScriptedBackend(layout_writer())
    generate_run(paths, options, backend)
    records = RecordTable(paths.documents).read()
    assert len(records) == 14
    by_shape = {shape: [r for r in records if r.meta["shape"] == shape] for shape in SHAPES_SEEN}
    assert by_shape[TOPIC] and by_shape[LAYOUT]
    for record in by_shape[TOPIC]:
        assert record.spans == [] and record.doc_type not in {"Email", "Medical records"}
        assert record.persona is None
    fields = 0
    for record in by_shape[LAYOUT]:
        assert record.text.startswith(record.text.split("\n")[0]) and "Seen today" in record.text
        for fact in record.meta["disclosures"]["planned"]:
            if fact.get("form") == FIELD:
                fields += 1
                assert fact["found"] == "exact"
                assert record.text[fact["start"] : fact["end"]] == fact["text"]
                assert any(
                    s.start == fact["start"] and s.end == fact["end"] and s.source == "planned"
                    for s in record.spans
                )
    assert fields >= 3
    [plan] = json.loads(paths.manifest("documents").read_text())["plans"].values()
    shapes = plan["runs"][-1]["shapes"]
    assert sum(shapes.values()) == 14 and shapes.get(TOPIC) == len(by_shape[TOPIC])
    # the model wrote only the notes: its token budget is the notes' words
    limits = {r.meta["max_tokens"] for r in by_shape[LAYOUT]}
    assert max(limits) < 400


SHAPES_SEEN = (NARRATIVE, LAYOUT, TOPIC)


def test_layout_notes_that_echo_the_prompt_are_written_again(tmp_path: Path) -> None:
    """Only the notes are checked (the skeleton is the program's, with its labels and
    people): notes with a slot are asked again, and `meta.notes` says where they are."""
    paths = RunPaths(tmp_path)
    notes_writer, asked = layout_writer(), set()

    def reply(request):
        first = request.prompt not in asked
        asked.add(request.prompt)
        return notes_writer(request) + ("\nNext review: [Insert Date]" if first else "")

    summary = generate_run(paths, DocumentsOptions(spec(layout=1.0), n=6), ScriptedBackend(reply))
    records = [r for r in RecordTable(paths.documents).read() if r.meta["shape"] == LAYOUT]
    assert records and summary.written_again == len(asked) >= len(records)
    for record in records:
        start, end = record.meta["notes"]
        assert record.text[start:end].startswith("Seen today in clinic.")
        assert "[Insert Date]" not in record.text and not record.flags
        assert record.meta["first_answer"]["echo"] == [{"kind": "slot", "text": "[Insert Date]"}]


def test_bad_shapes_are_refused_with_one_line(pack, tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="--layout-share needs --disclosures planned"):
        validate_spec(pack, PlanSpec(language="en", shapes=ShapeSpec(layout_share=0.5)))
    with pytest.raises(UsageError, match="--layout-share needs --fact-style inline"):
        validate_spec(pack, spec(layout=0.5, style="placeholder"))
    with pytest.raises(UsageError, match=r"--topic-share 0\.005"):
        ShapeSpec(topic_share=0.005)
    root = tmp_path / "prompts"
    shutil.copytree(prompts_root(None), root)
    shapes = root / "en" / "shapes.yaml"
    original = shapes.read_text(encoding="utf-8")
    shapes.write_text(
        original.replace("        {notes}\n", "        {nots}\n", 1), encoding="utf-8"
    )
    with pytest.raises(ConfigError, match=r"shapes\.yaml.*unknown slot \{nots\}"):
        validate_spec(load_language_pack("en", root), spec(layout=0.5))
    start = original.index("  ethnic:\n    - {type:")
    shapes.write_text(original[:start], encoding="utf-8")
    with pytest.raises(ConfigError, match="no topic list for the category 'ethnic'"):
        validate_spec(load_language_pack("en", root), spec(topic=0.5))
    shapes.unlink()
    with pytest.raises(UsageError, match=r"shapes\.yaml: not found"):
        validate_spec(load_language_pack("en", root), spec(topic=0.5))
    validate_spec(load_language_pack("en", root), spec())  # without shapes: fine


def test_the_cli_takes_the_shares() -> None:
    refused = CliRunner().invoke(main, ["plan", "--layout-share", "0.5"])
    assert refused.exit_code == 2
    assert "--layout-share needs --disclosures planned" in refused.output
    args = ["plan", "--n", "8", "--show", "8", "--disclosures", "planned", "--topic-share", "0.5"]
    shown = CliRunner().invoke(main, [*args, "--layout-share", "1"])
    assert shown.exit_code == 0, shown.output
    assert "-l100-t50" in shown.output and "must not name or describe any" in shown.output


def test_field_values_compose_deterministically_and_halves_share_no_entry(pack) -> None:
    parts = pack.shapes.parts
    template = "{drug} {frequency}"
    drawn = [compose(template, parts, random.Random(seed)) for seed in range(30)]
    assert drawn == [compose(template, parts, random.Random(seed)) for seed in range(30)]
    first, second = (set(half_of(parts["icd10"], h)) for h in ("first", "second"))
    assert first and second and not first & second and first | second == set(parts["icd10"])
    courts = ["{town} Crown Court", "Old Bailey", "Royal Courts"]
    one, other = half_of(courts, "first"), half_of(courts, "second")
    assert set(one) & set(other) == {"{town} Crown Court"} and len(one) == len(other) == 2
    for label in ("Diagnosis", "Current medication"):
        [form] = [f for f in pack.shapes.fields["health"] if f.label == label]
        assert count_values(form.values, parts) >= MIN_FIELD_VALUES
    halves = [spec(layout=1.0, value_half=h) for h in ("first", "second")]
    assert halves[0].key.endswith("-firsthalf-l100") and halves[0].key != halves[1].key
    values = [set(), set()]
    for number, planned in enumerate(halves):
        for index in range(120):
            item = plan_item(pack, planned, index)
            values[number] |= {f.text for f in item.disclosures if f.form == FIELD}
    assert values[0] and values[1] and not values[0] & values[1]


def test_a_skeleton_naming_another_category_s_label_is_one_line(tmp_path: Path) -> None:
    root = tmp_path / "prompts"
    shutil.copytree(prompts_root(None), root)
    shapes = root / "en" / "shapes.yaml"
    text = shapes.read_text(encoding="utf-8")
    shapes.write_text(text.replace("fields: [Church]", "fields: [Church, Party]"), encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_language_pack("en", root).shapes  # noqa: B018
    line = str(caught.value)
    assert line.startswith(f"{shapes}: line ") and "\n" not in line
    assert (
        "layouts.Baptismal certificate.0.fields: field label 'Party' is no field of philosophy"
        in line
    )
