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
    assert lines == ["train spacy ner: 1/10", "train spacy ner: 4/10"]
