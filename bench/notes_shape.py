"""How many layout notes only list their facts (gen.generate.notes_shape), per run.

A layout document's notes are the model's part of it: `meta.notes` says where they are;
in a run written before that key existed, the plan is drawn again from the run's manifest
with the prompt pack of this checkout and the skeleton's text around the notes must match
the stored document (a layout whose skeleton has changed since is counted as
`unmeasured`, never guessed). The facts are the document's planned clause facts found in
the notes (`meta.disclosures.planned`).

    PYTHONPATH=$PWD .venv/bin/python bench/notes_shape.py \
        bench/runs/qwen2.5-coder-1.5b-shapes-{en,it} [--show 3]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from gen.core.packs import LanguagePack, load_language_pack
from gen.core.records import Record
from gen.core.store import RecordTable
from gen.generate.disclosures import DisclosureSpec
from gen.generate.notes_shape import NotesShape, notes_shape
from gen.generate.plan import plan_item
from gen.generate.plan_spec import PlanSpec
from gen.generate.records import NOTES_KEY
from gen.generate.shapes import FIELD, LAYOUT, ShapeSpec


def _spec(stored: dict) -> PlanSpec:
    """A plan spec as the manifest stores it (`asdict`)."""
    values = dict(stored)
    if values.get("disclosures"):
        values["disclosures"] = DisclosureSpec(**values["disclosures"])
    if values.get("shapes"):
        values["shapes"] = ShapeSpec(**values["shapes"])
    return PlanSpec(**values)


def notes_range(record: Record, pack: LanguagePack, specs: dict[str, dict]) -> range | None:
    """Where the notes of a layout document are, or None when that cannot be told."""
    if NOTES_KEY in record.meta:
        start, end = record.meta[NOTES_KEY]
        return range(start, end)
    stored = specs.get(record.meta.get("plan", ""))
    if stored is None:
        return None
    frame = plan_item(pack, _spec(stored), record.meta["index"]).frame
    text = record.text
    if frame is None or not text.startswith(frame.before) or not text.endswith(frame.after):
        return None
    return range(len(frame.before), len(text) - len(frame.after))


def shape_of(record: Record, where: range) -> NotesShape:
    planned = record.meta.get("disclosures", {}).get("planned", [])
    facts = [
        (fact["start"] - where.start, fact["end"] - where.start)
        for fact in planned
        if fact.get("form") != FIELD and "start" in fact and fact["start"] in where
    ]
    notes = record.text[where.start : where.stop]
    return notes_shape(notes, record.persona or {}, facts, record.language)


def measure(run: Path, show: int) -> None:
    manifest = json.loads((run / "manifests" / "documents.json").read_text(encoding="utf-8"))
    specs = {key: plan["spec"] for key, plan in manifest["plans"].items()}
    layouts = [r for r in RecordTable(run / "documents").read() if r.meta.get("shape") == LAYOUT]
    if not layouts:
        print(f"{run}: no layout documents")
        return
    pack = load_language_pack(layouts[0].language)
    listing, unmeasured, shown = 0, 0, 0
    for record in layouts:
        where = notes_range(record, pack, specs)
        if where is None:
            unmeasured += 1
            continue
        shape = shape_of(record, where)
        listing += shape.lists_facts
        if shape.lists_facts and shown < show:
            shown += 1
            print(f"--- {record.id} ({record.doc_type}): {shape}")
            print(record.text[where.start : where.stop])
    measured = len(layouts) - unmeasured
    share = f"{listing / measured:.0%}" if measured else "-"
    print(
        f"{run} ({layouts[0].language}): {len(layouts)} layout documents, {measured} measured "
        f"({unmeasured} unmeasured: skeleton changed); notes that only list the facts: "
        f"{listing} ({share})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path, help="run folders (RUN/documents)")
    parser.add_argument("--show", type=int, default=0, help="print this many listing notes")
    arguments = parser.parse_args()
    for run in arguments.runs:
        measure(run, arguments.show)


if __name__ == "__main__":
    main()
