from __future__ import annotations

import pytest
from fakes import ScriptedBackend
from label_fakes import (
    HEALTH_TEXT,
    JUDICIAL_TEXT,
    document,
    keyword_reply,
    sentence_answer,
)
from label_fakes import labeler as make_labeler

from gen.backends.base import GenerationRequest
from gen.core.errors import UsageError
from gen.core.records import check_spans
from gen.text.sentences import split_sentences
from labeling.min_score import MinScore
from labeling.strategies.attempts import AnswerError
from labeling.strategies.numbered import group_units, labels_grammar, parse_labels
from labeling.strategies.outcome import FAILED, OK
from labeling.strategies.sentences import SentenceLabeler, unit_spans
from labeling.strategies.unit_prompts import answer_words

WORDS = ("HEALTH", "NON_HEALTH")


def labeler(backend: ScriptedBackend, context_tokens: int = 4096, **options) -> SentenceLabeler:
    return make_labeler("sentences", backend, context_tokens=context_tokens, seed=3, **options)


# -- the answer format ------------------------------------------------------------------


def test_answer_words_come_from_the_category_label() -> None:
    assert answer_words("health") == ("HEALTH", "NON_HEALTH")
    assert answer_words("sex-life data") == ("SEX_LIFE_DATA", "NON_SEX_LIFE_DATA")


@pytest.mark.parametrize(
    "answer",
    [
        "1: HEALTH\n2: NON_HEALTH\n3: HEALTH\n",
        "1. health\n2) non-health\n\n3 - Health",
        "  1 : HEALTH\r\n2:NON_HEALTH\r\n3: HEALTH",
    ],
)
def test_parse_accepts_numbered_labels_in_loose_spelling(answer: str) -> None:
    assert parse_labels(answer, 3, WORDS) == ["HEALTH", "NON_HEALTH", "HEALTH"]


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ("", "empty_answer"),
        ("   \n\n", "empty_answer"),
        ("1: HEALTH\n2: NON_HEALTH\n", "wrong_count"),
        ("1: HEALTH\n2: HEALTH\n3: HEALTH\n4: HEALTH\n", "wrong_count"),
        ("1: HEALTH\n3: NON_HEALTH\n2: HEALTH\n", "wrong_numbering"),
        ("1: HEALTH\n2: POLITIC\n3: HEALTH\n", "unknown_label"),
        ("Sure! Here are the labels:\n1: HEALTH\n", "unparseable_answer"),
        ("1: The patient has diabetes.\n", "unparseable_answer"),
        ("HEALTH\nNON_HEALTH\nHEALTH\n", "unparseable_answer"),
    ],
)
def test_parse_rejects_answers_of_the_wrong_shape(answer: str, reason: str) -> None:
    with pytest.raises(AnswerError) as caught:
        parse_labels(answer, 3, WORDS)
    assert caught.value.reason == reason


def test_grammar_has_exactly_k_numbered_lines_and_llama_cpp_accepts_it() -> None:
    grammar = labels_grammar(3, WORDS)
    assert grammar.splitlines()[0] == (
        'root ::= "1: " label "\\n" "2: " label "\\n" "3: " label "\\n"'
    )
    assert 'label ::= "HEALTH" | "NON_HEALTH"' in grammar
    from llama_cpp import LlamaGrammar

    assert LlamaGrammar.from_string(grammar, verbose=False) is not None


# -- grouping and spans -------------------------------------------------------------------


def test_groups_fill_the_budget_and_never_split_a_sentence() -> None:
    assert group_units([4, 4, 4, 4, 4], budget=10, max_per_group=10) == [
        range(0, 2),
        range(2, 4),
        range(4, 5),
    ]
    assert group_units([4, 4, 4], budget=100, max_per_group=2) == [range(0, 2), range(2, 3)]
    assert group_units([50, 1], budget=10, max_per_group=5) == [range(0, 1), range(1, 2)]
    assert group_units([], budget=10, max_per_group=5) == []


