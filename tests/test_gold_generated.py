"""The generated group of the gold set: 28 documents a 1.5B model wrote with `gen documents`,
labeled by hand. Predictions are matched to them by id and text, so every text must be the
model's output exactly as it came (`generated-source.jsonl`), typos, placeholders and
final line breaks included; the spans follow the core set's guideline and labels."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from gold_markup import GOLD_DIR, SPLITS

from gen.core.record_files import read_record_file
from gen.core.records import Record, check_gold_spans

SOURCE = GOLD_DIR / "generated-source.jsonl"
#: Punctuation that closes a clause: a span never ends on it (docs/gold.md).
CLOSING = tuple(",;:!?")


@pytest.fixture(scope="module")
def generated() -> list[Record]:
    return [
        record
        for split in SPLITS
        for record in read_record_file(
            GOLD_DIR / f"generated-{split}.jsonl", "GOLD file", gold=True
        )
    ]


@pytest.fixture(scope="module")
def source() -> dict[str, dict]:
    """The model's documents as `gen documents` wrote them, by id."""
    rows = [json.loads(line) for line in SOURCE.read_text(encoding="utf-8").splitlines()]
    return {row["id"]: row for row in rows}


def test_texts_are_the_models_output_exactly(generated: list[Record], source) -> None:
    assert len(generated) == len(source) == 28
    assert sorted(record.id for record in generated) == sorted(source)
    for record in generated:
        row = source[record.id]
        assert record.text == row["text"], record.id
        assert (record.language, record.category, record.doc_type) == (
            row["language"],
            row["category"],
            row["doc_type"],
        ), record.id


def test_spans_are_valid_and_tight(generated: list[Record]) -> None:
    for record in generated:
        check_gold_spans(record.text, record.spans, record_id=record.id)
        for span in record.spans:
            covered = record.text[span.start : span.end]
            assert covered == covered.strip() and not covered.endswith(CLOSING), (
                record.id,
                covered,
            )


def test_labels_are_those_of_the_core_set(generated: list[Record]) -> None:
    core = {
        span.label
        for split in SPLITS
        for record in read_record_file(GOLD_DIR / f"gold-{split}.jsonl", "GOLD file")
        for span in record.spans
    }
    used = {span.label for record in generated for span in record.spans}
    assert used <= core, used - core


def test_every_language_and_category_is_in_both_splits() -> None:
    """Each (language, category) has one document in dev and one in test."""
    for split in SPLITS:
        records = read_record_file(GOLD_DIR / f"generated-{split}.jsonl", "GOLD file")
        strata = Counter((record.language, record.category) for record in records)
        assert len(strata) == 14 and set(strata.values()) == {1}, (split, strata)
