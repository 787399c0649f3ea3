from collections import Counter
from dataclasses import replace

import pytest
from build_fixtures import make_records

from gen.core.errors import UsageError
from gen.core.records import Record
from gen.dataset.splits import parse_ratios, split_records


def _records(count: int = 400) -> list[Record]:
    """Documents of 4 categories x 2 types; every 4th group holds two records (a persona)."""
    records = []
    for index in range(count):
        category = ["health", "politic", "judicial", "other"][index % 4]
        records.append(
            Record(
                id=f"r{index:04d}",
                text=f"text {index}",
                category=category,
                doc_type=f"{category}_{(index // 4) % 2}",
                language="en",
                source="llm",
                group=f"g{index // 2}" if index % 8 < 2 else f"g{index}",
            )
        )
    return records


def test_parse_ratios():
    assert parse_ratios("0.8,0.1,0.1") == {"train": 0.8, "dev": 0.1, "test": 0.1}
    assert parse_ratios("0.9,0.1") == {"train": 0.9, "test": 0.1}
    assert parse_ratios("1,0,0") == {"train": 1.0}
    for bad in ("0.8,0.1", "a,b,c", "0.5,0.5,0.5,0", "1.2,-0.2,0"):
        with pytest.raises(UsageError):
            parse_ratios(bad)


def test_splits_are_disjoint_by_id_and_group_and_complete():
    records = _records()
    splits = split_records(records, parse_ratios("0.8,0.1,0.1"), seed=3)
    ids = [r.id for members in splits.values() for r in members]
    assert sorted(ids) == sorted(r.id for r in records)
    groups = {name: {r.group for r in members} for name, members in splits.items()}
    assert not groups["train"] & groups["dev"]
    assert not groups["train"] & groups["test"]
    assert not groups["dev"] & groups["test"]


def test_splits_are_stratified_within_tolerance():
    splits = split_records(_records(), parse_ratios("0.8,0.1,0.1"), seed=3)
    total = Counter((r.category, r.doc_type) for members in splits.values() for r in members)
    for name, ratio in {"train": 0.8, "dev": 0.1, "test": 0.1}.items():
        counts = Counter((r.category, r.doc_type) for r in splits[name])
        for stratum, size in total.items():
            assert abs(counts[stratum] / size - ratio) <= 0.05, (name, stratum)


def test_splits_are_reproducible_and_depend_on_the_seed():
    records = _records()
    ratios = parse_ratios("0.8,0.1,0.1")
    first = split_records(records, ratios, seed=1)
    assert first == split_records(list(reversed(records)), ratios, seed=1)
    assert first != split_records(records, ratios, seed=2)


def test_holdout_doc_types_go_whole_to_test():
    records = _records()
    # a group that mixes a held-out type with another type goes to test as a whole
    records[1] = replace(records[1], doc_type="judicial_1", group="mixed")
    records[2] = replace(records[2], group="mixed")
    splits = split_records(records, parse_ratios("0.8,0.1,0.1"), 0, ["judicial_1"])
    test_ids = {r.id for r in splits["test"]}
    assert {r.id for r in records if r.doc_type == "judicial_1"} <= test_ids
    assert records[2].id in test_ids
    assert all(r.doc_type != "judicial_1" for r in splits["train"] + splits["dev"])
    assert splits["dev"], "the other types are still split"


def test_holdout_needs_known_types_and_a_test_split():
    records = _records(40)
    with pytest.raises(UsageError, match="not in the dataset"):
        split_records(records, parse_ratios("0.8,0.1,0.1"), 0, ["nope"])
    with pytest.raises(UsageError, match="test split"):
        split_records(records, parse_ratios("1,0,0"), 0, ["health_0"])


def test_fixture_run_splits_keep_personas_together():
    docs, _, _ = make_records()
    docs = [replace(r, group=r.persona["name"]) for r in docs]
    splits = split_records(docs, parse_ratios("0.6,0.2,0.2"), seed=0)
    owner = {r.group: name for name, members in splits.items() for r in members}
    assert all(owner[r.group] == name for name, members in splits.items() for r in members)
