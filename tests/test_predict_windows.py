"""Windows over long texts and the merge of their predictions back to exact offsets."""

from __future__ import annotations

import json
from typing import ClassVar

from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from gen.cli import main
from gen.core.records import Record, Span, check_spans
from gen.predict.detector import UnreadTexts
from gen.predict.run import BATCH, predict_records
from gen.predict.windows import Window, merge_windows, resolve_overlaps, word_windows
from gen.text.words import word_spans


def test_short_text_is_one_window():
    assert word_windows("a few words", 10, 2) == [Window(0, 11)]


def test_windows_cover_every_word_and_overlap_by_the_given_words():
    text = " ".join(f"w{i}" for i in range(25))
    windows = word_windows(text, 10, 4)
    words = word_spans(text)
    covered = {
        w for window in windows for w in words if window.start <= w[0] and w[1] <= window.end
    }
    assert covered == set(words)
    first, second = (text[w.start : w.end].split() for w in windows[:2])
    assert first[-4:] == second[:4]
    assert windows[-1].end == len(text)


def _windowed_truth(text: str, truth: list[Span], size: int, overlap: int) -> list[Span]:
    """What a perfect detector returns when it sees one window at a time: each true span
    clipped to the window (a span cut by the edge is seen cut)."""
    windows = word_windows(text, size, overlap)
    seen = [
        [
            Span(max(s.start, w.start), min(s.end, w.end), s.label, "model")
            for s in truth
            if s.start < w.end
            and w.start < s.end
            and text[max(s.start, w.start) : min(s.end, w.end)].strip()
        ]
        for w in windows
    ]
    return merge_windows(len(text), windows, seen)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_a_perfect_detector_seen_through_windows_gives_back_every_span(data):
    words = data.draw(
        st.lists(st.sampled_from(["àb", "çd", "ef", "😀", "g-h", "ij"]), min_size=5, max_size=80)
    )
    text = " ".join(words)
    spans_at = word_spans(text)
    truth, index = [], 0
    while index < len(spans_at):
        length = data.draw(st.integers(0, 6))
        if length and index + length <= len(spans_at):
            label = data.draw(st.sampled_from(["A", "B"]))
            truth.append(Span(spans_at[index][0], spans_at[index + length - 1][1], label, "model"))
        index += max(length, 1) + 1
    merged = _windowed_truth(text, truth, size=16, overlap=8)
    check_spans(text, merged)
    assert [(s.start, s.end, s.label) for s in merged] == [(s.start, s.end, s.label) for s in truth]


def test_spans_seen_twice_in_an_overlap_are_kept_once():
    text = " ".join(f"w{i}" for i in range(30))
    windows = word_windows(text, 12, 6)
    target = Span(text.index("w8"), text.index("w9") + 2, "A", "model")
    seen = [[target] if w.start <= target.start and target.end <= w.end else [] for w in windows]
    assert sum(map(len, seen)) > 1
    assert merge_windows(len(text), windows, seen) == [target]


def test_overlapping_labels_keep_the_higher_score_and_same_labels_join():
    spans = [
        Span(0, 10, "A", "model", score=0.6),
        Span(5, 15, "A", "model", score=0.9),
        Span(12, 20, "B", "model", score=0.7),
        Span(30, 40, "B", "model", score=0.5),
    ]
    assert resolve_overlaps(spans) == [
        Span(0, 15, "A", "model", score=0.9),
        Span(30, 40, "B", "model", score=0.5),
    ]


class FixedDetector:
    """Returns the spans it was given, whatever the text: a model's raw offsets."""

    labels: ClassVar[list[str]] = ["PERSON", "LOCATION"]

    def __init__(self, spans: list[Span]) -> None:
        self.spans = spans

    def predict(self, texts):
        return [list(self.spans) for _ in texts]


def test_predicted_spans_cover_whole_words_and_no_whitespace():
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # one grapheme cluster
    text = f"Flag \U0001f1ee\U0001f1f9 of {family} at 5SY\n\nEnd"
    flag = text.index("\U0001f1ee")
    joiner = text.index("\u200d\U0001f467")
    code = text.index("5SY")
    spans = [
        Span(flag + 1, flag + 2, "LOCATION", "model"),  # the second half of the flag
        Span(joiner, joiner + 2, "PERSON", "model"),  # a lone "\u200d👧"
        Span(code, code + 5, "LOCATION", "model", score=0.9),  # "5SY\n\n"
    ]
    record = Record("r", text, "other", "note", "en", "import")
    (out,) = predict_records(FixedDetector(spans), [record]).records
    assert [text[s.start : s.end] for s in out.spans] == ["\U0001f1ee\U0001f1f9", family, "5SY"]
    assert out.spans[2].score == 0.9


def test_spans_snapped_onto_one_word_do_not_overlap():
    text = "Anna Rossi lives here."
    spans = [Span(0, 2, "PERSON", "model", score=0.4), Span(2, 7, "LOCATION", "model", score=0.8)]
    record = Record("r", text, "other", "note", "en", "import")
    (out,) = predict_records(FixedDetector(spans), [record]).records
    assert [(text[s.start : s.end], s.label) for s in out.spans] == [("Anna Rossi", "LOCATION")]
    check_spans(text, out.spans)


class PickyDetector:
    """Finds "Anna" everywhere, but cannot read a text that holds a bell character."""

    labels: ClassVar[list[str]] = ["PERSON"]
    scored = False

    def predict(self, texts):
        found = [[Span(0, 4, "PERSON", "model")] if "\x07" not in t else [] for t in texts]
        unread = {i: "its tokens do not map back to it" for i, t in enumerate(texts) if "\x07" in t}
        if unread:
            raise UnreadTexts(unread, found)
        return found


def test_records_the_detector_cannot_read_are_named_and_the_others_go_on():
    texts = [f"Anna {n}" + "\x07" * (n % 20 == 7) for n in range(BATCH + 10)]
    records = [
        Record(f"r{n}", text, "other", "note", "en", "import") for n, text in enumerate(texts)
    ]
    predicted = predict_records(PickyDetector(), records)
    assert predicted.unread == dict.fromkeys(["r7", "r27"], "its tokens do not map back to it")
    assert [r.id for r in predicted.records] == [r.id for r in records if r.id not in {"r7", "r27"}]
    assert all(r.spans == [Span(0, 4, "PERSON", "model")] for r in predicted.records)


def test_gen_predict_writes_the_records_it_can_read_and_names_the_others(tmp_path, monkeypatch):
    monkeypatch.setattr("gen.cli.predict.detector_info", lambda folder: {})
    monkeypatch.setattr("gen.cli.predict.load_detector", lambda *a, **k: PickyDetector())
    source = tmp_path / "input.jsonl"
    rows = [{"id": "ok", "text": "Anna lives here."}, {"id": "bell", "text": "Anna\x07 rings."}]
    source.write_text("".join(json.dumps(row) + "\n" for row in rows))
    out = tmp_path / "out.jsonl"
    args = ["predict", str(source), "--model", str(tmp_path), "--out", str(out)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "left out bell: its tokens do not map back to it" in result.output
    assert "1 documents, 1 spans" in result.output
    assert "; 1 the detector could not read left out" in result.output
    assert [json.loads(line)["id"] for line in out.read_text().splitlines()] == ["ok"]
