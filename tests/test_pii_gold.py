"""The PII gold set (bench/gold/pii.marked.txt): hand-written texts full of identifiers,
shaped unlike the query templates, with the coverage that makes it a fair test of a PII
detector and the labeling conventions of docs/gold.md ("The PII set") checked on every span.
That the JSONL files are the converted source is checked for every set in test_gold.py."""

from __future__ import annotations

import ipaddress
import re
from collections import Counter

import pytest
from gold_markup import GOLD_DIR, SPLITS
from stdnum import iban, luhn
from stdnum.it import codicefiscale

from gen.core.record_files import read_record_file
from gen.core.records import Record, check_spans
from scraping.queries.values import LABELS as QUERY_LABELS

#: The PII labels of the gold set are those a query can carry.
LABELS = set(QUERY_LABELS)
#: Spans of every label in each split; every label reaches it (the thinnest, PASSPORT,
#: CREDIT_CARD, BANK_ACCOUNT and HEALTH_INSURANCE_ID, have 5 or 6 per split).
MIN_SPANS_PER_SPLIT = 5
TITLE = re.compile(
    r"^(?:Dr|Mr|Mrs|Ms|Miss|Prof|Prof\.ssa|Dott|Dott\.ssa|Avv|Sig|Sig\.ra|Ing|Geom|Rag|don)\b",
    re.IGNORECASE,
)
EMAIL_SHAPE = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
URL_SHAPE = re.compile(r"\b(?:https?://|www\.)\S+")
MAC_SHAPE = re.compile(r"(?:[0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}")
CODICE_FISCALE_SHAPE = re.compile(r"[A-Z]{6}\d\d[A-Z]\d\d[A-Z]\d{3}[A-Z]")
CLOSING = {")": "(", '"': '"'}


@pytest.fixture(scope="module")
def by_split() -> dict[str, list[Record]]:
    return {
        split: read_record_file(GOLD_DIR / f"pii-{split}.jsonl", "GOLD file") for split in SPLITS
    }


@pytest.fixture(scope="module")
def pii(by_split: dict[str, list[Record]]) -> list[Record]:
    return [record for records in by_split.values() for record in records]


def values(records: list[Record], label: str) -> list[tuple[str, str]]:
    """(record id, covered text) of every span of `label`."""
    return [
        (record.id, record.text[span.start : span.end])
        for record in records
        for span in record.spans
        if span.label == label
    ]


def test_every_span_is_valid_tight_and_labeled_with_a_pii_label(pii: list[Record]) -> None:
    for record in pii:
        check_spans(record.text, record.spans, record_id=record.id)
        for span in record.spans:
            covered = record.text[span.start : span.end]
            assert span.label in LABELS, (record.id, span.label)
            assert covered == covered.strip(), (record.id, covered)
            last = covered[-1]
            closes = last in CLOSING and covered[:-1].count(CLOSING[last]) % 2 == 1
            assert last not in ".,;:!?)>\"'" or closes, (record.id, covered)
            assert covered[0] not in "<@\"'", (record.id, covered)


def test_size_languages_and_families(pii: list[Record]) -> None:
    languages = Counter(record.language for record in pii)
    assert len(pii) >= 200
    assert languages["en"] >= 90 and languages["it"] >= 90
    assert {record.category for record in pii} == {"other"}
    for language in languages:
        families = {record.doc_type for record in pii if record.language == language}
        assert len(families) >= 8, (language, families)
    assert all(record.id.startswith(f"pii-{record.language}-") for record in pii)


def test_every_label_in_both_splits(by_split: dict[str, list[Record]]) -> None:
    counts = Counter(
        (span.label, split)
        for split, records in by_split.items()
        for record in records
        for span in record.spans
    )
    for label in LABELS:
        for split in SPLITS:
            assert counts[label, split] >= MIN_SPANS_PER_SPLIT, (label, split)


def test_negatives_are_full_of_numbers_and_identify_no_one(pii: list[Record]) -> None:
    negatives = [record for record in pii if not record.spans]
    assert len(negatives) >= 30
    assert {record.language for record in negatives} == {"en", "it"}
    for record in negatives:
        assert sum(char.isdigit() for char in record.text) >= 6, record.id


def test_every_email_and_url_in_a_text_is_labeled(pii: list[Record]) -> None:
    """Negatives included: an office's e-mail address or website is labeled too."""
    for record in pii:
        for pattern, label in ((EMAIL_SHAPE, "EMAIL"), (URL_SHAPE, "URL")):
            for match in pattern.finditer(record.text):
                assert any(
                    span.label == label and span.start <= match.start() < span.end
                    for span in record.spans
                ), (record.id, match.group())


def test_identifier_values_follow_the_conventions(pii: list[Record]) -> None:
    for record_id, value in values(pii, "EMAIL"):
        assert EMAIL_SHAPE.fullmatch(value) and "mailto:" not in value, (record_id, value)
    for record_id, value in values(pii, "IP_ADDRESS"):
        assert ipaddress.ip_address(value), record_id  # raises on a port or brackets
    for record_id, value in values(pii, "MAC_ADDRESS"):
        assert MAC_SHAPE.fullmatch(value), (record_id, value)
    for record_id, value in values(pii, "PERSON"):
        assert not TITLE.match(value), (record_id, value)
    for record_id, value in values(pii, "USERNAME"):
        assert not value.startswith("@"), (record_id, value)


def test_check_digits_are_well_formed(pii: list[Record]) -> None:
    """Invented values, but well-formed: a detector that checks them must not be misled."""
    for record_id, value in values(pii, "IBAN"):
        assert iban.is_valid(value), (record_id, value)
    for record_id, value in values(pii, "CREDIT_CARD"):
        assert luhn.is_valid(re.sub(r"[ -]", "", value)), (record_id, value)
    fiscal_codes = [
        (record_id, value)
        for record_id, value in values(pii, "TAX_ID")
        if CODICE_FISCALE_SHAPE.fullmatch(value)
    ]
    assert len(fiscal_codes) >= 20
    for record_id, value in fiscal_codes:
        assert codicefiscale.is_valid(value), (record_id, value)


def test_the_hard_shapes_are_there(pii: list[Record]) -> None:
    ips = [ipaddress.ip_address(value) for _, value in values(pii, "IP_ADDRESS")]
    assert sum(ip.version == 6 for ip in ips) >= 8
    assert any("::" in value for _, value in values(pii, "IP_ADDRESS"))
    addresses = [value for _, value in values(pii, "ADDRESS")]
    assert sum("\n" in value for value in addresses) >= 10
    emails = [value for _, value in values(pii, "EMAIL")]
    assert sum("+" in value.split("@")[0] for value in emails) >= 5
    assert any(value.isupper() for value in emails)
    persons = [value for _, value in values(pii, "PERSON")]
    assert any(value.isupper() for value in persons)
    assert any(value.islower() for value in persons)
    assert any(re.search(r"\b[A-Z]\.\s?[A-Z]\.", value) for value in persons)
    # An address in port notation keeps its brackets and port outside the span.
    texts = "\n".join(record.text for record in pii)
    assert re.search(r"\[[0-9a-f:]+\]:\d+", texts)
