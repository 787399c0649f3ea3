"""Which documents a reviewer sees first: a stratified sample that favours doubt.

Every record gets a priority from three signals of the labelers' own doubt:
a flag (alignment_low, a failed strategy...), disagreement between two LLM
strategies on the same document (1 - token F1, as in `gen label`'s agreement),
and a low span score (1 - the lowest score). The strata (each label, category
or flag) then take turns, each taking its most doubtful record not yet chosen,
so a sample of N covers every stratum before it gives any a second document.
Ties are broken by a seeded hash of the id: the same command picks the same
sample, which is what makes pushing it twice harmless.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from typing import Literal

from gen.core.records import Record
from labeling.agreement import f1, token_flags

Stratify = Literal["label", "category", "flag", "none"]
STRATA: tuple[Stratify, ...] = ("category", "label", "flag", "none")
#: Stratum of records without a label or a flag.
NOTHING = "(none)"


def disagreement(record: Record) -> float:
    """1 - token F1 between the first two LLM span sources (0 when fewer than two)."""
    sources = sorted({s.source for s in record.spans if s.source.startswith("llm_")})
    if len(sources) < 2:
        return 0.0
    first, second = (
        token_flags(record.text, [s for s in record.spans if s.source == source])
        for source in sources[:2]
    )
    score = f1(first, second)
    return 0.0 if score is None else 1.0 - score


def low_score(record: Record) -> float:
    scores = [s.score for s in record.spans if s.score is not None and math.isfinite(s.score)]
    return 1.0 - min(scores) if scores else 0.0


def priority(record: Record) -> float:
    """Higher means more doubtful: flagged (1) + disagreement (0..1) + low score (0..1)."""
    return (1.0 if record.flags else 0.0) + disagreement(record) + low_score(record)


def strata(record: Record, stratify: Stratify) -> list[str]:
    if stratify == "category":
        return [record.category or NOTHING]
    if stratify == "label":
        return sorted({s.label for s in record.spans}) or [NOTHING]
    if stratify == "flag":
        return sorted(set(record.flags)) or [NOTHING]
    return [NOTHING]


def tie_break(record_id: str, seed: int) -> str:
    """A seeded order of ids: the same seed gives the same sample, another seed another."""
    return hashlib.sha256(f"{seed}:{record_id}".encode()).hexdigest()


def sample_records(
    records: Sequence[Record], n: int, stratify: Stratify = "category", seed: int = 0
) -> list[Record]:
    """Up to `n` records, strata taking turns, most doubtful first within each."""
    ranked = sorted(records, key=lambda r: (-priority(r), tie_break(r.id, seed)))
    queues: dict[str, list[Record]] = {}
    for record in ranked:
        for name in strata(record, stratify):
            queues.setdefault(name, []).append(record)
    chosen: dict[str, Record] = {}
    positions = dict.fromkeys(queues, 0)
    wanted = min(n, len({record.id for record in records}))
    while len(chosen) < wanted:
        for name in sorted(queues):
            queue = queues[name]
            while positions[name] < len(queue) and queue[positions[name]].id in chosen:
                positions[name] += 1
            if positions[name] < len(queue) and len(chosen) < wanted:
                record = queue[positions[name]]
                chosen[record.id] = record
    return list(chosen.values())
