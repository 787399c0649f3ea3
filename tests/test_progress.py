"""Progress lines: a count never passes its total, and the last count is always said."""

from __future__ import annotations

import re

from gen.core.progress import progress


def test_a_count_past_its_estimated_total_raises_the_total(capsys) -> None:
    with progress("train spacy ner", 3) as bar:
        for _ in range(5):
            bar.advance()
    lines = capsys.readouterr().err.splitlines()
    counts = [tuple(map(int, re.search(r"(\d+)/(\d+)", line).groups())) for line in lines]
    assert all(done <= total for done, total in counts), lines
    assert lines[-1] == "train spacy ner: 5/5"


def test_a_count_that_stops_short_of_its_total_is_said_once_at_the_end(capsys) -> None:
    with progress("train spacy ner", 10) as bar:
        for _ in range(4):
            bar.advance()
    lines = capsys.readouterr().err.splitlines()
    assert [line.split(" left ")[0] for line in lines] == [
        "train spacy ner: 1/10",
        "train spacy ner: 4/10",
    ]


def test_a_log_line_says_the_time_left_at_the_speed_of_this_run(capsys, monkeypatch) -> None:
    """A resumed run (its count starting at 40) estimates from its own items only."""
    clock = iter([100.0, 106.0, 112.0])
    monkeypatch.setattr("gen.core.progress.time.monotonic", lambda: next(clock))
    with progress("train transformers", 100, done=40) as bar:
        bar.advance(2, epoch="4.2")
        bar.log_every = 0
        bar.advance(2)
    assert capsys.readouterr().err.splitlines() == [
        "train transformers: 42/100 left 0:02:54 epoch=4.2",
        "train transformers: 44/100 left 0:02:48 epoch=4.2",
    ]
