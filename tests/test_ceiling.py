"""The unit ceiling: what a perfect classifier of units scores against the gold set."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

import pytest

from gen.core.packs import load_language_pack
from gen.core.records import Record, Span
from gen.evaluate.ceiling import SOURCE, oracle_spans, unit_ceiling, unit_splitter

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


def test_the_benchmark_prints_every_unit_choice(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    gold = ROOT / "bench" / "gold" / "gold.jsonl"
    monkeypatch.setattr(sys, "argv", ["unit_ceiling.py", str(gold)])
    runpy.run_path(str(ROOT / "bench" / "unit_ceiling.py"), run_name="__main__")
    lines = capsys.readouterr().out.splitlines()
    assert "35 documents" in lines[0]
    assert lines[1].split()[:4] == ["unit", "units", "binary", "P/R/F1"]
    rows = {line.split("  ")[0].strip(): line.split() for line in lines[2:]}
    assert set(rows) == {"plain sentences", "sentence", "clause"}
    for cells in rows.values():
        assert all(0.0 <= float(cell) <= 1.0 for cell in cells[-7:])
