"""Metrics of `gen eval`: the thesis's worked example, entity schemes, pairing errors, CLI."""

from __future__ import annotations

import json
import re
import unicodedata
from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner

from gen.cli import main
from gen.core.errors import UsageError
from gen.core.record_files import read_record_file
from gen.core.records import Record, Span
from gen.core.store import write_records
from gen.evaluate.confusion import confusion_matrix
from gen.evaluate.counting import collapse, count_labels, token_label_sets
from gen.evaluate.entities import entity_schemes
from gen.evaluate.inputs import DocumentPair, pair_records
from gen.evaluate.report import render_text
from gen.evaluate.run import evaluate, evaluate_files, group_pairs
from gen.evaluate.scores import Counts
from gen.text.words import word_spans

FIXTURES = Path(__file__).parent / "fixtures" / "eval"
GOLD = FIXTURES / "gold.jsonl"
PRED = FIXTURES / "pred.jsonl"

WORDS = "w1 w2 w3 w4 w5 w6 w7 w8 w9 w10 w11"


def word_span(first: int, last: int, label: str, source: str = "gold") -> Span:
    """Span covering words `first`..`last` (1-based, inclusive) of WORDS."""
    tokens = word_spans(WORDS)
    return Span(tokens[first - 1][0], tokens[last - 1][1], label, source)


def record(record_id: str, text: str, spans: list[Span], category: str = "health") -> Record:
    return Record(record_id, text, category, "letter", "en", "gold", spans)


def test_thesis_worked_example_macro_micro_weighted_precision() -> None:
    # Eleven tokens: gold H on 3-5 and J on 8-9; predicted H on 2-4 and J on 8-9.
    gold = record("x", WORDS, [word_span(3, 5, "health"), word_span(8, 9, "judicial")])
    pred = record(
        "x",
        WORDS,
        [word_span(2, 4, "health", "llm_censor"), word_span(8, 9, "judicial", "llm_censor")],
    )
    report = evaluate([gold], [pred]).groups["all"]
    tokens = report.token_scores
    assert report.tokens == 11
    assert tokens.per_label["health"].tp == 2
    assert tokens.per_label["health"].fp == 1
    assert tokens.per_label["health"].fn == 1
    assert tokens.per_label["health"].precision == pytest.approx(float(Fraction(2, 3)))
    assert tokens.per_label["judicial"].precision == 1.0
    assert tokens.macro.precision == pytest.approx(float(Fraction(5, 6)))
    assert tokens.micro.precision == pytest.approx(float(Fraction(4, 5)))
    assert tokens.weighted.precision == pytest.approx(float(Fraction(4, 5)))


def test_negative_label_spans_count_as_unlabeled() -> None:
    with_other = record("x", WORDS, [word_span(1, 2, "other"), word_span(3, 3, "health")])
    without = record("x", WORDS, [word_span(3, 3, "health")])
    report = evaluate([with_other], [without]).groups["all"]
    assert report.labels == ["health"]
    assert report.token_scores.micro.f1 == 1.0


def test_token_belongs_to_every_span_it_overlaps() -> None:
    text = "heart attack, then rest"
    spans = [Span(2, 9, "health"), Span(19, 23, "other")]
    labels = token_label_sets(word_spans(text), spans, negative=["other"])
    # heart, attack, the comma, then, rest
    assert labels == [
        frozenset({"health"}),
        frozenset({"health"}),
        frozenset(),
        frozenset(),
        frozenset(),
    ]


def test_count_labels_and_binary_collapse() -> None:
    h, j = frozenset({"health"}), frozenset({"judicial"})
    sets = [(h, h), (h, j), (frozenset(), j), (h, frozenset())]
    counts = count_labels(sets)
    assert counts["health"] == Counts(tp=1, fp=0, fn=2)
    assert counts["judicial"] == Counts(tp=0, fp=2, fn=0)
    binary = count_labels(collapse(sets))
    assert binary["sensitive"] == Counts(tp=2, fp=1, fn=1)


def test_confusion_matrix_rows_gold_columns_predicted() -> None:
    h, j, none = frozenset({"health"}), frozenset({"judicial"}), frozenset()
    confusion = confusion_matrix([(h, h), (h, j), (none, j), (none, none)], ["health", "judicial"])
    assert confusion.labels == ["health", "judicial", "none"]
    assert confusion.matrix == [[1, 1, 0], [0, 0, 0], [0, 1, 1]]


