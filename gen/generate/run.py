"""`gen documents`: follow the plan, ask the backend, clean, check, store.

Resumable: items already stored (accepted or rejected) are skipped, and the
run stops once the plan has `n` accepted documents, so `--n 500` after a crash
ends with exactly 500. Requests run in a pool of `backend.concurrency`
threads and are stored as they complete.
"""

from __future__ import annotations

import time
from collections import Counter
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gen import __version__
from gen.backends import file_sha256
from gen.backends.base import Backend, Completion, GenerationRequest, SamplingParams
from gen.backends.prompting import RenderedPrompt, render_prompt
from gen.core.errors import GenError
from gen.core.packs import LanguagePack
from gen.core.progress import progress
from gen.core.records import Record
from gen.core.runs import RunPaths
from gen.core.shards import WHOLE, Shard
from gen.core.store import RecordTable, read_json_object, write_json_atomic
from gen.generate.checks import DuplicateIndex, rejection_reason
from gen.generate.plan import PlanItem, PlanSpec, plan_item, validate_spec
from gen.generate.postprocess import clean_document

#: Give up on a plan after this many attempts per wanted document.
MAX_ATTEMPTS_PER_DOCUMENT = 3
#: This many backend failures in a row means the backend is broken, not the item.
MAX_CONSECUTIVE_ERRORS = 5


@dataclass(frozen=True)
class DocumentsOptions:
    spec: PlanSpec
    n: int
    max_tokens: int | None = None
    prompt_format: str | None = None
    #: Shard K of N takes plan items i with i % N == K (gen/core/shards.py).
    shard: Shard = WHOLE


@dataclass
class DocumentsSummary:
    wanted: int
    accepted: int = 0
    new_accepted: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    completion_tokens: int = 0
    generation_seconds: float = 0.0
    wall_seconds: float = 0.0
    exhausted: bool = False

    @property
    def tokens_per_second(self) -> float:
        return self.completion_tokens / self.generation_seconds if self.generation_seconds else 0.0


def sampling_for(
    pack: LanguagePack, rendered: RenderedPrompt, max_tokens: int | None
) -> SamplingParams:
    config = pack.generation.sampling
    return SamplingParams(
        temperature=config.temperature,
        top_p=config.top_p,
        top_k=config.top_k,
        repeat_penalty=config.repeat_penalty,
        max_tokens=max_tokens or config.max_tokens,
        stop=rendered.stop,
    )


def document_record(
    item: PlanItem,
    spec: PlanSpec,
    rendered: RenderedPrompt,
    completion: Completion,
    text: str,
    backend: Backend,
    removed: list[str],
) -> Record:
    return Record(
        id=item.id,
        text=text,
        category=item.category,
        doc_type=item.doc_type,
        language=spec.language,
        source="llm",
        persona=item.persona,
        prompt=rendered.text,
        model=backend.model_id,
        seed=item.seed,
        group=item.id,
        meta={
            "plan": spec.key,
            "index": item.index,
            "doc_kind": item.doc_kind,
            "sensitive_info": item.sensitive_info,
            "backend": backend.name,
            "finish_reason": completion.finish_reason,
            "prompt_tokens": completion.prompt_tokens,
            "completion_tokens": completion.completion_tokens,
            "seconds": round(completion.seconds, 3),
            "cleanup": removed,
        },
    )


def _reject(record: Record, reason: str, raw: str, detail: str = "") -> Record:
    record.text = raw
    record.meta.update({"reason": reason, "detail": detail, "stage": "documents"})
    record.flags = [reason]
    return record