def test_sensitive_units_become_spans_and_neighbours_may_merge() -> None:
    text = "A is ill.  B is ill.\nC is fine. D is ill. E was jailed."
    ranges = split_sentences(text)
    verdicts = [("health", None), ("health", None), (None, None), ("health", None)]
    verdicts.append(("judicial", None))
    separate = unit_spans(text, ranges, verdicts)
    # Closing punctuation is left out, as in gold spans (units of gen.text.units come
    # without it; these are whole sentences).
    assert [text[s.start : s.end] for s in separate] == [
        "A is ill",
        "B is ill",
        "D is ill",
        "E was jailed",
    ]
    merged = unit_spans(text, ranges, verdicts, merge_adjacent=True)
    assert [(text[s.start : s.end], s.label) for s in merged] == [
        ("A is ill.  B is ill", "health"),
        ("D is ill", "health"),
        ("E was jailed", "judicial"),
    ]
    for spans in (separate, merged):
        check_spans(text, spans)
        assert {s.source for s in spans} == {"llm_sentences"}


def test_weak_scored_units_are_dropped_and_merged_spans_keep_the_lowest_score() -> None:
    text = "A is ill. B is ill. C is ill."
    ranges = split_sentences(text)
    verdicts = [("health", 0.9), ("health", 0.6), ("health", 0.4)]
    kept = unit_spans(text, ranges, verdicts, merge_adjacent=True, min_score=MinScore(0.5))
    assert [(text[s.start : s.end], s.score) for s in kept] == [("A is ill. B is ill", 0.6)]


def test_spans_are_trimmed_of_unmatched_quotes_and_markup_as_planned_spans_are() -> None:
    """A unit may start on a quote that closes in the next one, or carry the writer's HTML;
    a span keeps neither (a quote that closes inside it stays)."""
    text = '"I have diabetes, she said. <em>He votes Green</em><br> He said "no" to it.'
    units = ['"I have diabetes, she said', "<em>He votes Green</em><br>", 'He said "no" to it']
    ranges = [(text.index(unit), text.index(unit) + len(unit)) for unit in units]
    verdicts = [("health", None), ("politic", None), ("politic", None)]
    spans = unit_spans(text, ranges, verdicts)
    assert [text[s.start : s.end] for s in spans] == [
        "I have diabetes, she said",
        "He votes Green",
        'He said "no" to it',
    ]
    check_spans(text, spans)


# -- the labeler --------------------------------------------------------------------------


def test_labels_sentences_through_the_backend() -> None:
    backend = ScriptedBackend(keyword_reply)
    outcome = labeler(backend).label(document("d1", HEALTH_TEXT, "health"))
    assert outcome.status == OK
    assert [HEALTH_TEXT[s.start : s.end] for s in outcome.spans] == [
        "Mario Rossi has had type 2 diabetes since 2015",
        "He takes insulin every morning",
    ]
    assert all(span.score is None for span in outcome.spans)
    request = backend.requests[0]
    assert request.grammar == labels_grammar(5, WORDS)
    assert request.sampling.temperature == 0.0
    assert outcome.details == {
        "units": 5,
        "answers": "generated",
        "groups": 1,
        "sensitive_units": 2,
        "weak_units_dropped": 0,
    }


def test_few_shot_prefix_is_identical_for_every_document_of_a_category() -> None:
    backend = ScriptedBackend(keyword_reply)
    sentences = labeler(backend)
    sentences.label(document("d1", HEALTH_TEXT, "health"))
    sentences.label(document("d2", "Luca has asthma. He is fine otherwise.", "health"))
    sentences.label(document("d3", JUDICIAL_TEXT, "judicial"))
    first, second, third = (r.prompt for r in backend.requests)
    marker = "Now label these sentences:\n"
    assert first.index(marker) == second.index(marker)
    assert first[: first.index(marker)] == second[: second.index(marker)]
    assert "Since the accident she takes painkillers" in first[: first.index(marker)]
    assert third[: third.index(marker)] != first[: first.index(marker)]
    assert "Answer JUDICIAL if it does and NON_JUDICIAL" in third


