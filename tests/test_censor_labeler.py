from __future__ import annotations

from fakes import ScriptedBackend
from label_fakes import HEALTH_TEXT, JUDICIAL_TEXT, censor_answer, document, keyword_reply
from label_fakes import labeler as make_labeler

from gen.backends.base import GenerationRequest
from gen.core.errors import ModelError
from labeling.strategies.censor import CensorLabeler
from labeling.strategies.outcome import FAILED, OK


def labeler(backend: ScriptedBackend, context_tokens: int = 4096) -> CensorLabeler:
    return make_labeler("censor", backend, context_tokens=context_tokens, seed=3)


def test_tags_in_the_rewrite_become_spans_one_per_tag() -> None:
    backend = ScriptedBackend(keyword_reply)
    outcome = labeler(backend).label(document("d1", HEALTH_TEXT, "health"))
    assert outcome.status == OK
    # Two censored sentences, two adjacent tags: two spans, split at the full stop.
    assert [HEALTH_TEXT[s.start : s.end] for s in outcome.spans] == [
        "Mario Rossi has had type 2 diabetes since 2015",
        "He takes insulin every morning",
    ]
    assert {(s.label, s.source) for s in outcome.spans} == {("health", "llm_censor")}
    # Where one tag ends and the next begins is inferred: fuzzy edges, full score.
    assert outcome.details["quality"] == "fuzzy" and outcome.details["score"] == 1.0
    request = backend.requests[0]
    assert request.grammar is None
    assert "[HEALTH_DATA]" in request.prompt and request.prompt.endswith(
        HEALTH_TEXT + "</user>\n<assistant>"
    )


def test_prompt_prefix_depends_only_on_the_category() -> None:
    backend = ScriptedBackend(keyword_reply)
    censor = labeler(backend)
    censor.label(document("d1", HEALTH_TEXT, "health"))
    censor.label(document("d2", "Luca has asthma. He runs.", "health"))
    censor.label(document("d3", JUDICIAL_TEXT, "judicial"))
    first, second, third = (r.prompt for r in backend.requests)
    marker = "Document:\nPatient"
    prefix = first[: first.index(marker)]
    assert second.startswith(prefix) and "[JUDICIAL_DATA]" in third and not third.startswith(prefix)


def test_answer_budget_follows_the_document_length() -> None:
    backend = ScriptedBackend(keyword_reply)
    censor = labeler(backend)
    censor.label(document("d1", HEALTH_TEXT, "health"))
    censor.label(document("d2", HEALTH_TEXT * 3, "health"))
    short, long = (r.sampling.max_tokens for r in backend.requests)
    assert long > 2.5 * short - 50 and short >= len(HEALTH_TEXT) / 3.5 * 1.3


def test_an_unrelated_answer_is_retried_and_then_fails_with_the_raw_answers() -> None:
    backend = ScriptedBackend(lambda request: "I cannot help with that request.")
    outcome = labeler(backend).label(document("d1", HEALTH_TEXT, "health"))
    assert outcome.status == FAILED and outcome.reason == "alignment_failed"
    assert outcome.spans == [] and outcome.flag == "censor_failed"
    assert outcome.answers == ["I cannot help with that request."] * 2
    assert backend.requests[0].seed != backend.requests[1].seed


def test_a_good_retry_is_kept() -> None:
    def reply(request: GenerationRequest) -> str:
        first = len(backend.requests) == 1
        return "" if first else censor_answer(request.prompt)

    backend = ScriptedBackend(reply)
    outcome = labeler(backend).label(document("d1", HEALTH_TEXT, "health"))
    assert outcome.status == OK and len(outcome.spans) == 2
    assert outcome.answers[0] == ""


def test_model_errors_count_as_unusable_answers() -> None:
    def reply(request: GenerationRequest) -> str:
        raise ModelError("llama.cpp refused the request: too long")

    outcome = labeler(ScriptedBackend(reply)).label(document("d1", HEALTH_TEXT, "health"))
    assert outcome.status == FAILED and outcome.reason == "model_error"
    assert "too long" in outcome.detail


def test_a_document_longer_than_the_context_fails_without_asking() -> None:
    backend = ScriptedBackend(keyword_reply)
    outcome = labeler(backend, context_tokens=600).label(document("d1", HEALTH_TEXT * 8, "health"))
    assert outcome.status == FAILED and outcome.reason == "document_too_long"
    assert backend.requests == []
