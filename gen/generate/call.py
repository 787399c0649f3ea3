"""One call of `gen documents`: requests in flight, each answer judged and stored.

Requests run in a pool of `backend.concurrency` threads while documents are missing and
the attempt budget lasts; every finished one is judged (`gen.generate.records`) and
stored as it completes, in the tables the stage (`gen.generate.run`) holds open. An answer
that holds an echo of its prompt (`gen.generate.echo`) is written once more, with another
seed, before any new item (`gen.generate.again`). When the
model writes planned facts of an item (`--facts model|mixed`), that item's facts requests run
first in the same worker. A call that ends, however it ends, is appended to the plan's
history in the manifest.
"""

from __future__ import annotations

import contextlib
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import asdict
from itertools import islice
from typing import Any

from gen.backends.base import Backend
from gen.backends.streak import ErrorStreak
from gen.core.errors import GenError
from gen.core.packs import LanguagePack
from gen.core.progress import ProgressReporter, progress
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from gen.generate.again import WriteAgain
from gen.generate.call_entry import call_entry
from gen.generate.diagnosis import RunSettings, diagnose
from gen.generate.echo import EchoCheck
from gen.generate.manifest import append_run, new_run_id
from gen.generate.model_facts import FACTS_FAILED
from gen.generate.options import DocumentsOptions
from gen.generate.placed_facts import DISCLOSURE_MISSING, FactPlacer
from gen.generate.plan import PlanItem, plan_item
from gen.generate.preflight import CHECKED_PROMPTS, TokenLimit, check_context
from gen.generate.records import STAGE, Answer, facts_failed, failed_request, judge
from gen.generate.requests import Prompter
from gen.generate.resume import Resume
from gen.generate.summary import COMPLETE, FAILED, INTERRUPTED, SHORT, DocumentsSummary
from gen.generate.writing import ItemWriter, Written
from labeling.strategies.inline import InlineLabels

#: Give up on a plan after this many attempts per wanted document.
MAX_ATTEMPTS_PER_DOCUMENT = 3


