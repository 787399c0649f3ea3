from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from gen.core.records import Span
from gen.text.words import word_spans
from labeling.agreement import agreement, cohen_kappa, f1, token_flags


def test_tokens_touched_by_a_span_are_positive() -> None:
    text = "Anna has asthma, sadly. Fine otherwise."
    spans = [Span(11, 19, "health")]  # "thma, sa": a word partly covered counts
    # Anna has asthma , sadly . Fine otherwise . (the words of eval and the exports)
    assert token_flags(text, spans) == [False, False, True, True, True] + [False] * 4
    assert token_flags(text, []) == [False] * 9


def test_agreement_counts_the_words_of_eval_and_the_exports() -> None:
    decomposed = unicodedata.normalize("NFD", "José Nuñez è malato. 他住院了。")
    words = word_spans(decomposed)
    assert len(token_flags(decomposed, [])) == len(words) == 10
    name = Span(0, decomposed.index("Nu") - 1, "PERSON")  # "José", marks included
    assert token_flags(decomposed, [name])[:2] == [True, False]


def test_kappa_and_f1_on_known_values() -> None:
    first = [True, True, False, False, False, False, True, False]
    second = [True, False, False, False, False, True, True, False]
    # observed 6/8; both mark 3/8 positive, so chance agreement is 34/64
    assert cohen_kappa(first, second) == pytest.approx((0.75 - 34 / 64) / (1 - 34 / 64))
    assert f1(first, second) == pytest.approx(2 * 2 / 6)
    assert cohen_kappa(first, first) == 1.0
    assert cohen_kappa([True, False], [False, True]) == -1.0


def test_undefined_cases_are_none_not_errors() -> None:
    assert cohen_kappa([], []) is None
    assert cohen_kappa([False, False], [False, False]) is None
    assert f1([False, False], [False, False]) is None
    assert cohen_kappa([False, False], [False, True]) == 0.0


def test_agreement_pools_the_tokens_of_all_documents() -> None:
    result = agreement(
        [
            ("one two three", [Span(0, 3, "x")], [Span(0, 3, "x")]),
            ("four five", [], [Span(5, 9, "x")]),
        ]
    )
    assert (result.documents, result.tokens) == (2, 5)
    assert (result.first_positive, result.second_positive) == (1, 2)
    assert result.f1 == pytest.approx(2 / 3)
    assert result.to_dict()["kappa"] == round(result.kappa, 4)


def test_a_strategy_that_found_nothing_has_nothing_to_compare(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Kappa 0.00 and F1 0.00 would read as total disagreement: with no sensitive token on
    one side there is nothing to compare, and the table says so."""
    from gen.cli.label import report
    from gen.core.runs import RunPaths
    from labeling.summary import LabelSummary

    one_sided = agreement([("one two three", [Span(0, 3, "x")], [])])
    assert (one_sided.kappa, one_sided.f1) == (None, None)
    assert agreement([("one two", [], [])]).to_dict()["kappa"] is None
    both = agreement([("one two three", [Span(0, 3, "x")], [Span(0, 7, "x")])])
    summary = LabelSummary(
        "sentences,censor",
        strategies=("sentences", "censor"),
        agreement={
            "sentences vs censor": {
                "health": one_sided.to_dict(),
                "judicial": both.to_dict(),
                "politic": agreement([("one two", [], [])]).to_dict(),
            }
        },
    )
    report(summary, RunPaths(tmp_path))
    lines = capsys.readouterr().out.splitlines()
    health = next(line for line in lines if "health" in line)
    assert "nothing to compare: censor marked no token" in health and "0.00" not in health
    politic = next(line for line in lines if "politic" in line)
    assert "nothing to compare: neither marked a token" in politic
    judicial = next(line for line in lines if "judicial" in line)
    assert judicial.split()[-2:] == ["0.40", "0.67"]
