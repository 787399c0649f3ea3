"""`gen label`: read `RUN/documents`, label every document, write `RUN/labeled`.

Each labeled record is its document with `spans` filled: persona PII (`faker`) and the
sensitive passages found by the chosen strategies (`llm_sentences`, `llm_censor`).
Documents are processed sorted by (language, category, id) in small batches, and each
strategy runs over a whole batch before the next, so consecutive prompts share their
few-shot prefix and llama.cpp does not re-read it.

Resumable: a document already in `RUN/labeled` is skipped, and a batch is written
only when it is complete, so a crash costs at most one batch. A strategy that fails
on a document (after one retry) still yields a labeled record, flagged
`<strategy>_failed`; its raw answers and the reason go to `RUN/rejects/label` with
id `<document id>:<strategy>`. A run folder is labeled with one `--strategy`;
relabeling needs `--overwrite` (or another run folder).
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from itertools import groupby
from pathlib import Path
from typing import Any, Protocol

from gen import __version__
from gen.backends.base import Backend
from gen.backends.streak import ErrorStreak
from gen.core.errors import GenError, UsageError
from gen.core.packs import LanguagePack, load_language_pack
from gen.core.progress import progress
from gen.core.records import Record, Span
from gen.core.runs import RunPaths
from gen.core.shards import WHOLE, Shard
from gen.core.store import RecordTable, write_json_atomic
from labeling import persona_pii
from labeling.agreement import agreement
from labeling.config import load_labeling
from labeling.persona_pii import persona_spans
from labeling.strategies import censor as censor_labeler
from labeling.strategies import sentences as sentence_labeler
from labeling.strategies.attempts import FAILED, FLAGGED, OK, SKIPPED, StrategyOutcome
from labeling.strategies.censor import CensorLabeler
from labeling.strategies.sentences import SentenceLabeler

LABELERS: dict[str, type[SentenceLabeler | CensorLabeler]] = {
    sentence_labeler.STRATEGY: SentenceLabeler,
    censor_labeler.STRATEGY: CensorLabeler,
}
STRATEGIES = tuple(LABELERS)
BOTH = "both"
STRATEGY_CHOICES = (*STRATEGIES, BOTH)
#: Span sources this stage writes; older spans of these sources are replaced.
LABEL_SOURCES = (persona_pii.SOURCE, sentence_labeler.SOURCE, censor_labeler.SOURCE)
#: Documents per batch: each strategy's prefix is read once per batch at worst, and a
#: crash loses at most this many documents of work.
BATCH_SIZE = 8
STAGE = "label"


class Labeler(Protocol):
    strategy: str

    def label(self, document: Record) -> StrategyOutcome: ...


@dataclass(frozen=True)
class LabelOptions:
    strategy: str = BOTH
    seed: int = 0
    #: The backend's context window, which sentence groups and documents must fit.
    context_tokens: int = 4096
    prompt_format: str | None = None
    overwrite: bool = False
    batch_size: int = BATCH_SIZE
    #: Shard K of N labels the documents whose id hashes to K (gen/core/shards.py).
    shard: Shard = WHOLE

    def __post_init__(self) -> None:
        if self.overwrite and not self.shard.whole:
            raise UsageError(
                "--overwrite cannot be combined with --shard: it would delete the labels of "
                "the other shards; delete RUN/labeled once, then start the shards"
            )

    @property
    def strategies(self) -> tuple[str, ...]:
        if self.strategy == BOTH:
            return STRATEGIES
        if self.strategy not in STRATEGIES:
            raise UsageError(
                f"unknown strategy {self.strategy!r}; expected one of {', '.join(STRATEGY_CHOICES)}"
            )
        return (self.strategy,)


@dataclass
class LabelSummary:
    """Counts over the whole labeled table (resumed runs included) plus this run's cost."""

    strategy: str
    documents: int = 0
    labeled: int = 0
    new_labeled: int = 0
    #: Per strategy: how many documents ended ok / flagged / failed / skipped.
    statuses: dict[str, Counter[str]] = field(default_factory=dict)
    #: Per strategy: why documents failed or were flagged.
    reasons: dict[str, Counter[str]] = field(default_factory=dict)
    spans: Counter[str] = field(default_factory=Counter)
    flags: Counter[str] = field(default_factory=Counter)
    rejects: int = 0
    #: Per category: token-level agreement of the two strategies (when both ran).
    agreement: dict[str, dict[str, Any]] = field(default_factory=dict)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model_seconds: float = 0.0
    wall_seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "strategy": self.strategy,
            "documents": self.documents,
            "labeled": self.labeled,
            "strategies": {
                name: {**self.statuses.get(name, {}), "reasons": dict(self.reasons.get(name, {}))}
                for name in self.statuses
            },
            "spans_by_source": dict(self.spans),
            "flags": dict(self.flags),
            "rejects": self.rejects,
            "agreement": self.agreement,
            "last_run": {
                "new_labeled": self.new_labeled,
                "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens,
                "model_seconds": round(self.model_seconds, 2),
                "wall_seconds": round(self.wall_seconds, 2),
            },
        }


