"""The options of `gen build`, checked when made: which spans and records a dataset keeps."""

from __future__ import annotations

from dataclasses import dataclass, field

from gen.core.errors import UsageError
from gen.core.packs import negative_labels
from gen.quality.filter import MinQuality

LABEL_SCHEMES = ("categories", "categories+pii", "binary")
OVERLAP_POLICIES = ("priority", "longest")
#: The source of spans a person labeled: RUN/gold, from `gen review pull` or `gen import --as gold`.
GOLD_SOURCE = "gold"
BUILD_SPAN_SOURCES = (
    GOLD_SOURCE,
    "planned",
    "llm_inline",
    "llm_sentences",
    "llm_censor",
    "detector",
    "faker",
)
BINARY_LABEL = "sensitive"


@dataclass(frozen=True)
class BuildOptions:
    seed: int = 0
    #: Wikipedia paragraphs as a fraction of documents (thesis: 5% worked best).
    negatives_share: float = 0.05
    include_queries: bool = True
    #: Take the translations of `gen translate` (RUN/translated) beside the labeled documents.
    include_translated: bool = True
    #: categories: GDPR category labels only; categories+pii: plus PII types;
    #: binary: every kept span becomes "sensitive".
    scheme: str = "categories+pii"
    #: Span sources to keep, by priority (the first wins an overlap under "priority").
    sources: tuple[str, ...] = BUILD_SPAN_SOURCES
    overlap: str = "priority"
    clean: bool = False
    exclude_flagged: bool = False
    #: Keep generated documents flagged `prompt_echo` (left out by default: they hold
    #: words of their prompt no real document has).
    keep_echoes: bool = False
    #: The quality scores (`gen score`) a generated document needs to be kept; None keeps all.
    min_quality: MinQuality | None = None
    #: Estimated Jaccard similarity above which a text is removed as a near-duplicate.
    dedup_threshold: float = 0.9
    #: Similarity above which texts are kept in one split (same `group`).
    group_threshold: float = 0.5
    #: Labels meaning "not sensitive" (categories.yaml): their spans carry nothing to learn
    #: and would turn sensitive under the binary scheme, so they are dropped.
    negative_labels: tuple[str, ...] = field(default_factory=negative_labels)

    def __post_init__(self) -> None:
        if self.scheme not in LABEL_SCHEMES:
            raise UsageError(
                f"unknown label scheme {self.scheme!r}; expected one of {LABEL_SCHEMES}"
            )
        if self.overlap not in OVERLAP_POLICIES:
            raise UsageError(
                f"unknown overlap policy {self.overlap!r}; expected {OVERLAP_POLICIES}"
            )
        unknown = set(self.sources) - set(BUILD_SPAN_SOURCES)
        if unknown or not self.sources:
            raise UsageError(
                f"span sources {sorted(unknown) or '(none)'} not allowed; "
                f"expected some of {BUILD_SPAN_SOURCES}"
            )
        if not 0 <= self.negatives_share < 1:
            raise UsageError(f"negatives share {self.negatives_share} must be in [0, 1)")
        for name in ("dedup_threshold", "group_threshold"):
            if not 0 < getattr(self, name) <= 1:
                raise UsageError(f"{name.replace('_', ' ')} must be in (0, 1]")
