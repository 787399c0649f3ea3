"""The German, French and Spanish gold sets: hand-written per language, labeled with the
core set's guideline and labels, and each a fair test on its own (every category,
mixtures, negatives, forms and lists, every category in both splits)."""

from __future__ import annotations

from collections import Counter

import pytest
from gold_markup import GOLD_DIR, SPLITS
from test_gold import FIELD_LINE, LIST_ITEM, SENSITIVE, sensitive_labels

from gen.core.record_files import read_record_file
from gen.core.records import Record, check_spans

LANGUAGES = ("de", "fr", "es")
#: Each language writes with its own typography; an ASCII-only set would miss offsets
#: that shift with multi-byte characters and the spaces French puts before punctuation.
TYPOGRAPHY = {"de": ("„", "“"), "fr": ("«\u00a0", "\u00a0»", "\u202f?"), "es": ("¿", "¡")}


def read_split(name: str, split: str) -> list[Record]:
    return read_record_file(GOLD_DIR / f"{name}-{split}.jsonl", "GOLD file")


@pytest.fixture(scope="module")
def core_labels() -> set[str]:
    """Every label the English and Italian set uses: the other languages use no other."""
    return {span.label for split in SPLITS for r in read_split("gold", split) for span in r.spans}


@pytest.fixture(scope="module", params=LANGUAGES)
def language(request) -> tuple[str, dict[str, list[Record]]]:
    """One language and its records, by split."""
    code = request.param
    return code, {split: read_split(f"gold-{code}", split) for split in SPLITS}


def all_records(language) -> list[Record]:
    return [record for records in language[1].values() for record in records]


def test_spans_are_valid_and_tight(language) -> None:
    for record in all_records(language):
        check_spans(record.text, record.spans, record_id=record.id)
        for span in record.spans:
            covered = record.text[span.start : span.end]
            assert covered == covered.strip(), (record.id, covered)


def test_records_name_their_language_and_fit_the_length_range(language) -> None:
    code, _ = language
    records = all_records(language)
    assert len(records) >= 12
    assert len({record.id for record in records}) == len(records)
    for record in records:
        assert record.language == code and record.id.startswith(f"{code}-"), record.id
        assert 500 <= len(record.text) <= 2500, (record.id, len(record.text))
        if record.category in SENSITIVE:
            assert record.category in sensitive_labels(record), record.id


def test_labels_are_those_of_the_core_set(language, core_labels: set[str]) -> None:
    used = {span.label for record in all_records(language) for span in record.spans}
    assert used <= core_labels, used - core_labels
    assert {"PERSON", "DATE", "ADDRESS", "EMAIL", "PHONE", "NATIONAL_ID"} <= used


def test_every_category_is_a_main_category_and_a_label_in_both_splits(language) -> None:
    records = all_records(language)
    assert {record.category for record in records} >= SENSITIVE | {"other"}
    for split, split_records in language[1].items():
        labels = set().union(*(sensitive_labels(record) for record in split_records))
        assert labels == SENSITIVE, (split, SENSITIVE - labels)


def test_mixed_documents_and_negatives(language) -> None:
    records = all_records(language)
    assert sum(len(sensitive_labels(record)) >= 2 for record in records) >= 4
    negatives = [record for record in records if record.category == "other"]
    assert len(negatives) >= 3
    for record in negatives:
        assert not sensitive_labels(record), record.id


def test_form_values_and_list_items_are_labeled(language) -> None:
    """Sensitive spans that are exactly a `Field: value` value or a whole list item."""
    kinds: Counter[str] = Counter()
    for record in all_records(language):
        spans = {(s.start, s.end) for s in record.spans if s.label in SENSITIVE}
        for kind, pattern, group in (("form", FIELD_LINE, "value"), ("list", LIST_ITEM, "item")):
            lines = {m.span(group) for m in pattern.finditer(record.text)}
            kinds[kind] += bool(spans & lines)
    assert kinds["form"] >= 3 and kinds["list"] >= 3, kinds


def test_texts_use_the_language_typography(language) -> None:
    code, _ = language
    text = "".join(record.text for record in all_records(language))
    for mark in TYPOGRAPHY[code]:
        assert mark in text, (code, mark)