def labeled_record(
    document: Record, outcomes: dict[str, StrategyOutcome], strategy: str, backend: Backend
) -> Record:
    """The document with its PII and sensitive spans, flags for distrusted strategies,
    and per-strategy status in `meta["labeling"]`."""
    kept = [span for span in document.spans if span.source not in LABEL_SOURCES]
    found = persona_spans(document.text, document.persona)
    for outcome in outcomes.values():
        found.extend(outcome.spans)
    spans = sorted(kept + found, key=lambda span: (span.start, span.end, span.source))
    flags = [*document.flags, *(o.flag for o in outcomes.values() if o.flag)]
    labeling = {
        "strategy": strategy,
        "backend": backend.name,
        "model": backend.model_id,
        "strategies": {name: outcome.summary() for name, outcome in outcomes.items()},
    }
    return dataclasses.replace(
        document, spans=spans, flags=flags, meta={**document.meta, "labeling": labeling}
    )


def reject_record(document: Record, outcome: StrategyOutcome, backend: Backend) -> Record:
    """A failed or flagged strategy answer, kept with its reason and raw answers."""
    return Record(
        id=f"{document.id}:{outcome.strategy}",
        text=document.text,
        category=document.category,
        doc_type=document.doc_type,
        language=document.language,
        source=document.source,
        persona=document.persona,
        model=backend.model_id,
        seed=document.seed,
        group=document.group or document.id,
        meta={
            "stage": STAGE,
            "document_id": document.id,
            "strategy": outcome.strategy,
            "status": outcome.status,
            "reason": outcome.reason,
            "detail": outcome.detail,
            "answers": outcome.answers,
        },
        flags=[outcome.flag] if outcome.flag else [],
    )


def batches(documents: Sequence[Record], size: int) -> Iterator[list[Record]]:
    """Runs of at most `size` documents sharing language and category (so one prompt prefix)."""
    for _, group in groupby(documents, key=lambda d: (d.language, d.category)):
        members = list(group)
        for start in range(0, len(members), size):
            yield members[start : start + size]


def previous_strategy(records: Iterable[Record]) -> str | None:
    for record in records:
        labeling = record.meta.get("labeling") or {}
        if labeling.get("strategy"):
            return str(labeling["strategy"])
    return None


