"""Grouped, stratified, reproducible train/dev/test splits.

A `group` (a document, its persona, its near-duplicate cluster) never spans two
splits, so a test score never rewards memorizing a training text. Groups are
stratified by their main (category, document type) and assigned greedily to the
split furthest below its target, within the stratum and overall.
"""

from __future__ import annotations

import math
import random
from collections import Counter, defaultdict
from collections.abc import Sequence

from gen.core.errors import UsageError
from gen.core.records import Record

SPLIT_NAMES = ("train", "dev", "test")


def parse_ratios(text: str) -> dict[str, float]:
    """ "0.8,0.1,0.1" -> {"train": 0.8, "dev": 0.1, "test": 0.1}; two numbers mean train,test."""
    try:
        values = [float(part) for part in text.split(",")]
    except ValueError:
        raise UsageError(f"--split {text!r}: expected numbers like 0.8,0.1,0.1") from None
    names = {2: ("train", "test"), 3: SPLIT_NAMES}.get(len(values))
    valid = all(v >= 0 for v in values) and math.isclose(sum(values), 1, abs_tol=1e-6)
    if names is None or not valid:
        raise UsageError(
            f"--split {text!r}: expected 2 or 3 non-negative fractions that sum to 1 "
            "(train,dev,test or train,test)"
        )
    return {name: value for name, value in zip(names, values, strict=True) if value > 0}


def _stratum(records: Sequence[Record]) -> tuple[str, str]:
    """The most common (category, doc_type) of a group; ties broken by name for reproducibility."""
    counts = Counter((r.category, r.doc_type) for r in records)
    return min(counts, key=lambda key: (-counts[key], key))


def split_records(
    records: Sequence[Record],
    ratios: dict[str, float],
    seed: int,
    holdout_doc_types: Sequence[str] = (),
) -> dict[str, list[Record]]:
    """Records per split; groups holding a held-out document type all go to "test"."""
    groups: dict[str, list[Record]] = defaultdict(list)
    for record in records:
        groups[record.group or record.id].append(record)
    assigned: dict[str, list[str]] = {name: [] for name in ratios}
    held = _held_out_groups(groups, ratios, set(holdout_doc_types))
    assigned.get("test", []).extend(held)

    strata: dict[tuple[str, str], list[str]] = defaultdict(list)
    for key, members in groups.items():
        if key not in held:
            strata[_stratum(members)].append(key)
    rng = random.Random(seed)
    overall: Counter[str] = Counter()
    overall_total = 0
    for stratum in sorted(strata):
        keys = sorted(strata[stratum])
        rng.shuffle(keys)
        keys.sort(key=lambda k: -len(groups[k]))  # big groups first, while targets are far
        local: Counter[str] = Counter()
        local_total = 0
        for key in keys:
            size = len(groups[key])
            local_total += size
            overall_total += size
            shortfall = {
                name: ratio * local_total - local[name] + ratio * overall_total - overall[name]
                for name, ratio in ratios.items()
            }
            chosen = max(shortfall, key=shortfall.__getitem__)
            local[chosen] += size
            overall[chosen] += size
            assigned[chosen].append(key)
    return {
        name: sorted((r for key in keys for r in groups[key]), key=lambda r: r.id)
        for name, keys in assigned.items()
    }


def _held_out_groups(
    groups: dict[str, list[Record]], ratios: dict[str, float], holdout: set[str]
) -> list[str]:
    if not holdout:
        return []
    if "test" not in ratios:
        raise UsageError("--holdout-doc-types needs a test split (a third --split fraction)")
    unknown = holdout - {r.doc_type for members in groups.values() for r in members}
    if unknown:
        raise UsageError(f"held-out document types {sorted(unknown)} are not in the dataset")
    return sorted(k for k, members in groups.items() if holdout & {r.doc_type for r in members})
