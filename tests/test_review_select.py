"""`gen review push --select`: the rules on fake detectors, exclusions, and the CLI."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from review_data import make_run

from gen.cli import main
from gen.core.errors import UsageError
from gen.core.records import Record, Span
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from gen.predict.detector import UnreadTexts
from gen.review.select import choose, disagreement, select_ids, unit_uncertainty

#: Thresholds of the fake encoder detector's labels.
THRESHOLDS = np.array([0.6, 0.3])


def doc(record_id: str, text: str = "Anna was treated for diabetes.", *spans: Span) -> Record:
    return Record(record_id, text, "health", "note", "en", "llm", list(spans))


class UnitDetector:
    """An encoder detector with fixed probabilities per text (columns: none, health,
    politic), one unit per row, all over the whole text."""

    scored = True

    def __init__(self, rows: dict[str, list[list[float]]]) -> None:
        self.rows = rows
        self.labels = ["health", "politic"]
        self.thresholds = THRESHOLDS

    def unit_scores(self, texts: Sequence[str]) -> list[tuple[list[tuple[int, int]], np.ndarray]]:
        return [([(0, len(t))] * len(self.rows[t]), np.array(self.rows[t])) for t in texts]

    def predict(self, texts: Sequence[str]) -> list[list[Span]]:
        raise AssertionError("uncertain reads unit_scores")


class SpanDetector:
    """A detector with only `predict`: fixed spans per text."""

    def __init__(
        self, spans: dict[str, list[Span]], labels: Sequence[str] = ("health",), scored: bool = True
    ) -> None:
        self.spans = spans
        self.labels = list(labels)
        self.scored = scored

    def predict(self, texts: Sequence[str]) -> list[list[Span]]:
        return [self.spans.get(text, []) for text in texts]


def test_uncertain_ranks_the_record_with_a_unit_at_its_threshold_first() -> None:
    rows = {
        "Sure it is none.": [[0.9, 0.05, 0.05]],
        "At the threshold.": [[0.2, 0.6, 0.2]],
        "Two units, one near.": [[0.95, 0.03, 0.02], [0.2, 0.1, 0.7]],
    }
    records = [doc("sure", "Sure it is none."), doc("edge", "At the threshold."),
               doc("near", "Two units, one near.")]  # fmt: skip
    assert unit_uncertainty(np.array(rows["At the threshold."]), THRESHOLDS) == 1.0
    # politic 0.7 against 0.3: 1 - 0.4 / 0.7; the unit far from health's 0.6 counts less.
    near = unit_uncertainty(np.array(rows["Two units, one near."]), THRESHOLDS)
    assert near == pytest.approx(1 - 0.4 / 0.7)
    assert unit_uncertainty(np.zeros((0, 3)), THRESHOLDS) == 0.0
    detector = UnitDetector(rows)
    assert select_ids(records, "uncertain", 2, detector=detector).ids == ["edge", "near"]
    assert select_ids(records, "uncertain", 1, detector=detector, exclude={"edge"}).ids == ["near"]
    assert select_ids(records, "uncertain", 10, detector=detector).ids == ["edge", "near", "sure"]


def test_uncertain_without_unit_scores_reads_span_scores_and_refuses_none() -> None:
    texts = ["Anna has diabetes.", "Bob has asthma.", "Carl votes."]
    scored = SpanDetector({
        texts[0]: [Span(9, 17, "health", "model", score=0.97)],
        texts[1]: [Span(8, 14, "health", "model", score=0.55)],
    })  # fmt: skip
    records = [doc(f"d{i}", text) for i, text in enumerate(texts)]
    assert select_ids(records, "uncertain", 3, detector=scored).ids == ["d1", "d0", "d2"]
    unscored = SpanDetector({texts[0]: [Span(9, 17, "health", "model")]}, scored=False)
    with pytest.raises(UsageError, match="carry no score"):
        select_ids(records, "uncertain", 1, detector=unscored)


def test_disagreement_picks_the_record_whose_detector_spans_differ_most() -> None:
    text = "Anna was treated for diabetes in Milano."  # 8 words with the period
    agree = doc("agree", text, Span(21, 29, "health", "llm_censor"))
    label = doc("label", text, Span(21, 29, "politic", "llm_censor"))
    missed = doc("missed", text.replace("Anna", "Luca"), Span(9, 29, "health", "llm_sentences"))
    # PERSON is no label of the detector: it is not held against it.
    person = doc("person", text.replace("Anna", "Marta"), Span(0, 5, "PERSON", "faker"),
                 Span(22, 30, "health", "llm_censor"))  # fmt: skip
    found = {
        text: [Span(21, 29, "health", "model")],
        missed.text: [Span(21, 29, "health", "model")],
        person.text: [Span(22, 30, "health", "model")],
    }
    detector = SpanDetector(found, ("health", "politic"))
    assert disagreement(text, agree.spans, found[text]) == 0.0
    assert disagreement(text, label.spans, found[text]) == pytest.approx(1 / 8)
    assert disagreement(missed.text, missed.spans, found[missed.text]) == pytest.approx(2 / 8)
    assert disagreement("", [], []) == 0.0
    pool = [agree, label, missed, person]
    ranked = select_ids(pool, "disagreement", 4, detector=detector).ids
    assert ranked[:2] == ["missed", "label"] and set(ranked[2:]) == {"agree", "person"}


def test_random_is_reproducible_per_seed_and_takes_at_most_the_pool() -> None:
    pool = [doc(f"d{i:02d}") for i in range(30)]
    first = select_ids(pool, "random", 5, seed=1).ids
    assert len(first) == 5 and select_ids(pool, "random", 5, seed=1).ids == first
    assert select_ids(pool, "random", 5, seed=2).ids != first
    everything = select_ids(pool, "random", 100, seed=1, exclude={"d00", "d01"}).ids
    assert sorted(everything) == [f"d{i:02d}" for i in range(2, 30)]
    assert choose({"a": 0.5, "b": 0.9, "c": 0.5}, 5, exclude={"b"}) in (["a", "c"], ["c", "a"])
    assert choose({}, 3) == []


def test_rules_refuse_a_missing_or_unread_detector() -> None:
    with pytest.raises(UsageError, match="needs --detector"):
        select_ids([doc("a")], "uncertain", 1)
    with pytest.raises(UsageError, match="reads no detector"):
        select_ids([doc("a")], "random", 1, detector=SpanDetector({}))
    with pytest.raises(UsageError, match="unknown --select"):
        select_ids([doc("a")], "loudest", 1)


# -- gen review push --select --------------------------------------------------------------


def _model_folder(root: Path) -> Path:
    root.mkdir()
    (root / "detector.json").write_text(json.dumps({"trainer": "encoder"}))
    return root


def test_push_refuses_selections_that_cannot_work_in_one_line(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run")
    model = _model_folder(tmp_path / "model")
    cases = [
        (["--select", "uncertain", "--sample", "2"], "--select uncertain needs --detector"),
        (["--select", "random"], "--select random needs --sample N"),
        (["--detector", str(model)], "--detector is read only by --select"),
        (["--select", "random", "--sample", "1", "--stratify", "label"], "--stratify"),
        (["--select", "disagreement", "--sample", "1", "--detector", str(tmp_path)],
         "has no detector.json"),
    ]  # fmt: skip
    env = {"LABEL_STUDIO_API_KEY": "token"}
    for options, message in cases:
        args = ["review", "push", "--run", str(run), "--url", "http://127.0.0.1:9", *options]
        result = CliRunner().invoke(main, args, env=env)
        assert result.exit_code == 2, result.output
        assert message in result.output and result.output.count("\n") == 1, result.output
    assert not (run / "review").exists()


def test_push_out_writes_exactly_the_selected_tasks_without_the_reviewed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    texts = {name: f"{name} was treated for diabetes." for name in ("Anna", "Bob", "Carl", "Dan")}
    records = [doc(name.lower(), text, Span(0, len(name), "health", "llm_censor"))
               for name, text in texts.items()]  # fmt: skip
    run = make_run(tmp_path / "run", records)
    with RecordTable(RunPaths(run).gold) as gold:  # anna: the detector disagrees most, reviewed
        gold.extend(records[:1])
    found = {texts["Anna"]: [], texts["Bob"]: [], texts["Carl"]: records[2].spans}
    monkeypatch.setattr("gen.review.select.load_detector", lambda folder: SpanDetector(found))
    model = _model_folder(tmp_path / "model")
    args = ["review", "push", "--run", str(run), "--out", str(tmp_path / "out"),
            "--select", "disagreement", "--sample", "2", "--detector", str(model)]  # fmt: skip
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    tasks = json.loads((tmp_path / "out" / "tasks.json").read_text())
    assert sorted(t["data"]["gen_id"] for t in tasks) == ["bob", "dan"]
    assert "wrote 2 tasks" in result.output
    assert "1 already reviewed (in RUN/gold) were left out" in result.output


class UnreadableDetector(UnitDetector):
    """The fake encoder detector, unable to read texts that hold a bell character."""

    def unit_scores(self, texts: Sequence[str]) -> list[tuple[list[tuple[int, int]], np.ndarray]]:
        scored = [([(0, len(t))], np.array([[0.2, 0.6, 0.2]])) for t in texts]
        unread = {i: "its tokens do not map back to it" for i, t in enumerate(texts) if "\a" in t}
        if unread:
            raise UnreadTexts(unread, scored)
        return scored


def test_records_the_detector_cannot_read_are_never_chosen_and_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    records = [doc("bell", "Anna\a has asthma."), doc("plain"), doc("other", "Bob votes.")]
    selection = select_ids(records, "uncertain", 3, detector=UnreadableDetector({}))
    assert selection.unread == {"bell": "its tokens do not map back to it"}
    assert sorted(selection.ids) == ["other", "plain"]
    monkeypatch.setattr("gen.review.select.load_detector", lambda f: UnreadableDetector({}))
    run = make_run(tmp_path / "run", records)
    args = ["review", "push", "--run", str(run), "--out", str(tmp_path / "out"),
            "--select", "uncertain", "--sample", "5", "--detector",
            str(_model_folder(tmp_path / "model"))]  # fmt: skip
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "wrote 2 tasks" in result.output
    assert "1 the detector could not read were left out" in result.output
    assert "left out bell: its tokens do not map back to it" in result.output
    assert "note: --sample 5, but only 2 documents left to choose from: all 2 taken" in (
        result.output
    )


def test_push_refuses_a_detector_without_scores_before_any_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    class Unscored(SpanDetector):
        def predict(self, texts: Sequence[str]) -> list[list[Span]]:
            raise AssertionError("no record is scored before the refusal")

    monkeypatch.setattr("gen.review.select.load_detector", lambda f: Unscored({}, scored=False))
    run = make_run(tmp_path / "run")
    model = _model_folder(tmp_path / "model")
    selection = ["--select", "uncertain", "--sample", "1", "--detector", str(model)]
    for target in (["--url", "http://127.0.0.1:9"], ["--out", str(tmp_path / "out")]):
        args = ["review", "push", "--run", str(run), *target, *selection]
        result = CliRunner().invoke(main, args, env={"LABEL_STUDIO_API_KEY": "token"})
        assert result.exit_code == 2, result.output
        assert "the detector's spans carry no score" in result.output
        assert result.output.count("\n") == 1, result.output
    assert not (tmp_path / "out").exists() and not (run / "review").exists()


def test_a_sample_larger_than_the_table_is_said(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run")
    args = ["review", "push", "--run", str(run), "--out", str(tmp_path / "out"), "--sample", "100"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "wrote 2 tasks" in result.output
    assert "note: --sample 100, but only 2 documents in the table: all 2 taken" in result.output
