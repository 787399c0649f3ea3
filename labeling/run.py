"""`gen label`: read `RUN/documents`, label every document, write `RUN/labeled`.

Each labeled record is its document with `spans` filled: persona PII (`faker`) and the
sensitive passages found by the chosen strategies (`labeling.strategies`: one source each).
Documents are processed sorted by (language, category, id) in small batches, and each
strategy runs over a whole batch before the next, so consecutive prompts share their
few-shot prefix and llama.cpp does not re-read it.

Resumable: a document already in `RUN/labeled` is skipped, and a batch is written
only when it is complete, so a crash costs at most one batch. A strategy that fails
on a document (after one retry) still yields a labeled record, flagged
`<strategy>_failed`; its raw answers and the reason go to `RUN/rejects/label` with
id `<document id>:<strategy>`. A run folder is labeled with one set of strategies;
relabeling needs `--overwrite` (or another run folder).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

from gen import __version__
from gen.backends.streak import ErrorStreak
from gen.core.errors import GenError, UsageError
from gen.core.files import write_json_atomic
from gen.core.packs import LanguagePack, load_language_pack
from gen.core.progress import progress
from gen.core.records import Record
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from labeling.config import LabelingPrompts
from labeling.labeled import (
    STAGE,
    batches,
    check_same_strategies,
    labeled_record,
    labeling_order,
    previous_strategy,
    refused,
)
from labeling.options import LabelOptions
from labeling.strategies import (
    Labeler,
    LabelerSetup,
    load_labeling,
    parse_strategies,
    strategy,
)
from labeling.strategies.outcome import MODEL_ERROR, SKIPPED, StrategyOutcome
from labeling.summary import LabelSummary

__all__ = ["STAGE", "LabelOptions", "LabelSummary", "require_documents", "run"]


class LabelRun:
    """One invocation of `gen label` against a run folder."""

    def __init__(self, paths: RunPaths, options: LabelOptions) -> None:
        self.paths = paths
        self.options = options
        self.strategies = parse_strategies(options.strategy)
        #: The canonical form stored with every labeled record (resumes compare it).
        self.strategy_key = ",".join(self.strategies)
        self.packs: dict[str, LanguagePack] = {}
        self.prompts: dict[str, LabelingPrompts] = {}
        self.labelers: dict[tuple[str, str], Labeler] = {}
        self.summary = LabelSummary(strategy=self.strategy_key, strategies=self.strategies)
        self._errors = ErrorStreak()
        self.provenance: dict[str, Any] = {"backend": None, "model": None}
        needing = [name for name in self.strategies if strategy(name).needs_model]
        self.needs_model = bool(needing)
        if needing and options.backend is None and options.load_backend is None:
            raise UsageError(f"strategy {needing[0]} needs a model backend")

    # -- steps ---------------------------------------------------------------------------
    def execute(self) -> LabelSummary:
        started = time.perf_counter()
        documents = self.read_documents()
        if self.options.overwrite:
            self.clear()
        labeled = RecordTable(self.paths.labeled, shard=self.options.shard)
        check_same_strategies(
            previous_strategy(labeled.read()), self.strategy_key, self.paths.labeled
        )
        self.load_prompts(documents)
        rejects = RecordTable(self.paths.rejects(STAGE), shard=self.options.shard)
        labeling = False
        try:
            # Locked before the model loads: a second process on this run is refused at once.
            with labeled, rejects:
                self.build_labelers()
                labeling = True
                self.label_all(documents, labeled, rejects)
        except BaseException:
            # Record a partial run, but never in place of the error that stopped it (an
            # unwritable run folder fails the manifest too); a call refused before its first
            # document (model or labeler set-up) writes nothing.
            if labeling:
                with contextlib.suppress(GenError):
                    self.write_manifest(documents, started)
            raise
        self.write_manifest(documents, started)
        return self.summary

    def read_documents(self) -> list[Record]:
        documents = RecordTable(self.paths.documents).read()
        if not documents:
            raise _no_documents(self.paths)
        return documents

    def clear(self) -> None:
        for folder in (self.paths.labeled, self.paths.rejects(STAGE)):
            RecordTable(folder).drop()
        self.paths.manifest(STAGE).unlink(missing_ok=True)

    def load_prompts(self, documents: Sequence[Record]) -> None:
        """Load and check every language's prompts before anything is locked or loaded."""
        for language in sorted({d.language for d in documents}):
            pack = load_language_pack(language, self.options.prompts_dir)
            pack.formats.check_option(self.options.prompt_format)
            self.packs[language] = pack
            self.prompts[language] = load_labeling(pack, needed=self.strategies)
        for document in documents:
            known = self.packs[document.language].categories.categories
            if document.category not in known:
                raise UsageError(
                    f"document {document.id} has category {document.category!r}, which "
                    f"categories.yaml does not define (expected one of {', '.join(known)})"
                )

    def build_labelers(self) -> None:
        """Load the model if a strategy needs one and none was given, then build every
        labeler before any model call."""
        if self.needs_model and self.options.backend is None and self.options.load_backend:
            self.options = replace(self.options, backend=self.options.load_backend())
        backend = self.options.backend
        if backend is not None:
            self.provenance = {"backend": backend.name, "model": backend.model_id}
        for language, pack in self.packs.items():
            setup = LabelerSetup(pack, self.prompts[language], self.options)
            for name in self.strategies:
                self.labelers[(language, name)] = strategy(name).build(setup)

    def label_all(
        self, documents: Sequence[Record], labeled: RecordTable, rejects: RecordTable
    ) -> None:
        mine = [d for d in documents if self.options.shard.owns_key(d.id)]
        todo = labeling_order(mine, labeled.ids())
        backend = self.options.backend
        workers = max(1, backend.concurrency if backend else 1)
        model = backend.model_id if backend else None
        failures = 0
        with (
            progress(STAGE, len(mine), done=len(mine) - len(todo)) as bar,
            ThreadPoolExecutor(max_workers=workers) as pool,
        ):
            for batch in batches(todo, self.options.batch_size):
                outcomes = self.label_batch(batch, pool)
                self.check_backend(outcomes)
                records, refusals = [], []
                for document in batch:
                    refusals += refused(document, outcomes[document.id], model)
                    records.append(
                        labeled_record(
                            document,
                            outcomes[document.id],
                            self.strategy_key,
                            self.provenance,
                            self.packs[document.language].persona.titles,
                        )
                    )
                rejects.extend(refusals)
                labeled.extend(records)
                self.summary.new_labeled += len(records)
                failures += len(refusals)
                bar.advance(len(batch), failures=failures)

    def label_batch(
        self, batch: list[Record], pool: ThreadPoolExecutor
    ) -> dict[str, dict[str, StrategyOutcome]]:
        language = batch[0].language
        outcomes: dict[str, dict[str, StrategyOutcome]] = {d.id: {} for d in batch}
        for name in self.strategies:
            results = pool.map(self.labelers[(language, name)].label, batch)
            for document, outcome in zip(batch, results, strict=True):
                outcomes[document.id][name] = outcome
                self.summary.add_cost(outcome)
        return outcomes

    def check_backend(self, outcomes: dict[str, dict[str, StrategyOutcome]]) -> None:
        """Stop, without writing the batch, when the backend itself keeps failing."""
        for by_strategy in outcomes.values():
            for outcome in by_strategy.values():
                if outcome.reason == MODEL_ERROR:
                    self._errors.failed(outcome.detail)
                elif outcome.status != SKIPPED:
                    self._errors.succeeded()

    def write_manifest(self, documents: Sequence[Record], started: float) -> None:
        self.summary.wall_seconds = time.perf_counter() - started
        self.summary.documents = len(documents)
        self.summary.rejects = len(RecordTable(self.paths.rejects(STAGE)).ids())
        self.summary.tally(RecordTable(self.paths.labeled).read())
        options = self.options
        backend = options.backend
        manifest = self.summary.to_dict()
        manifest.update(
            backend=backend.describe() if backend else None,
            prompts_sha256={code: pack.files_sha256 for code, pack in self.packs.items()},
            options={
                "seed": options.seed,
                "context_tokens": options.context_tokens,
                "prompt_format": options.prompt_format,
                "batch_size": options.batch_size,
                "unit": options.unit,
                "categories": options.categories,
                "answers": options.answers,
                "min_score": str(options.min_score),
            },
            labeled_dir=str(self.paths.labeled),
            rejects_dir=str(self.paths.rejects(STAGE)),
            gen_version=__version__,
        )
        write_json_atomic(self.paths.manifest(STAGE, self.options.shard), manifest)


def _no_documents(paths: RunPaths) -> UsageError:
    return UsageError(
        f"no documents in {paths.documents}; run `gen documents --run {paths.root}` first"
    )


def require_documents(paths: RunPaths) -> None:
    """Fail before a model is loaded when there is nothing to label."""
    if not RecordTable(paths.documents).exists():
        raise _no_documents(paths)


def run(paths: RunPaths, options: LabelOptions) -> LabelSummary:
    """Label `paths.documents` into `paths.labeled` with the strategies of `options.strategy`."""
    return LabelRun(paths, options).execute()
