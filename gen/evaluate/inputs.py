"""The gold and predicted records `gen eval` compares, read and paired with one clear
message for anything that does not fit: which file (GOLD or PRED), which line or
record, and what was expected.

Texts are compared in NFC (a decomposed "José" is the same text as the precomposed
one); when the two sides differ only in normalization, the predicted spans are moved
onto the gold text's offsets, so every score counts the same characters on both sides.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from gen.core.errors import GenError, UsageError
from gen.core.record_files import read_record_file
from gen.core.records import Record, Span, check_gold_spans, check_spans
from gen.text.nfc import move_range, same_text

#: Source of predicted spans that name none (so `--by source` never calls them gold).
PRED_SOURCE = "pred"


@dataclass(frozen=True)
class DocumentPair:
    """One text with its gold and its predicted spans."""

    id: str
    text: str
    category: str
    gold: tuple[Span, ...]
    pred: tuple[Span, ...]


def read_gold_and_pred(gold_path: Path, pred_path: Path) -> tuple[list[Record], list[Record]]:
    """Both files' records; every row validated, messages naming GOLD or PRED and the file."""
    gold = read_record_file(gold_path, "GOLD file", gold=True)
    pred = read_record_file(pred_path, "PRED file", span_source=PRED_SOURCE)
    return gold, pred


def _id_list(ids: Iterable[str], limit: int = 10) -> str:
    ordered = sorted(ids)
    shown = ", ".join(ordered[:limit])
    return shown + (f" and {len(ordered) - limit} more" if len(ordered) > limit else "")


def _by_id(records: Sequence[Record], role: str) -> dict[str, Record]:
    counts = Counter(record.id for record in records)
    duplicates = [record_id for record_id, n in counts.items() if n > 1]
    if duplicates:
        raise UsageError(f"{role} has duplicate ids: {_id_list(duplicates)}")
    return {record.id: record for record in records}


def pair_records(gold: Sequence[Record], pred: Sequence[Record]) -> list[DocumentPair]:
    """Match records by id; both sides must hold the same ids, the same texts (compared in
    NFC: predicted spans move onto the gold text's offsets) and valid spans."""
    gold_by_id = _by_id(gold, "GOLD")
    pred_by_id = _by_id(pred, "PRED")
    missing = gold_by_id.keys() - pred_by_id.keys()
    if missing:
        raise UsageError(f"{len(missing)} GOLD ids are missing from PRED: {_id_list(missing)}")
    extra = pred_by_id.keys() - gold_by_id.keys()
    if extra:
        raise UsageError(f"{len(extra)} PRED ids are not in GOLD: {_id_list(extra)}")
    differing = [
        i for i, record in gold_by_id.items() if not same_text(record.text, pred_by_id[i].text)
    ]
    if differing:
        raise UsageError(
            f"texts differ between GOLD and PRED for {len(differing)} ids: {_id_list(differing)}"
        )
    pairs = []
    for record_id, record in gold_by_id.items():
        predicted = pred_by_id[record_id]
        pairs.append(
            DocumentPair(
                id=record_id,
                text=record.text,
                category=record.category,
                gold=tuple(_checked_spans(record, "GOLD")),
                pred=_moved(_checked_spans(predicted, "PRED"), predicted.text, record.text),
            )
        )
    return pairs


def _checked_spans(record: Record, role: str) -> list[Span]:
    """Valid spans; GOLD ones also as the labeling guideline asks (`check_gold_spans`)."""
    check = check_gold_spans if role == "GOLD" else check_spans
    try:
        check(record.text, record.spans, record_id=record.id)
    except GenError as exc:
        raise UsageError(f"{role}: {exc}") from None
    return record.spans


def _moved(spans: Sequence[Span], source: str, target: str) -> tuple[Span, ...]:
    """`spans` of `source` on the offsets of `target`, the same text in NFC."""
    if source == target:
        return tuple(spans)
    moved = []
    for span in spans:
        start, end = move_range(span.start, span.end, source, target)
        moved.append(replace(span, start=start, end=end))
    return tuple(moved)
