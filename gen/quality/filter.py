"""`gen build --min-quality`: the quality scores a generated document needs to be kept.

Written `0.5` (every score), `real=0.5,facts=0.6` (those scores only) or `0.5,facts=0.7`.
A document is judged only on the questions it was asked (`gen.quality.questions`): `facts`
does not apply to a document without planned facts. A document that misses a threshold
(`low_quality`), whose answer to a named question failed (`quality_failed`), or that was
never scored (`unscored`) is removed with that reason and counted, never silently.
Records that are no generated document (gold, Wikipedia paragraphs, queries, imported
texts) are not scored and not filtered.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gen.core.pack_quality import QUESTIONS
from gen.core.records import Record
from gen.core.thresholds import parse_thresholds
from gen.quality.stored import FAILED_KEY, META_KEY, SCORED_SOURCE

_OPTION = "--min-quality"
_FORMAT = (
    "a score from 0 to 1 for every quality score (0.5), name=score pairs (real=0.5,facts=0.6) "
    "or both (0.5,facts=0.7)"
)
#: Why a document was removed by the filter.
LOW_QUALITY, QUALITY_FAILED, UNSCORED = "low_quality", "quality_failed", "unscored"
REASONS = (LOW_QUALITY, QUALITY_FAILED, UNSCORED)


@dataclass(frozen=True)
class MinQuality:
    #: (score name, threshold) pairs in `QUESTIONS` order: the scores that are checked.
    thresholds: tuple[tuple[str, float], ...] = ()

    def __str__(self) -> str:
        return ",".join(f"{name}={value:g}" for name, value in self.thresholds)

    @classmethod
    def parse(cls, text: str) -> MinQuality:
        """A MinQuality from the option as written; a usage error names what is wrong, an
        unknown score name first of all."""
        default, by_name = parse_thresholds(
            text, _OPTION, _FORMAT, QUESTIONS, kind="score name", unknown="no quality score"
        )
        values = dict.fromkeys(QUESTIONS, default) if default is not None else {}
        values.update(by_name)
        return cls(tuple((name, values[name]) for name in QUESTIONS if name in values))


def quality_problem(record: Record, minimum: MinQuality) -> tuple[str, str] | None:
    """(reason, detail) when `record` is a generated document that `minimum` removes."""
    if record.source != SCORED_SOURCE:
        return None
    if META_KEY not in record.meta:
        return UNSCORED, "no quality scores for this text in RUN/quality"
    scores = record.meta[META_KEY]
    failed = record.meta.get(FAILED_KEY) or {}
    low = [
        f"{name} {scores[name]:.2f} < {value:g}"
        for name, value in minimum.thresholds
        if name in scores and scores[name] < value
    ]
    if low:
        return LOW_QUALITY, "; ".join(low)
    unanswered = [f"{name}: {failed[name]}" for name, _ in minimum.thresholds if name in failed]
    if unanswered:
        return QUALITY_FAILED, "; ".join(unanswered)
    return None


def filter_quality(
    records: Sequence[Record], minimum: MinQuality | None
) -> tuple[list[Record], list[tuple[Record, str, str]]]:
    """(the records kept, (record, reason, detail) of each one removed)."""
    if minimum is None:
        return list(records), []
    kept: list[Record] = []
    removed: list[tuple[Record, str, str]] = []
    for record in records:
        problem = quality_problem(record, minimum)
        if problem is None:
            kept.append(record)
        else:
            removed.append((record, *problem))
    return kept, removed
