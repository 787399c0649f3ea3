"""The `sentences` strategy's category modes (own, all) and answer modes (generated, scored)."""

from __future__ import annotations

from itertools import pairwise

import pytest
from fakes import ScriptedBackend
from label_fakes import (
    HEALTH_TEXT,
    JUDICIAL_TEXT,
    OTHER_TEXT,
    ScoringBackend,
    document,
    keyword_reply,
    user_text,
)
from label_fakes import labeler as make_labeler

from gen.backends.base import GenerationRequest
from gen.core.errors import UsageError
from gen.core.packs import load_language_pack
from gen.core.records import check_spans
from labeling.strategies import load_labeling
from labeling.strategies.outcome import FAILED, OK, SKIPPED
from labeling.strategies.unit_prompts import UnitPrompts

MIXED_TEXT = "Anna Verdi was convicted of theft in 2019. She has asthma. She likes tea."


def labeler(backend: ScriptedBackend, **options):  # type: ignore[no-untyped-def]
    """A sentences labeler; answers `auto` (scored where the backend can) unless told."""
    options.setdefault("answers", "auto")
    return make_labeler("sentences", backend, seed=3, **options)


def all_category_answer(request: GenerationRequest) -> str:
    """Numbered labels of the all-category prompt: the keyword's own category or other."""
    block = user_text(request.prompt).rsplit("Now label these sentences:\n", 1)[1]
    lines = [line.split(". ", 1)[1] for line in block.splitlines() if line.strip()]
    labels = []
    for line in lines:
        lower = line.lower()
        if "convicted" in lower or "theft" in lower:
            labels.append("judicial")
        elif any(word in lower for word in ("asthma", "diabetes", "insulin")):
            labels.append("health")
        else:
            labels.append("other")
    return "".join(f"{n}: {label}\n" for n, label in enumerate(labels, 1))


# -- prompts rendered from the YAML --------------------------------------------------------


@pytest.mark.parametrize("language", ["en", "it", "de", "es", "fr"])
def test_all_category_prompts_are_rendered_from_the_yaml(language: str) -> None:
    pack = load_language_pack(language)
    prompts = load_labeling(pack)
    texts = UnitPrompts(pack, prompts, "all")
    answers = texts.answers("health")
    labels = [pack.categories.categories[name].label for name in pack.categories.sensitive]
    assert answers.words == (*labels, "other") and answers.labels == (*labels, None)
    question = texts.question("health")
    for name in pack.categories.sensitive:
        line = f"{pack.categories.categories[name].label}: {prompts.categories[name].description}"
        assert line in question
    examples = texts.examples("health")
    config = prompts.sentences
    total = {example.text for items in config.examples.values() for example in items}
    assert {text for text, _ in examples} == total
    # the categories take turns, negatives spread among them: no answer twice in a row
    shown = [word for _, word in examples]
    assert all(first != second for first, second in pairwise(shown))
    assert shown[:2] == labels[:2] and set(shown) == {*labels, "other"}
    # the same prompt for a document of any category: one cached prefix for the language
    assert texts.unit_parts("health", "X") == texts.unit_parts("ethnic", "X")
    assert texts.numbered_parts("politic", ["X"]) == texts.numbered_parts("other", ["X"])


def test_own_category_prompt_keeps_the_thesis_question() -> None:
    pack = load_language_pack("en")
    texts = UnitPrompts(pack, load_labeling(pack), "own")
    assert texts.answers("judicial").words == ("JUDICIAL", "NON_JUDICIAL")
    question = texts.question("judicial")
    assert "arrests, convictions, sentences or other criminal proceedings" in question
    assert "Answer JUDICIAL if it does and NON_JUDICIAL if it does not." in question
    unit = texts.unit_parts("judicial", "He stole a car.")
    assert unit.instruction.endswith("Passage: He stole a car.")
    assert "Passage: In 2019 he was convicted of fraud" in unit.instruction
    assert "Label: JUDICIAL" in unit.instruction and unit.response_prefix == "Label:"


# -- every category in one pass ------------------------------------------------------------


def test_all_categories_label_each_unit_with_any_category() -> None:
    backend = ScriptedBackend(all_category_answer)
    outcome = labeler(backend, categories="all").label(document("d1", MIXED_TEXT, "health"))
    assert outcome.status == OK
    found = [(MIXED_TEXT[s.start : s.end], s.label) for s in outcome.spans]
    assert found == [
        ("Anna Verdi was convicted of theft in 2019", "judicial"),
        ("She has asthma", "health"),
    ]
    assert backend.requests[0].grammar.splitlines()[-1] == (
        'label ::= "health" | "politic" | "sexuality" | "judicial" | "philosophy" | "ethnic" '
        '| "other"'
    )


def test_own_mode_skips_negatives_and_all_mode_labels_them() -> None:
    backend = ScriptedBackend(all_category_answer)
    own = labeler(ScriptedBackend(keyword_reply)).label(document("o", OTHER_TEXT, "other"))
    assert own.status == SKIPPED and own.reason == "not_sensitive"
    every = labeler(backend, categories="all").label(document("o", OTHER_TEXT, "other"))
    assert every.status == OK and every.spans == [] and len(backend.requests) == 1


