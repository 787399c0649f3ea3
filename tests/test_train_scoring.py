"""`gen train`'s `test` and `gold` tables: the same documents score the same, and where the
dataset changed a gold document, the output says so."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from gen.cli import main
from gen.core.records import Record, Span
from gen.train.curve import summarize
from gen.train.data import TrainingData
from gen.train.run import TrainReport
from gen.train.scoring import gold_set, score_sets

#: A word the detector marks, and the label it gives it.
MARKS = {"asthma": "health", "court": "judicial", "Greens": "politic"}


class WordDetector:
    """Marks every word of MARKS with its label: a false `judicial` in Carla's letter."""

    labels = sorted(MARKS.values())
    scored = False

    def predict(self, texts: Sequence[str]) -> list[list[Span]]:
        return [
            [
                Span(match.start(), match.end(), MARKS[match[0]], "model")
                for match in re.finditer("|".join(MARKS), text)
            ]
            for text in texts
        ]


def record(record_id: str, text: str, passage: str, label: str) -> Record:
    start = text.index(passage)
    span = Span(start, start + len(passage), label, "gold")
    return Record(record_id, text, label, "letter", "en", "gold", [span])


GOLD = [
    record("a", "Anna was fined by the court in 2019.", "was fined by the court", "judicial"),
    record("b", "Bruno was convicted by the court.", "was convicted by the court", "judicial"),
    record("c", "Carla has asthma. She met the court clerk.", "has asthma", "health"),
    record("d", "Dario votes for the Greens at every election.", "votes for the Greens", "politic"),
]


def data(test: list[Record]) -> TrainingData:
    """Gold a and b trained on (train, dev), c and d in the test split."""
    return TrainingData(Path(), {}, {"train": GOLD[:1], "dev": GOLD[1:2], "test": test})


def test_the_same_documents_score_the_same_in_both_tables() -> None:
    """The gold documents left after train and dev (c, d) hold no `judicial` span, but the
    gold file does: a `judicial` prediction there is judged as in the test table (before,
    the gold score left it out, judging labels by the records left, and scored higher)."""
    gold = gold_set(GOLD, data(GOLD[2:]))
    assert gold.left_out == ["a", "b"] and gold.in_test == 2 and gold.differs == {}
    test, scored = score_sets(WordDetector(), data(GOLD[2:]), gold)
    assert scored.documents == test.documents == 2
    assert scored.ignored_labels == []
    assert summarize(scored.evaluation) == summarize(test.evaluation)
    assert summarize(test.evaluation)["token micro F1"] < 1  # the false `judicial` counts


def test_a_gold_file_that_never_uses_a_label_still_leaves_its_predictions_out() -> None:
    gold = gold_set(GOLD[2:], data(GOLD[2:]))
    _, scored = score_sets(WordDetector(), data(GOLD[2:]), gold)
    assert scored.ignored_labels == ["judicial"]


@pytest.fixture
def changed() -> TrainReport:
    """The dataset's copy of d lost its span (as `gen build --scheme` or `--sources` do)."""
    split = data([GOLD[2], replace(GOLD[3], spans=[])])
    gold = gold_set(GOLD, split)
    report = TrainReport(Path("model"), {}, 1.0, score_sets(WordDetector(), split, gold))
    return replace(report, gold=gold)


def test_a_gold_document_the_dataset_changed_is_named(changed, monkeypatch) -> None:
    report = changed
    assert report.gold is not None and report.gold.differs == {"d": "spans"}
    test, scored = report.scored
    assert summarize(scored.evaluation) != summarize(test.evaluation)
    monkeypatch.setattr("gen.cli.train.train_detector", lambda *args, **kwargs: report)
    result = CliRunner().invoke(main, ["train", "--run", "nowhere"])
    assert result.exit_code == 0, result.output
    assert (
        "gold: gen build changed the spans of 1 of the 2 gold documents in the test split too "
        "(e.g. d; " in result.output
    )
    assert "the test table judges them against the dataset's spans" in result.output
