from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fakes import ScriptedBackend
from label_fakes import (
    HEALTH_TEXT,
    JUDICIAL_TEXT,
    KEYWORD_LABELS,
    OTHER_TEXT,
    SENSITIVE_WORDS,
    TAGS,
    censor_answer,
    document,
    keyword_reply,
    user_text,
)
from label_fakes import labeler as make_labeler

from gen.backends.base import GenerationRequest
from gen.core.errors import ModelError, UsageError
from gen.core.packs import load_language_pack
from gen.text.sentences import split_sentences
from labeling.options import LabelOptions
from labeling.strategies import LabelerSetup, load_labeling
from labeling.strategies.censor import CensorLabeler
from labeling.strategies.outcome import FAILED, OK

ROOT = Path(__file__).resolve().parents[1]


def labeler(backend: ScriptedBackend, context_tokens: int = 4096) -> CensorLabeler:
    return make_labeler("censor", backend, context_tokens=context_tokens, seed=3)


def labeler_with(backend: ScriptedBackend, **options: object) -> CensorLabeler:
    return make_labeler("censor", backend, seed=3, **options)


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


def every_category_reply(request: GenerationRequest) -> str:
    """The document with each sensitive sentence replaced by its keyword's category tag."""
    text = user_text(request.prompt).rsplit("Document:\n", 1)[1]
    pieces, cursor = [], 0
    for start, end in split_sentences(text):
        match = SENSITIVE_WORDS.search(text[start:end])
        if match:
            pieces += [text[cursor:start], f"[{TAGS[KEYWORD_LABELS[match.group(1).lower()]]}]"]
            cursor = end
    return "".join(pieces) + text[cursor:]


def test_every_category_mode_tags_each_passage_with_its_own_category() -> None:
    backend = ScriptedBackend(every_category_reply)
    censor = labeler_with(backend, categories="all")
    mixed = HEALTH_TEXT + " " + JUDICIAL_TEXT
    outcome = censor.label(document("d1", mixed, "health"))
    assert outcome.status == OK
    found = {(mixed[s.start : s.end], s.label) for s in outcome.spans}
    assert ("Anna Verdi was convicted of theft in 2019", "judicial") in found
    assert ("He takes insulin every morning", "health") in found
    # A negative is asked too (it may disclose something after all), with the same prefix.
    negative = censor.label(document("d2", OTHER_TEXT, "other"))
    assert negative.status == OK and negative.spans == []
    first, second = (request.prompt for request in backend.requests)
    prefix = first[: first.rindex("Document:\n")]
    assert second.startswith(prefix)
    assert all(f"[{tag}]" in prefix for tag in TAGS.values())


def test_every_category_mode_without_its_prompt_is_a_usage_error(tmp_path: Path) -> None:
    prompts = tmp_path / "prompts"
    shutil.copytree(ROOT / "prompts", prompts)
    yaml_file = prompts / "en" / "labeling.yaml"
    text = yaml_file.read_text()
    start = text.index("  all_instruction:", text.index("\ncensor:"))
    end = text.index("  response_prefix:", start)
    yaml_file.write_text(text[:start] + text[end:])
    pack = load_language_pack("en", prompts)
    options = LabelOptions(
        strategy="censor", backend=ScriptedBackend(keyword_reply), categories="all"
    )
    setup = LabelerSetup(pack, load_labeling(pack, needed=("censor",)), options)
    with pytest.raises(UsageError, match=r"censor\.all_instruction .*labeling\.yaml"):
        CensorLabeler(setup)