class DocumentCall:
    """The generation of one call: requests in flight, answers judged and stored."""

    def __init__(
        self,
        paths: RunPaths,
        pack: LanguagePack,
        backend: Backend,
        options: DocumentsOptions,
        limit: TokenLimit,
        state: Resume,
    ) -> None:
        self.paths = paths
        self.pack = pack
        self.backend = backend
        self.options = options
        self.spec = options.spec
        self.limit = limit
        self.state = state
        self.inline = InlineLabels.of(pack) if options.inline_labels else None
        disclosures = self.spec.disclosures
        self.placer = (
            FactPlacer(pack, disclosures, required=options.require_disclosures)
            if disclosures
            else None
        )
        self.prompter = Prompter(
            pack,
            backend,
            prompt_format=options.prompt_format,
            limit=limit,
            inline=self.inline,
        )
        self.run_id = new_run_id()
        self.summary = DocumentsSummary(self.spec.key, options.n, options.shard, state.accepted)
        self.errors = ErrorStreak()
        self.budget = (self.summary.wanted - state.accepted) * MAX_ATTEMPTS_PER_DOCUMENT
        self.workers = max(1, backend.concurrency)
        self._indexes = state.pending()
        shapes = self.spec.shapes
        self.echo = EchoCheck.of(
            pack,
            facts=self.spec.disclosures is not None,
            shapes=shapes is not None and bool(shapes.layout_share or shapes.topic_share),
        )
        #: Items whose answer held an echo of the prompt; their attempts are taken from the
        #: budget when they are queued.
        self.again = WriteAgain()
        #: Set when the call stops (Ctrl-C, a failure): the requests in flight are abandoned
        #: at the engine's next token, and the workers send no other.
        self._stopping = threading.Event()
        self.writer = ItemWriter(pack, self.spec, backend, self.prompter, self._stopping)

    @property
    def settings(self) -> RunSettings:
        return RunSettings(
            limit=self.limit,
            min_chars=self.pack.generation.checks.min_chars,
            n_ctx=self.options.backend.n_ctx,
            language=self.spec.language,
            rejects=self.paths.rejects(STAGE),
            fact_style=self.spec.disclosures.style if self.spec.disclosures else None,
        )

    def check_context(self) -> None:
        """Refuse before the first request when the first prompts do not fit --ctx."""
        first = islice(self.state.pending(), min(self.budget, CHECKED_PROMPTS))
        items = [plan_item(self.pack, self.spec, index) for index in first]
        prompts = [(item.id, self.prompter.render(item).text, item.words) for item in items]
        check_context(self.backend, prompts, self.limit, self.options.backend.n_ctx)

    def execute(self, documents: RecordTable, rejects: RecordTable) -> DocumentsSummary:
        """Generate into the open `documents` and `rejects` tables, and record the call."""
        started = time.perf_counter()
        summary = self.summary
        try:
            self._generate(documents, rejects)
        except BaseException as exc:
            summary.status = INTERRUPTED if isinstance(exc, KeyboardInterrupt) else FAILED
            summary.wall_seconds = time.perf_counter() - started
            # Record the partial call, but never in place of the error that stopped it
            # (an unwritable run folder fails the manifest too).
            with contextlib.suppress(GenError):
                self._record()
            raise
        summary.status = SHORT if summary.accepted < summary.wanted else COMPLETE
        if summary.short:
            summary.diagnosis = diagnose(summary, self.settings)
        summary.wall_seconds = time.perf_counter() - started
        self._record()
        return summary

    def _generate(self, documents: RecordTable, rejects: RecordTable) -> None:
        in_flight: dict[Future[Written], PlanItem] = {}
        with (
            progress(STAGE, self.summary.wanted, done=self.summary.accepted) as bar,
            ThreadPoolExecutor(max_workers=self.workers) as pool,
        ):
            try:
                self._submit(pool, in_flight)
                while in_flight:
                    finished, _ = wait(in_flight, return_when=FIRST_COMPLETED)
                    for future in finished:
                        item = in_flight.pop(future)
                        self._collect(item, future, documents, rejects, bar)
                    self._submit(pool, in_flight)
            except BaseException:
                self._stopping.set()
                for future in in_flight:
                    future.cancel()
                raise

    def _submit(self, pool: ThreadPoolExecutor, in_flight: dict[Future[Written], Any]) -> None:
        """Send requests while documents are missing, the budget lasts and a worker is free;
        the documents to write again first."""
        while self.again and len(in_flight) < self.workers:
            item, facts = self.again.next()
            in_flight[pool.submit(self.writer.write, item, facts)] = item
        while (
            self.summary.accepted + len(in_flight) + len(self.again) < self.summary.wanted
            and self.budget > 0
            and len(in_flight) < self.workers
        ):
            item = plan_item(self.pack, self.spec, next(self._indexes))
            in_flight[pool.submit(self.writer.write, item)] = item
            self.budget -= 1

    def _collect(
        self,
        item: PlanItem,
        future: Future[Written],
        documents: RecordTable,
        rejects: RecordTable,
        bar: ProgressReporter,
    ) -> None:
        """Judge and store one finished item."""
        summary = self.summary
        try:
            written = future.result()
        except GenError as exc:
            rendered = self.prompter.render(item)
            failed = failed_request(
                item, self.spec, rendered, self.backend, exc, run_id=self.run_id
            )
            rejects.append(self.again.noted(item, failed))
            summary.reject(
                "model_error", chars=0, at_token_limit=False, ctx_truncated=False, detail=str(exc)
            )
            self.errors.failed(exc)
            return
        self.errors.succeeded()
        #: False for a document written again: its facts were asked, and counted, before.
        first = self.again.allowed(item)
        if written.facts is not None and first:
            summary.completion_tokens += written.facts.completion_tokens
            summary.generation_seconds += written.facts.seconds
        if written.facts is not None and written.facts.failed:
            rejects.append(
                facts_failed(item, self.spec, self.backend, written.facts, run_id=self.run_id)
            )
            summary.reject(
                FACTS_FAILED,
                chars=0,
                at_token_limit=False,
                ctx_truncated=False,
                detail=written.facts.why,
            )
            return
        assert written.rendered is not None and written.completion is not None
        completion = written.completion
        summary.completion_tokens += completion.completion_tokens
        summary.generation_seconds += completion.seconds
        budget = self.prompter.max_tokens(written.item)
        answer = Answer(written.item, written.rendered, completion, budget, written.facts)
        judgement = judge(
            answer,
            spec=self.spec,
            generation=self.pack.generation,
            backend=self.backend,
            duplicates=self.state.duplicates,
            run_id=self.run_id,
            inline=self.inline,
            placer=self.placer,
            echo=self.echo,
            write_again=first and self.budget > 0,
        )
        if judgement.write_again:
            self.again.ask(written, judgement.record)
            self.budget -= 1
            summary.written_again += 1
            return
        self.again.noted(item, judgement.record)
        if judgement.rejection is None or judgement.rejection.reason == DISCLOSURE_MISSING:
            summary.facts.add(judgement.record)
        if judgement.rejection:
            rejects.append(judgement.record)
            summary.reject(
                judgement.rejection.reason,
                chars=judgement.chars,
                at_token_limit=answer.at_token_limit,
                ctx_truncated=answer.ctx_truncated,
                detail=judgement.rejection.detail,
            )
        else:
            documents.append(judgement.record)
            summary.accepted += 1
            summary.new_accepted += 1
            summary.ctx_truncated += answer.ctx_truncated
            summary.flagged.update(judgement.record.flags)
            filled = judgement.record.meta.get("slots_filled", [])
            summary.slots_filled.update(slot["field"] for slot in filled)
            summary.shapes[judgement.record.meta["shape"]] += 1
            bar.advance(1)
        bar.update(
            tok_s=f"{summary.tokens_per_second:.1f}", rejected=sum(summary.rejected.values())
        )

    def _record(self) -> None:
        """Append this call, its settings and counts, to the plan's history."""
        summary = self.summary
        entry = call_entry(
            self.run_id,
            summary,
            self.options,
            self.limit,
            self.prompter.format_name,
            self.pack,
            self.backend,
        )
        append_run(
            self.paths.manifest(STAGE, self.options.shard),
            self.spec.key,
            asdict(self.spec),
            entry,
            shard=self.options.shard,
            accepted=summary.accepted,
            documents_total=len(RecordTable(self.paths.documents)),
            rejects_total=len(RecordTable(self.paths.rejects(STAGE))),
        )
