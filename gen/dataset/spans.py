"""Which spans a dataset keeps: the chosen sources, sensitive labels only, the label
scheme, and one label per character where sources overlap.

Pure functions over spans, used by `gen.dataset.assemble` on every record; a record whose
spans still fail `check_dataset_spans` is rejected with the reason, never written.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from gen.core.errors import InvalidSpanError
from gen.core.records import Record, Span, check_spans, overlapping_pair
from gen.dataset.options import BINARY_LABEL, BuildOptions


def is_pii_label(label: str) -> bool:
    """PII types are uppercase (PERSON, IBAN); GDPR categories lowercase (health)."""
    return label.isupper()


def relabel(spans: Sequence[Span], options: BuildOptions, dropped: Counter[str]) -> list[Span]:
    """Keep the chosen sources and sensitive labels, apply the label scheme, and resolve
    overlaps between sources."""
    kept = []
    for span in spans:
        if span.source not in options.sources:
            dropped["source"] += 1
        elif span.label in options.negative_labels:
            dropped["negative"] += 1
        elif options.scheme == "categories" and is_pii_label(span.label):
            dropped["scheme"] += 1
        elif options.scheme == "binary":
            kept.append(replace(span, label=BINARY_LABEL))
        else:
            kept.append(span)
    resolved = resolve_overlaps(kept, options.sources, options.overlap)
    dropped["overlap"] += len(kept) - len(resolved)
    return resolved


def resolve_overlaps(spans: Sequence[Span], priority: Sequence[str], policy: str) -> list[Span]:
    """Non-overlapping spans: the higher-priority source (or the longer span) wins."""
    rank = {source: index for index, source in enumerate(priority)}
    if policy == "longest":
        order = sorted(spans, key=lambda s: (s.start - s.end, rank[s.source], s.start))
    else:
        order = sorted(spans, key=lambda s: (rank[s.source], s.start, s.end))
    accepted: list[Span] = []
    for span in order:
        if not any(span.overlap(other.start, other.end) for other in accepted):
            accepted.append(span)
    return sorted(accepted, key=lambda s: (s.start, s.end))


def check_dataset_spans(record: Record) -> None:
    """Valid spans (check_spans) that also never overlap across sources: one tag per character."""
    check_spans(record.text, record.spans, record_id=record.id)
    pair = overlapping_pair(record.spans)
    if pair:
        left, right = pair
        raise InvalidSpanError(
            f"record {record.id}: spans {left.start}-{left.end} and "
            f"{right.start}-{right.end} overlap"
        )
