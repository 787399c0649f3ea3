"""Why a `gen documents` call ended with fewer than n documents, in one sentence.

The dominant reject reason is named with its likely cause and what to change; a cause
that a re-run cannot fix (the token limit, the model's language) says so.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from gen.generate.preflight import TokenLimit
from gen.generate.summary import DocumentsSummary, RejectEvidence


@dataclass(frozen=True)
class RunSettings:
    """The settings a cause is explained with."""

    limit: TokenLimit
    min_chars: int
    n_ctx: int
    language: str
    rejects: Path
    #: `--fact-style` of planned disclosures (None without them): a hint never suggests the
    #: style in use.
    fact_style: str | None = None


def _too_short(found: RejectEvidence, settings: RunSettings) -> str:
    longest = f"the longest kept {found.longest} characters"
    if found.ctx_truncated * 2 >= found.count:
        return (
            f"the context window (--ctx {settings.n_ctx}) cut {found.ctx_truncated} of them "
            f"({longest}); raise --ctx"
        )
    if found.at_token_limit * 2 >= found.count:
        return (
            f"{settings.limit} cannot reach min_chars {settings.min_chars} ({longest}; "
            f"{found.at_token_limit} of {found.count} stopped at the token limit); raise "
            "--max-tokens, a re-run with the same options cannot help"
        )
    return (
        f"the model ends its answers before min_chars {settings.min_chars} ({longest}); "
        "use a larger model, or lower checks.min_chars in generation.yaml"
    )


def _empty(found: RejectEvidence, settings: RunSettings) -> str:
    return (
        "nothing was left after clean-up; check --prompt-format (the model's chat template "
        "or a raw format and its stop strings) and the response prefix in generation.yaml"
    )


def _wrong_language(found: RejectEvidence, settings: RunSettings) -> str:
    return (
        f"the model wrote another language than {settings.language} ({found.detail}); use a "
        f"model that writes {settings.language}, a re-run with this one will not help"
    )


def _duplicate(found: RejectEvidence, settings: RunSettings) -> str:
    return (
        "the model keeps writing the same document; raise sampling.temperature in "
        "generation.yaml, or lower checks.near_duplicate_ratio"
    )


def _model_error(found: RejectEvidence, settings: RunSettings) -> str:
    return f"the backend failed ({found.detail}); re-run once it works again"


def _facts_failed(found: RejectEvidence, settings: RunSettings) -> str:
    return (
        f"the model's answers to the facts request held no usable fact ({found.detail}); use "
        "a larger model, or --facts pack"
    )


def _disclosure_missing(found: RejectEvidence, settings: RunSettings) -> str:
    other_style = "" if settings.fact_style == "placeholder" else "--fact-style placeholder or "
    return (
        f"the writer left planned facts out; try {other_style}a larger model, or drop "
        "--require-disclosures to keep such documents flagged disclosure_missing"
    )


CAUSES: dict[str, Callable[[RejectEvidence, RunSettings], str]] = {
    "too_short": _too_short,
    "empty": _empty,
    "wrong_language": _wrong_language,
    "exact_duplicate": _duplicate,
    "near_duplicate": _duplicate,
    "model_error": _model_error,
    "facts_failed": _facts_failed,
    "disclosure_missing": _disclosure_missing,
}


def diagnose(summary: DocumentsSummary, settings: RunSettings) -> str:
    """`0/3 documents ...: every answer was too_short: --max-tokens 40 cannot reach ...`."""
    head = f"{summary.accepted}/{summary.wanted} documents for {summary.title}"
    if not summary.evidence:
        return f"{head}: the attempt budget ran out; re-run to continue"
    reason, found = max(summary.evidence.items(), key=lambda item: item[1].count)
    rejected = sum(evidence.count for evidence in summary.evidence.values())
    if found.count == rejected and not summary.new_accepted:
        share = "every answer was"
    else:
        share = f"{found.count} of {rejected + summary.new_accepted} answers were"
    cause = CAUSES.get(reason)
    explained = cause(found, settings) if cause else f"see {settings.rejects}"
    return f"{head}: {share} {reason}: {explained} (rejected answers: {settings.rejects})"
