"""`gen documents`: follow the plan, ask the backend, clean, check, store.

`run` is the stage, in named steps: load the prompt pack and refuse settings that
cannot work (`preflight`), lock the plan's tables, read what earlier calls stored
(`resume`), load the backend only when documents are missing, check the first prompts
against the context window, then generate (`gen.generate.call`): requests run in a
pool of `backend.concurrency` threads and are stored as they complete. Every call is
appended to the plan's history in the manifest.

Resumable: items already stored (accepted or rejected) are skipped, and the run stops
once the plan has `n` accepted documents, so `--n 500` after a crash ends with exactly
500. When the attempt budget runs out first the summary is `short`, and
`gen.generate.diagnosis` says why.
"""

from __future__ import annotations

from dataclasses import asdict

from gen.backends import make_backend
from gen.backends.base import Backend
from gen.core.packs import load_language_pack
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from gen.generate.call import DocumentCall
from gen.generate.manifest import append_run, new_run_id, read_manifest
from gen.generate.options import DocumentsOptions
from gen.generate.preflight import token_limit
from gen.generate.records import STAGE
from gen.generate.resume import Resume, resume
from gen.generate.summary import NOTHING_TO_DO, DocumentsSummary


def run(
    paths: RunPaths, options: DocumentsOptions, backend: Backend | None = None
) -> DocumentsSummary:
    """Generate until the plan has `options.n` documents or its attempt budget is spent.

    `backend`: an engine already loaded (gen bench, tests); by default `options.backend`'s
    is loaded, and only when documents are missing. The tables are locked first, so a
    second process on the same run is refused before it spends a model load.
    """
    pack = load_language_pack(options.spec.language, options.prompts_dir)
    pack.formats.check_option(options.prompt_format)
    limit = token_limit(pack, options.spec, options.max_tokens)
    read_manifest(paths.manifest(STAGE, options.shard))  # damaged: stop before any work
    shard = options.shard
    with (
        RecordTable(paths.documents, shard=shard) as documents,
        RecordTable(paths.rejects(STAGE), shard=shard) as rejects,
    ):
        state = resume(paths, pack, options.spec, shard)
        if state.accepted >= shard.quota(options.n):
            return nothing_to_do(paths, options, state)
        generation = DocumentCall(
            paths, pack, backend or make_backend(options.backend), options, limit, state
        )
        generation.check_context()
        return generation.execute(documents, rejects)


def nothing_to_do(paths: RunPaths, options: DocumentsOptions, state: Resume) -> DocumentsSummary:
    """The plan already has n documents: record the call, ask nothing."""
    spec, shard = options.spec, options.shard
    summary = DocumentsSummary(spec.key, options.n, shard, state.accepted, status=NOTHING_TO_DO)
    entry = {"run": new_run_id(), "status": NOTHING_TO_DO, "n": options.n, "new_documents": 0}
    append_run(
        paths.manifest(STAGE, shard),
        spec.key,
        asdict(spec),
        entry,
        shard=shard,
        accepted=state.accepted,
        documents_total=len(RecordTable(paths.documents)),
        rejects_total=len(RecordTable(paths.rejects(STAGE))),
    )
    return summary