def test_document_level_positive_when_label_present() -> None:
    gold = [
        record("a", WORDS, [word_span(1, 1, "health")]),
        record("b", WORDS, []),
        record("c", WORDS, [word_span(5, 6, "judicial")]),
    ]
    pred = [
        record("a", WORDS, [word_span(9, 9, "health", "llm_censor")]),
        record("b", WORDS, [word_span(2, 2, "health", "llm_censor")]),
        record("c", WORDS, []),
    ]
    report = evaluate(gold, pred).groups["all"]
    assert report.document_scores.per_label["health"].tp == 1
    assert report.document_scores.per_label["health"].fp == 1
    assert report.document_scores.per_label["judicial"].fn == 1
    assert (report.document_binary.tp, report.document_binary.fp, report.document_binary.fn) == (
        1,
        1,
        1,
    )
    # Token level the health spans never overlap.
    assert report.token_scores.per_label["health"].tp == 0


@pytest.mark.parametrize(
    ("pred_span", "expected"),
    [
        # Same edges, same label: correct everywhere.
        (Span(0, 10, "health"), {"strict": "cor", "exact": "cor", "partial": "cor", "type": "cor"}),
        # Same edges, other label.
        (
            Span(0, 10, "judicial"),
            {"strict": "inc", "exact": "cor", "partial": "cor", "type": "inc"},
        ),
        # Overlapping edges, same label.
        (Span(0, 5, "health"), {"strict": "inc", "exact": "inc", "partial": "par", "type": "cor"}),
        # No overlap: one spurious, one missing.
        (
            Span(20, 25, "health"),
            {"strict": "spu", "exact": "spu", "partial": "spu", "type": "spu"},
        ),
    ],
)
def test_entity_schemes_semeval(pred_span: Span, expected: dict[str, str]) -> None:
    text = "x" * 30
    pair = DocumentPair("d", text, "health", (Span(0, 10, "health"),), (pred_span,))
    schemes = entity_schemes([pair], ["health", "judicial"], negative=["other"])
    for scheme, outcome in expected.items():
        overall = schemes[scheme].overall
        assert getattr(overall, outcome) == 1, (scheme, overall)
        assert overall.mis == (1 if outcome == "spu" else 0)


def test_entity_partial_counts_half() -> None:
    pair = DocumentPair("d", "x" * 30, "health", (Span(0, 10, "health"),), (Span(0, 5, "health"),))
    assert entity_schemes([pair], ["health"], negative=[])["partial"].overall.precision == 0.5


def test_pairing_names_missing_and_differing_ids() -> None:
    gold = [record("a", "one text", []), record("b", "two text", [])]
    with pytest.raises(UsageError, match="missing from PRED: b"):
        pair_records(gold, [record("a", "one text", [])])
    with pytest.raises(UsageError, match="not in GOLD: z"):
        pair_records(gold[:1], [record("a", "one text", []), record("z", "x", [])])
    with pytest.raises(UsageError, match=r"texts differ .* for 1 ids: b"):
        pair_records(gold, [record("a", "one text", []), record("b", "two texts", [])])
    with pytest.raises(UsageError, match="duplicate ids: a"):
        pair_records([*gold, gold[0]], gold)


def test_pairing_rejects_span_outside_text() -> None:
    with pytest.raises(UsageError, match="PRED: record a: span 2-99"):
        pair_records([record("a", "one text", [])], [record("a", "one text", [Span(2, 99, "x")])])


def test_group_by_source_keeps_only_that_source() -> None:
    pairs = pair_records(read_record_file(GOLD), read_record_file(PRED))
    groups = group_pairs(pairs, "source")
    assert list(groups) == ["all", "llm_censor", "llm_sentences"]
    assert all(s.source == "llm_censor" for pair in groups["llm_censor"] for s in pair.pred)
    assert sum(len(pair.pred) for pair in groups["llm_censor"]) == 2
    by_category = group_pairs(pairs, "category")
    assert [p.id for p in by_category["judicial"]] == ["b"]


def test_no_spans_anywhere_scores_zero_without_error() -> None:
    report = evaluate([record("a", "plain words", [])], [record("a", "plain words", [])])
    all_docs = report.groups["all"]
    assert all_docs.labels == []
    assert all_docs.token_scores.micro.f1 == 0.0
    assert all_docs.entities["strict"].overall.cor == 0


