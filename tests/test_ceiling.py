"""The unit ceiling: what a perfect classifier of units scores against the gold set."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

import pytest

from gen.core.packs import load_language_pack
from gen.core.records import Record, Span
from gen.evaluate.ceiling import (
    SOURCE,
    category_label_map,
    oracle_spans,
    unit_ceiling,
    unit_floor,
    unit_splitter,
)

ROOT = Path(__file__).resolve().parents[1]
LABELS = ("health", "judicial")


def test_a_unit_takes_the_label_of_most_of_its_visible_characters() -> None:
    text = "aaaa bbbb cccc dddd"
    gold = [Span(0, 9, "health"), Span(10, 14, "judicial"), Span(15, 19, "PERSON")]
    units = [(0, 14), (5, 19), (10, 19)]
    # (0,14): 8 of 12 visible characters are health. (5,19): 4 health, 4 judicial, 4 other:
    # no majority. (10,19): judicial 4 of 8 is not most; PERSON is not a counted label.
    assert oracle_spans(text, gold, units, LABELS) == [Span(0, 14, "health", SOURCE)]


def test_units_that_follow_the_gold_spans_score_one() -> None:
    text = "He has asthma; he was fined in 2019. The weather was fine."
    gold = [Span(3, 13, "health"), Span(18, 35, "judicial"), Span(0, 2, "PERSON")]
    record = Record("d1", text, "health", "note", "en", "gold", gold)
    rules = {"en": load_language_pack("en").units}

    clause = unit_ceiling([record], unit_splitter(rules, "clause"), LABELS)
    assert clause.token_binary.recall == 1.0
    assert clause.token_binary.precision == 6 / 8  # "He" and "he" are outside the gold spans

    # The first sentence is half judicial, a quarter health: no label has most of it, so
    # even a perfect sentence classifier labels nothing.
    sentence = unit_ceiling([record], unit_splitter(rules, "sentence"), LABELS)
    assert sentence.token_binary.tp == 0 and sentence.token_binary.fp == 0


def test_the_floor_labels_every_unit_of_a_sensitive_document_with_its_category() -> None:
    text = "He has asthma. The weather was fine."
    sick = Record("d1", text, "health", "note", "en", "gold", [Span(7, 13, "health")])
    calm = Record("d2", text, "other", "note", "en", "gold", [])
    pack = load_language_pack("en")
    assert category_label_map([pack])["health"] == "health"
    assert category_label_map([pack])["other"] is None
    rules = {"en": pack.units}
    floor = unit_floor(
        [sick, calm], unit_splitter(rules, "sentence"), LABELS, category_label_map([pack])
    )
    # Both sentences of d1 are labeled health (7 words, 1 of them gold: "asthma"), d2 nothing.
    assert floor.token_binary.recall == 1.0
    assert floor.token_binary.tp == 1 and floor.token_binary.fp == 6


def test_the_benchmark_prints_every_unit_choice(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    gold = ROOT / "bench" / "gold" / "gold-dev.jsonl"
    documents = len(gold.read_text(encoding="utf-8").splitlines())
    monkeypatch.setattr(sys, "argv", ["unit_ceiling.py", str(gold)])
    runpy.run_path(str(ROOT / "bench" / "unit_ceiling.py"), run_name="__main__")
    out = capsys.readouterr().out
    assert f"{documents} documents" in out.splitlines()[0]
    ceiling, floor = out.split("\n\nceiling:")[1].split("\n\nfloor:")
    for table in (ceiling, floor):
        lines = table.strip().splitlines()[1:]
        assert lines[0].split()[:4] == ["unit", "units", "binary", "P/R/F1"]
        rows = {line.split("  ")[0].strip(): line.split() for line in lines[1:]}
        assert set(rows) == {"plain sentences", "sentence", "clause"}
        for cells in rows.values():
            assert all(0.0 <= float(cell) <= 1.0 for cell in cells[-7:])
    # Labeling everything finds every gold token but is far from the ceiling.
    assert "/1.000/" in floor
