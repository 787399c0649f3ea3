"""What `gen translate` reports: counts over every translation into the target language in
`RUN/translated` (resumed runs included), the rejects, and this run's cost."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from gen.core.records import Record
from gen.translate.carry import CARRIED
from gen.translate.stored import META_KEY


@dataclass
class TranslateSummary:
    language: str
    #: Records of the source, and those this command translates (the others are skipped).
    source_records: int = 0
    to_translate: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    translated: int = 0
    new_translated: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    new_rejected: int = 0
    #: Rejected records asked again (--retry-rejected).
    retried: int = 0
    #: Source spans of the translated records, and what became of each.
    spans: int = 0
    fates: Counter[str] = field(default_factory=Counter)
    extra: Counter[str] = field(default_factory=Counter)
    tag_problems: Counter[str] = field(default_factory=Counter)
    model_seconds: float = 0.0
    completion_tokens: int = 0
    wall_seconds: float = 0.0
    model: str | None = None

    @property
    def carried(self) -> int:
        return sum(self.fates[fate] for fate in CARRIED)

    @property
    def dropped(self) -> Counter[str]:
        return Counter({k: v for k, v in self.fates.items() if k not in CARRIED})

    def add_cost(self, seconds: float, tokens: int) -> None:
        self.model_seconds += seconds
        self.completion_tokens += tokens

    def tally(self, translated: Sequence[Record], rejected: Sequence[Record]) -> None:
        mine = [r for r in translated if r.language == self.language]
        self.translated = len(mine)
        self.spans = 0
        self.fates, self.extra, self.tag_problems = Counter(), Counter(), Counter()
        models = Counter()
        for record in mine:
            info = record.meta.get(META_KEY, {})
            self.spans += int(info.get("spans", 0))
            self.fates.update(info.get("fates", {}))
            self.extra.update(info.get("extra", {}))
            self.tag_problems.update(info.get("tag_problems", {}))
            models[record.model] += 1
        self.model = models.most_common(1)[0][0] if models else None
        self.rejected = Counter(
            r.meta.get("reason", "unknown")
            for r in rejected
            if r.meta.get("language") == self.language
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "language": self.language,
            "source_records": self.source_records,
            "to_translate": self.to_translate,
            "skipped": dict(self.skipped),
            "translated": self.translated,
            "new_translated": self.new_translated,
            "rejected": dict(self.rejected),
            "retried": self.retried,
            "spans": self.spans,
            "carried": self.carried,
            "fates": dict(self.fates),
            "extra": dict(self.extra),
            "tag_problems": dict(self.tag_problems),
            "model": self.model,
            "model_seconds": round(self.model_seconds, 2),
            "completion_tokens": self.completion_tokens,
            "wall_seconds": round(self.wall_seconds, 2),
        }