class LabelRun:
    """One invocation of `gen label` against a run folder."""

    def __init__(
        self,
        run: RunPaths,
        backend: Backend,
        options: LabelOptions,
        prompts_dir: Path | None = None,
    ) -> None:
        self.run = run
        self.backend = backend
        self.options = options
        self.strategies = options.strategies
        self.prompts_dir = prompts_dir
        self.packs: dict[str, LanguagePack] = {}
        self.labelers: dict[tuple[str, str], Labeler] = {}
        self.summary = LabelSummary(strategy=options.strategy)
        self._errors = ErrorStreak()

    # -- preparation -------------------------------------------------------------
    def _documents(self) -> list[Record]:
        documents = RecordTable(self.run.documents).read()
        if not documents:
            raise _no_documents(self.run)
        return documents

    def _clear(self) -> None:
        for folder in (self.run.labeled, self.run.rejects(STAGE)):
            RecordTable(folder).drop()
        self.run.manifest(STAGE).unlink(missing_ok=True)

    def _check_strategy(self, labeled: Sequence[Record]) -> None:
        previous = previous_strategy(labeled)
        if previous and previous != self.options.strategy:
            raise UsageError(
                f"{self.run.labeled} was labeled with --strategy {previous}; re-run with "
                f"--strategy {previous} to resume, pass --overwrite to relabel everything, "
                "or use another --run folder"
            )

    def _prepare(self, documents: Sequence[Record]) -> None:
        """Load and check every language's prompts before any model call."""
        for language in sorted({d.language for d in documents}):
            pack = load_language_pack(language, self.prompts_dir)
            prompts = load_labeling(pack)
            self.packs[language] = pack
            for strategy in self.strategies:
                self.labelers[(language, strategy)] = LABELERS[strategy](
                    self.backend,
                    pack,
                    prompts,
                    context_tokens=self.options.context_tokens,
                    format_name=self.options.prompt_format,
                    seed=self.options.seed,
                )
        for document in documents:
            known = self.packs[document.language].categories.categories
            if document.category not in known:
                raise UsageError(
                    f"document {document.id} has category {document.category!r}, which "
                    f"categories.yaml does not define (expected one of {', '.join(known)})"
                )

    # -- labeling ----------------------------------------------------------------
    def execute(self) -> LabelSummary:
        started = time.perf_counter()
        documents = self._documents()
        if self.options.overwrite:
            self._clear()
        labeled = RecordTable(self.run.labeled, shard=self.options.shard)
        self._check_strategy(labeled.read())
        self._prepare(documents)
        rejects = RecordTable(self.run.rejects(STAGE), shard=self.options.shard)
        try:
            with labeled, rejects:
                self._label(documents, labeled, rejects)
        except BaseException:
            # Record the partial run, but never in place of the error that stopped it
            # (an unwritable run folder fails the manifest too).
            with contextlib.suppress(GenError):
                self._write_manifest(documents, started)
            raise
        self._write_manifest(documents, started)
        return self.summary

    def _label(
        self, documents: Sequence[Record], labeled: RecordTable, rejects: RecordTable
    ) -> None:
        done = labeled.ids()
        mine = [d for d in documents if self.options.shard.owns_key(d.id)]
        todo = sorted(
            (d for d in mine if d.id not in done), key=lambda d: (d.language, d.category, d.id)
        )
        failures = 0
        workers = max(1, self.backend.concurrency)
        with (
            progress(STAGE, len(mine), done=len(mine) - len(todo)) as bar,
            ThreadPoolExecutor(max_workers=workers) as pool,
        ):
            for batch in batches(todo, self.options.batch_size):
                outcomes = self._label_batch(batch, pool)
                self._check_backend(outcomes)
                records, refused = [], []
                for document in batch:
                    by_strategy = outcomes[document.id]
                    refused += [
                        reject_record(document, outcome, self.backend)
                        for outcome in by_strategy.values()
                        if outcome.status in (FAILED, FLAGGED)
                    ]
                    records.append(
                        labeled_record(document, by_strategy, self.options.strategy, self.backend)
                    )
                rejects.extend(refused)
                labeled.extend(records)
                self.summary.new_labeled += len(records)
                failures += len(refused)
                bar.advance(len(batch), failures=failures)

    def _label_batch(
        self, batch: list[Record], pool: ThreadPoolExecutor
    ) -> dict[str, dict[str, StrategyOutcome]]:
        language, category = batch[0].language, batch[0].category
        sensitive = self.packs[language].categories.categories[category].sensitive
        outcomes: dict[str, dict[str, StrategyOutcome]] = {d.id: {} for d in batch}
        for strategy in self.strategies:
            if sensitive:
                results = pool.map(self.labelers[(language, strategy)].label, batch)
            else:
                results = (
                    StrategyOutcome(strategy, SKIPPED, reason="not_sensitive") for _ in batch
                )
            for document, outcome in zip(batch, results, strict=True):
                outcomes[document.id][strategy] = outcome
                self.summary.prompt_tokens += outcome.prompt_tokens
                self.summary.completion_tokens += outcome.completion_tokens
                self.summary.model_seconds += outcome.seconds
        return outcomes

    def _check_backend(self, outcomes: dict[str, dict[str, StrategyOutcome]]) -> None:
        """Stop, without writing the batch, when the backend itself keeps failing."""
        for by_strategy in outcomes.values():
            for outcome in by_strategy.values():
                if outcome.reason == "model_error":
                    self._errors.failed(outcome.detail)
                elif outcome.status != SKIPPED:
                    self._errors.succeeded()

    # -- reporting ---------------------------------------------------------------
    def _tally(self, labeled: Sequence[Record]) -> None:
        summary = self.summary
        summary.labeled = len(labeled)
        pairs: dict[str, list[tuple[str, list[Span], list[Span]]]] = {}
        for record in labeled:
            strategies = (record.meta.get("labeling") or {}).get("strategies", {})
            for name, info in strategies.items():
                summary.statuses.setdefault(name, Counter())[info["status"]] += 1
                if info["status"] in (FAILED, FLAGGED):
                    summary.reasons.setdefault(name, Counter())[info.get("reason")] += 1
            summary.spans.update(span.source for span in record.spans)
            summary.flags.update(record.flags)
            answered = {n for n, info in strategies.items() if info["status"] in (OK, FLAGGED)}
            if answered >= set(STRATEGIES):
                label = self._category_label(record)
                pairs.setdefault(record.category, []).append(
                    (
                        record.text,
                        [
                            s
                            for s in record.spans
                            if s.source == sentence_labeler.SOURCE and s.label == label
                        ],
                        [
                            s
                            for s in record.spans
                            if s.source == censor_labeler.SOURCE and s.label == label
                        ],
                    )
                )
        summary.agreement = {
            category: agreement(triples).to_dict() for category, triples in sorted(pairs.items())
        }

    def _category_label(self, record: Record) -> str:
        pack = self.packs.get(record.language)
        info = pack.categories.categories.get(record.category) if pack else None
        return info.label if info else record.category

    def _write_manifest(self, documents: Sequence[Record], started: float) -> None:
        self.summary.wall_seconds = time.perf_counter() - started
        labeled = RecordTable(self.run.labeled).read()
        self.summary.documents = len(documents)
        self.summary.rejects = len(RecordTable(self.run.rejects(STAGE)).ids())
        self._tally(labeled)
        manifest = self.summary.to_dict()
        manifest.update(
            backend=self.backend.describe(),
            prompts_sha256={code: pack.files_sha256 for code, pack in self.packs.items()},
            options={
                "seed": self.options.seed,
                "context_tokens": self.options.context_tokens,
                "prompt_format": self.options.prompt_format,
                "batch_size": self.options.batch_size,
            },
            labeled_dir=str(self.run.labeled),
            rejects_dir=str(self.run.rejects(STAGE)),
            gen_version=__version__,
        )
        write_json_atomic(self.run.manifest(STAGE, self.options.shard), manifest)


def _no_documents(run: RunPaths) -> UsageError:
    return UsageError(
        f"no documents in {run.documents}; run `gen documents --run {run.root}` first"
    )


def require_documents(run: RunPaths) -> None:
    """Fail before a model is loaded when there is nothing to label."""
    if not RecordTable(run.documents).exists():
        raise _no_documents(run)


def label_documents(
    run: RunPaths, backend: Backend, options: LabelOptions, prompts_dir: Path | None = None
) -> LabelSummary:
    return LabelRun(run, backend, options, prompts_dir).execute()