# -- scored answers ------------------------------------------------------------------------


def test_scored_answers_ask_one_question_per_unit_and_keep_the_probability() -> None:
    backend = ScoringBackend(confidence=0.8)
    outcome = labeler(backend).label(document("d1", HEALTH_TEXT, "health"))
    assert outcome.status == OK and backend.requests == []  # nothing generated
    assert len(backend.scored) == 5 == outcome.details["units"]
    assert outcome.details["answers"] == "scored"
    assert [(HEALTH_TEXT[s.start : s.end], s.score) for s in outcome.spans] == [
        ("Mario Rossi has had type 2 diabetes since 2015", pytest.approx(0.8)),
        ("He takes insulin every morning", pytest.approx(0.8)),
    ]
    check_spans(HEALTH_TEXT, outcome.spans)
    prompt, labels = backend.scored[0]
    assert labels == [" HEALTH", " NON_HEALTH"]  # the prompt ends with "Label:"
    # a form field's value is the unit: "Patient:" is left out
    assert prompt.endswith("Passage: Mario Rossi, born in Turin</user>\n<assistant>Label:")
    # everything before the unit is shared by every unit and every document of the category
    prefixes = {p[: p.rindex("Passage: ")] for p, _ in backend.scored}
    assert len(prefixes) == 1


def test_document_context_comes_once_before_each_unit_and_is_shared_by_its_units() -> None:
    backend = ScoringBackend(confidence=0.8)
    outcome = labeler(backend, context="document").label(document("d1", HEALTH_TEXT, "health"))
    assert [HEALTH_TEXT[s.start : s.end] for s in outcome.spans] == [
        "Mario Rossi has had type 2 diabetes since 2015",
        "He takes insulin every morning",
    ]
    prompts = [prompt for prompt, _ in backend.scored]
    assert all(prompt.count(HEALTH_TEXT) == 1 for prompt in prompts)
    assert all(p.index(HEALTH_TEXT) < p.rindex("Passage: ") for p in prompts)
    # the units of one document share everything up to their own passage
    assert len({p[: p.rindex("Passage: ")] for p in prompts}) == 1
    other = labeler(ScoringBackend(), context="document")
    other.label(document("d2", JUDICIAL_TEXT, "judicial"))
    assert JUDICIAL_TEXT in other.backend.scored[0][0]


def test_document_context_needs_its_template() -> None:
    pack = load_language_pack("en")
    texts = UnitPrompts(pack, load_labeling(pack, needed=("sentences",)), "own")
    texts.config = texts.config.model_copy(update={"unit_document_instruction": None})
    with pytest.raises(UsageError, match=r"--context document needs sentences\.unit_document_"):
        texts.unit_parts("health", "unit", "document")


def test_scored_all_categories_and_min_score() -> None:
    backend = ScoringBackend(confidence=0.6)
    mixed = document("d1", MIXED_TEXT, "other")
    outcome = labeler(backend, categories="all", min_score=0.0).label(mixed)
    assert [(s.label, s.score) for s in outcome.spans] == [
        ("judicial", pytest.approx(0.6)),
        ("health", pytest.approx(0.6)),
    ]
    assert backend.scored[0][1] == [
        " health",
        " politic",
        " sexuality",
        " judicial",
        " philosophy",
        " ethnic",
        " other",
    ]
    strict = labeler(ScoringBackend(confidence=0.6), categories="all", min_score=0.7)
    dropped = strict.label(mixed)
    assert dropped.spans == [] and dropped.details["weak_units_dropped"] == 2


def test_answers_mode_follows_the_backend() -> None:
    assert labeler(ScoringBackend()).scored
    assert not labeler(ScoringBackend(), answers="generated").scored
    assert not labeler(ScriptedBackend(keyword_reply)).scored
    with pytest.raises(UsageError, match="cannot score labels"):
        labeler(ScriptedBackend(keyword_reply), answers="scored")


def test_a_scoring_error_fails_the_document_with_its_reason() -> None:
    from gen.core.errors import ModelError

    class Broken(ScoringBackend):
        def label_logprobs(self, prompt, labels):  # type: ignore[no-untyped-def]
            raise ModelError("server gone")

    outcome = labeler(Broken()).label(document("d1", JUDICIAL_TEXT, "judicial"))
    assert outcome.status == FAILED and outcome.reason == "model_error"
    assert "server gone" in outcome.detail and outcome.spans == []


def test_clause_units_label_the_clause_not_the_sentence() -> None:
    text = "Anna Verdi works in a bakery in Milan, although she was convicted of theft in 2019."
    by_unit = {
        unit: labeler(ScoringBackend(), unit=unit).label(document("d", text, "judicial")).spans
        for unit in ("sentence", "clause")
    }
    assert [text[s.start : s.end] for s in by_unit["sentence"]] == [text[:-1]]
    assert [text[s.start : s.end] for s in by_unit["clause"]] == [
        "although she was convicted of theft in 2019"
    ]