class DocumentRun:
    """One invocation of `gen documents` against a run folder."""

    def __init__(
        self, run: RunPaths, pack: LanguagePack, backend: Backend, options: DocumentsOptions
    ):
        validate_spec(pack, options.spec)
        self.run = run
        self.pack = pack
        self.backend = backend
        self.options = options
        self.spec = options.spec
        self.format_name = options.prompt_format or pack.generation.format
        self._chat_template = backend.chat_template()
        self.summary = DocumentsSummary(wanted=options.shard.quota(options.n))

    def render(self, item: PlanItem) -> RenderedPrompt:
        return render_prompt(item.parts, self.format_name, self.pack.formats, self._chat_template)

    def request(self, item: PlanItem) -> tuple[RenderedPrompt, GenerationRequest]:
        rendered = self.render(item)
        sampling = sampling_for(self.pack, rendered, self.options.max_tokens)
        return rendered, GenerationRequest(prompt=rendered.text, sampling=sampling, seed=item.seed)

    def _judge(
        self,
        item: PlanItem,
        rendered: RenderedPrompt,
        completion: Completion,
        duplicates: DuplicateIndex,
    ) -> tuple[Record, str | None]:
        cleaned = clean_document(
            completion.text,
            echoes=[item.parts.response_prefix, item.parts.instruction],
            truncated=completion.finish_reason == "length",
        )
        record = document_record(
            item, self.spec, rendered, completion, cleaned.text, self.backend, cleaned.removed
        )
        reason = rejection_reason(
            cleaned.text,
            language=self.spec.language,
            min_chars=self.pack.generation.checks.min_chars,
            duplicates=duplicates,
        )
        if reason:
            return _reject(record, reason, completion.text), reason
        duplicates.add(cleaned.text)
        return record, None

    def execute(self) -> DocumentsSummary:
        started = time.perf_counter()
        shard = self.options.shard
        documents = RecordTable(self.run.documents, shard=shard).open()
        try:
            rejects = RecordTable(self.run.rejects("documents"), shard=shard).open()
        except BaseException:
            documents.close()
            raise
        try:
            self._execute(documents, rejects)
        finally:
            documents.close()
            rejects.close()
            self.summary.wall_seconds = time.perf_counter() - started
            self.write_manifest(documents, rejects)
        return self.summary

    def _execute(self, documents: RecordTable, rejects: RecordTable) -> None:
        prefix = f"{self.spec.key}-"
        shard = self.options.shard

        def planned(record_id: str) -> bool:  # an item of this plan and of this shard
            index = record_id.removeprefix(prefix)
            return record_id.startswith(prefix) and index.isdigit() and shard.owns(int(index))

        stored = documents.read()
        done = {r.id for r in stored if planned(r.id)}
        attempted = done | {i for i in rejects.ids() if planned(i)}
        wanted = self.summary.wanted
        duplicates = DuplicateIndex(self.pack.generation.checks.near_duplicate_ratio)
        for record in stored:
            if record.language == self.spec.language:
                duplicates.add(record.text)
        summary = self.summary
        summary.accepted = len(done)
        budget = max(0, wanted - len(done)) * MAX_ATTEMPTS_PER_DOCUMENT
        indexes = (i for i in shard.indexes() if f"{self.spec.key}-{i:06d}" not in attempted)
        in_flight: dict[Future[Completion], tuple[PlanItem, RenderedPrompt]] = {}
        consecutive_errors = 0
        with (
            progress("documents", wanted, done=summary.accepted) as bar,
            ThreadPoolExecutor(max_workers=max(1, self.backend.concurrency)) as pool,
        ):
            try:
                while True:
                    while (
                        summary.accepted + len(in_flight) < wanted
                        and budget > 0
                        and len(in_flight) < max(1, self.backend.concurrency)
                    ):
                        item = plan_item(self.pack, self.spec, next(indexes))
                        rendered, request = self.request(item)
                        in_flight[pool.submit(self.backend.generate, request)] = (item, rendered)
                        budget -= 1
                    if not in_flight:
                        break
                    finished, _ = wait(in_flight, return_when=FIRST_COMPLETED)
                    for future in finished:
                        item, rendered = in_flight.pop(future)
                        try:
                            completion = future.result()
                        except GenError as exc:
                            consecutive_errors += 1
                            failed = Completion("", 0, 0, 0.0, "error")
                            record = document_record(
                                item, self.spec, rendered, failed, "", self.backend, []
                            )
                            rejects.append(_reject(record, "model_error", "", str(exc)))
                            summary.rejected["model_error"] += 1
                            if consecutive_errors >= MAX_CONSECUTIVE_ERRORS:
                                raise GenError(
                                    f"the backend failed {consecutive_errors} times in a row; "
                                    f"last error: {exc}"
                                ) from None
                            continue
                        consecutive_errors = 0
                        summary.completion_tokens += completion.completion_tokens
                        summary.generation_seconds += completion.seconds
                        record, reason = self._judge(item, rendered, completion, duplicates)
                        if reason:
                            rejects.append(record)
                            summary.rejected[reason] += 1
                        else:
                            documents.append(record)
                            summary.accepted += 1
                            summary.new_accepted += 1
                            bar.advance(1)
                        bar.update(
                            tok_s=f"{summary.tokens_per_second:.1f}",
                            rejected=sum(summary.rejected.values()),
                        )
            except BaseException:
                for future in in_flight:
                    future.cancel()
                raise
        summary.exhausted = summary.accepted < wanted

    def write_manifest(self, documents: RecordTable, rejects: RecordTable) -> None:
        path = self.run.manifest("documents", self.options.shard)
        manifest: dict[str, Any] = read_json_object(path) if path.exists() else {}
        backend_info = dict(self.backend.describe())
        model_path = backend_info.get("model_path")
        if model_path and Path(str(model_path)).is_file():
            backend_info["model_sha256"] = file_sha256(Path(str(model_path)))
        plans = manifest.setdefault("plans", {})
        previous = plans.get(self.spec.key, {})
        rejected = Counter(previous.get("rejected", {}))
        rejected.update(self.summary.rejected)
        plans[self.spec.key] = {
            "spec": {
                "language": self.spec.language,
                "category": self.spec.category,
                "doc_type": self.spec.doc_type,
                "seed": self.spec.seed,
            },
            "n": self.options.n,
            "shard": str(self.options.shard),
            "accepted": self.summary.accepted,
            "rejected": dict(rejected),
            "exhausted": self.summary.exhausted,
            "prompt_format": self.format_name,
            "max_tokens": self.options.max_tokens or self.pack.generation.sampling.max_tokens,
            "sampling": self.pack.generation.sampling.model_dump(),
            "prompts_sha256": self.pack.files_sha256,
            "prompts_dir": str(self.pack.root),
            "backend": backend_info,
            "gen_version": __version__,
            "last_run": {
                "new_documents": self.summary.new_accepted,
                "completion_tokens": self.summary.completion_tokens,
                "generation_seconds": round(self.summary.generation_seconds, 2),
                "wall_seconds": round(self.summary.wall_seconds, 2),
                "tokens_per_second": round(self.summary.tokens_per_second, 2),
            },
        }
        manifest["documents_total"] = len(documents)
        manifest["rejects_total"] = len(rejects)
        write_json_atomic(path, manifest)


def generate_documents(
    run: RunPaths, pack: LanguagePack, backend: Backend, options: DocumentsOptions
) -> DocumentsSummary:
    return DocumentRun(run, pack, backend, options).execute()