def test_a_small_context_splits_the_document_into_numbered_groups() -> None:
    backend = ScriptedBackend(keyword_reply)
    fixed = labeler(backend).fixed_tokens("health", scored=False)
    small = labeler(backend, context_tokens=fixed + 90)
    backend.requests.clear()
    outcome = small.label(document("d1", HEALTH_TEXT, "health"))
    assert outcome.status == OK and outcome.details["groups"] > 1
    assert len(outcome.spans) == 2
    for request in backend.requests:
        block = request.prompt.rsplit("Now label these sentences:\n", 1)[1]
        assert block.startswith("1. ")


def test_a_context_too_small_for_the_examples_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="raise --ctx"):
        labeler(ScriptedBackend(keyword_reply), context_tokens=256).label(
            document("d1", HEALTH_TEXT, "health")
        )


def test_a_bad_answer_is_retried_once_with_another_seed() -> None:
    answers = iter(["I think sentence one is about health.", None])

    def reply(request: GenerationRequest) -> str:
        return next(answers) or sentence_answer(request.prompt)

    backend = ScriptedBackend(reply)
    outcome = labeler(backend).label(document("d1", HEALTH_TEXT, "health"))
    assert outcome.status == OK and len(outcome.spans) == 2
    first, retry = backend.requests
    assert first.seed != retry.seed
    assert retry.sampling.temperature == 0.7
    assert outcome.answers[0] == "I think sentence one is about health."


def test_two_bad_answers_fail_with_reason_and_raw_answers() -> None:
    backend = ScriptedBackend(lambda request: "1: HEALTH\n")
    outcome = labeler(backend).label(document("d1", HEALTH_TEXT, "health"))
    assert outcome.status == FAILED and outcome.reason == "wrong_count"
    assert outcome.spans == []
    assert outcome.answers == ["1: HEALTH\n", "1: HEALTH\n"]
    assert outcome.flag == "sentences_failed"
    assert "1 labels for 5 units" in outcome.detail


def test_a_threshold_per_label_keeps_a_low_scoring_category() -> None:
    text = "A is ill. B is gay. C was jailed."
    ranges = split_sentences(text)
    verdicts = [("health", 0.7), ("sexuality", 0.45), ("judicial", 0.85)]
    kept = unit_spans(text, ranges, verdicts, min_score=MinScore.parse("0.8,sexuality=0.4"))
    assert [(text[s.start : s.end], s.label) for s in kept] == [
        ("B is gay", "sexuality"),
        ("C was jailed", "judicial"),
    ]


@pytest.mark.parametrize(
    ("written", "expected"),
    [("0.8", MinScore(0.8)), (" 0.8 , sexuality=0.4 ", MinScore(0.8, (("sexuality", 0.4),)))],
)
def test_min_score_is_written_as_a_default_and_label_pairs(
    written: str, expected: MinScore
) -> None:
    assert MinScore.parse(written) == expected
    assert MinScore.parse(str(expected)) == expected


@pytest.mark.parametrize(
    ("written", "problem"),
    [
        ("x", "'x' is not a number"),
        ("0.8,0.7", "two default values"),
        ("sexuality=0.2", "no value for every label"),
        ("1.5", "not between 0 and 1"),
        ("0.8,=0.2", "an empty label"),
        ("0.8,health=0.2,health=0.3", "a repeated label"),
    ],
)
def test_a_bad_min_score_is_a_usage_error_naming_it(written: str, problem: str) -> None:
    with pytest.raises(UsageError, match=problem):
        MinScore.parse(written)


def test_a_min_score_for_an_unknown_label_is_refused_at_start() -> None:
    with pytest.raises(UsageError, match="astrology, not a sensitive category of the en pack"):
        labeler(ScriptedBackend(keyword_reply), min_score="0.8,astrology=0.1")
