"""What the manifest keeps of one call of `gen documents`: its settings, backend and counts,
appended to the plan's history (`gen.generate.manifest`)."""

from __future__ import annotations

from typing import Any

from gen import __version__
from gen.backends.base import Backend
from gen.backends.models import provenance
from gen.core.packs import LanguagePack
from gen.generate.options import DocumentsOptions
from gen.generate.preflight import TokenLimit
from gen.generate.summary import DocumentsSummary


def call_entry(
    run_id: str,
    summary: DocumentsSummary,
    options: DocumentsOptions,
    limit: TokenLimit,
    prompt_format: str,
    pack: LanguagePack,
    backend: Backend,
) -> dict[str, Any]:
    """This call, its settings and counts, as the plan's history keeps it."""
    entry = {
        "run": run_id,
        "status": summary.status,
        "n": options.n,
        "max_tokens": limit.option,
        "n_ctx": options.backend.n_ctx,
        "prompt_format": prompt_format,
        "inline_labels": options.inline_labels,
        "sampling": pack.generation.sampling.model_dump(),
        "checks": pack.generation.checks.model_dump(),
        "prompts_sha256": pack.files_sha256,
        "prompts_dir": str(pack.root),
        "backend": provenance(backend),
        "gen_version": __version__,
        "new_documents": summary.new_accepted,
        "rejected": dict(summary.rejected),
        "ctx_truncated": summary.ctx_truncated,
        "flagged": dict(summary.flagged),
        "slots_filled": dict(summary.slots_filled),
        "written_again": summary.written_again,
        "shapes": dict(summary.shapes),
        "completion_tokens": summary.completion_tokens,
        "generation_seconds": round(summary.generation_seconds, 2),
        "wall_seconds": round(summary.wall_seconds, 2),
        "tokens_per_second": round(summary.tokens_per_second, 2),
    }
    if options.spec.disclosures:
        entry["require_disclosures"] = options.require_disclosures
        entry["disclosures"] = summary.facts.to_dict()
    return entry