def test_fixture_pair_all_schemes_and_text_table() -> None:
    evaluation = evaluate_files(GOLD, PRED, by="category")
    report = evaluation.groups["all"]
    assert report.documents == 3
    assert set(report.entities) == {"strict", "exact", "partial", "type"}
    # Wrong label on b's second sentence: the philosophy tokens were all predicted health.
    row = report.confusion.labels.index("philosophy")
    assert report.confusion.matrix[row][report.confusion.labels.index("health")] == 4
    text = render_text(evaluation)
    expected_parts = (
        "Summary by category",
        "weighted avg",
        "sensitive (binary)",
        "SPU",
        "F1 per label",
    )
    for expected in expected_parts:
        assert expected in text


def test_cli_json_reads_parquet_and_jsonl(tmp_path: Path) -> None:
    gold_parquet = tmp_path / "gold.parquet"
    write_records(gold_parquet, read_record_file(GOLD))
    result = CliRunner().invoke(
        main, ["eval", str(gold_parquet), str(PRED), "--by", "source", "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["by"] == "source"
    assert set(payload["groups"]) == {"all", "llm_censor", "llm_sentences"}
    strict = payload["groups"]["all"]["entities"]["strict"]["overall"]
    assert set(strict) >= {"cor", "inc", "par", "mis", "spu", "precision", "recall", "f1"}


def test_cli_table_output() -> None:
    result = CliRunner().invoke(main, ["eval", str(GOLD), str(PRED)])
    assert result.exit_code == 0, result.output
    assert "Entities (SemEval-2013 schemes)" in result.stdout
    assert "Summary by" not in result.stdout


def test_cli_mismatched_texts_exit_2_naming_ids(tmp_path: Path) -> None:
    changed = [
        Record.from_row({**r.to_row(), "text": r.text + "!"}) if r.id == "b" else r
        for r in read_record_file(PRED)
    ]
    pred = tmp_path / "pred.parquet"
    write_records(pred, changed)
    result = CliRunner().invoke(main, ["eval", str(GOLD), str(pred)])
    assert result.exit_code == 2
    assert "texts differ between GOLD and PRED for 1 ids: b" in result.stderr
    assert "Traceback" not in result.output


def test_cli_garbage_file_exit_2(tmp_path: Path) -> None:
    garbage = tmp_path / "pred.jsonl"
    garbage.write_text('{"id": "a", "text": "x"\n', encoding="utf-8")
    result = CliRunner().invoke(main, ["eval", str(GOLD), str(garbage)])
    assert result.exit_code == 2
    assert f"PRED file {garbage} line 1: not JSON" in result.stderr


GOOD = {"id": "a", "text": "Mario has asthma.", "spans": [{"start": 10, "end": 16, "label": "h"}]}


def write_jsonl(path: Path, row: dict, prefix: bytes = b"") -> Path:
    path.write_bytes(prefix + (json.dumps(row) + "\n").encode())
    return path


def run_eval(gold: Path, pred: Path):
    result = CliRunner().invoke(main, ["eval", str(gold), str(pred)])
    assert "Traceback" not in result.output
    return result


@pytest.mark.parametrize(
    ("pred_row", "message"),
    [
        (
            {**GOOD, "spans": [{"start": 10.7, "end": 16, "label": "h"}]},
            r"line 1: spans\.0\.start: expected an integer, got float 10\.7",
        ),
        (
            {"id": "a", "text": GOOD["text"], "span": GOOD["spans"]},
            r"line 1: span: unknown key \(expected some of id, text, .*spans",
        ),
        (
            {**GOOD, "spans": [{"start": 10, "end": 10, "label": "h"}]},
            r"record a: span 10-10 \(h\) is empty",
        ),
        (
            {
                **GOOD,
                "spans": [
                    {"start": 6, "end": 16, "label": "h"},
                    {"start": 10, "end": 17, "label": "h"},
                ],
            },
            r"record a: pred spans 6-16 \(h\) and 10-17 \(h\) overlap",
        ),
    ],
)
def test_pred_file_problems_name_the_file_line_and_key(
    tmp_path: Path, pred_row: dict, message: str
) -> None:
    gold = write_jsonl(tmp_path / "gold.jsonl", GOOD)
    pred = write_jsonl(tmp_path / "pred.jsonl", pred_row)
    result = run_eval(gold, pred)
    assert result.exit_code == 2
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(f"error: PRED file {pred}")
    assert re.search(message, line) and "outside the text" not in line


def test_gold_file_problems_say_gold(tmp_path: Path) -> None:
    overlapping = [{"start": 0, "end": 9, "label": "h"}, {"start": 6, "end": 16, "label": "h"}]
    gold = write_jsonl(tmp_path / "gold.jsonl", {**GOOD, "spans": overlapping})
    pred = write_jsonl(tmp_path / "pred.jsonl", GOOD)
    result = run_eval(gold, pred)
    assert result.exit_code == 2
    assert re.search(
        rf"GOLD file {gold} line 1: record a: gold spans 0-9 .* overlap", result.stderr
    )


def test_a_utf8_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    gold = write_jsonl(tmp_path / "gold.jsonl", GOOD, prefix="\ufeff".encode())
    pred = write_jsonl(tmp_path / "pred.jsonl", GOOD, prefix="\ufeff".encode())
    result = run_eval(gold, pred)
    assert result.exit_code == 0, result.output
    assert "Entities (SemEval-2013 schemes)" in result.stdout


def test_texts_equal_in_nfc_are_paired_and_spans_moved_onto_gold_offsets() -> None:
    composed = unicodedata.normalize("NFC", "José Nuñez è malato di diabete.")
    decomposed = unicodedata.normalize("NFD", composed)
    assert composed != decomposed

    def spans_on(text: str, source: str) -> list[Span]:
        start = text.index("diabete")
        return [
            Span(0, text.index(" N"), "PERSON", source),
            Span(start, start + len("diabete"), "health", source),
        ]

    gold = record("a", composed, spans_on(composed, "gold"))
    pred = record("a", decomposed, spans_on(decomposed, "llm_censor"))
    [pair] = pair_records([gold], [pred])
    assert pair.text == composed
    assert [(s.start, s.end) for s in pair.pred] == [(s.start, s.end) for s in gold.spans]
    report = evaluate([gold], [pred]).groups["all"]
    assert report.token_scores.micro.f1 == 1.0
    assert report.entities["strict"].overall.cor == 2
    with pytest.raises(UsageError, match="texts differ"):
        pair_records([gold], [record("a", decomposed.replace("malato", "malata"), [])])


#: Twelve labels of the length PII labels have: their matrix is wider than any terminal.
MANY_LABELS = [f"HEALTH_INSURANCE_ID_{letter}" for letter in "ABCDEFGHIJKL"]


def _many_label_files(folder: Path) -> tuple[Path, Path]:
    """Gold and predictions of 12 documents, one label each, every third one confused."""
    gold, pred = [], []
    for index, label in enumerate(MANY_LABELS):
        text = f"Card number {index}2345678 of the holder."
        wrong = MANY_LABELS[(index + 1) % len(MANY_LABELS)] if index % 3 == 0 else label
        for rows, name in ((gold, label), (pred, wrong)):
            span = {"start": 12, "end": 20, "label": name}
            rows.append({"id": str(index), "text": text, "spans": [span]})
    paths = folder / "gold.jsonl", folder / "pred.jsonl"
    for path, rows in zip(paths, (gold, pred), strict=True):
        path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return paths


@pytest.mark.parametrize("width", [80, 100, 160])
def test_the_confusion_table_never_cuts_a_label_or_a_count(tmp_path, width) -> None:
    gold, pred = _many_label_files(tmp_path)
    text = render_text(evaluate_files(gold, pred), width=width)
    assert "…" not in text
    assert max(map(len, text.splitlines())) <= width
    confusion = text.split("Token confusion", 1)[1]
    assert all(label in confusion for label in MANY_LABELS)
    assert re.search(r"HEALTH_INSURANCE_ID_A\s+HEALTH_INSURANCE_ID_B\s+1\b", confusion)


def test_gen_eval_follows_the_terminal_width(tmp_path) -> None:
    gold, pred = _many_label_files(tmp_path)
    for columns in (90, 400):
        result = CliRunner().invoke(
            main, ["eval", str(gold), str(pred)], env={"COLUMNS": str(columns)}
        )
        assert result.exit_code == 0, result.output
        assert max(map(len, result.output.splitlines())) <= columns
    header = [line for line in result.output.splitlines() if "gold \\ pred" in line]
    assert header and all(label in header[0] for label in MANY_LABELS), "a wide terminal"
