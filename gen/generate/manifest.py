"""The documents manifest: per plan, one entry for every call, appended.

`RUN/manifests/documents.json` (one file per shard of a split plan) holds, for each
plan, its spec, the current count of accepted documents, rejects by reason and accepted
documents by flag (ctx-truncated ones also on their own) summed over the calls (with
planned disclosures also the facts asked, planned, found exact or fuzzy and missing, per
category), and `runs`: the calls in order, each with its settings, backend and counts. An
entry is never changed once written, so the settings each document was made with stay
known (a document's `meta.run` names its entry), however often the plan is resumed.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from gen.core.errors import CorruptFileError
from gen.core.files import read_json_object, write_json_atomic
from gen.core.shards import Shard

#: Plan-level keys; everything else a plan held before histories existed was one call's.
_PLAN_KEYS = (
    "spec",
    "shard",
    "accepted",
    "rejected",
    "flagged",
    "ctx_truncated",
    "disclosures",
    "runs",
)


def new_run_id() -> str:
    """Names a call's entry; its documents carry it in `meta.run`."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def read_manifest(path: Path) -> dict[str, Any]:
    """The manifest, {} when there is none yet; a damaged one is an error, never reset."""
    if not path.exists():
        return {}
    manifest = read_json_object(path)
    if not isinstance(manifest.get("plans", {}), dict):
        raise CorruptFileError(
            f"{path}: `plans` is not an object; it was damaged outside gen: restore it from a "
            "backup or move it away, then re-run"
        )
    return manifest


def _with_history(plan: dict[str, Any]) -> dict[str, Any]:
    """A plan written before histories existed keeps its settings as its first call."""
    if "runs" in plan:
        return plan
    kept = {key: value for key, value in plan.items() if key in _PLAN_KEYS}
    earlier = {key: value for key, value in plan.items() if key not in _PLAN_KEYS}
    return {**kept, "runs": [earlier] if earlier else []}


def append_run(
    path: Path,
    plan_key: str,
    spec: dict[str, Any],
    entry: dict[str, Any],
    *,
    shard: Shard,
    accepted: int,
    documents_total: int,
    rejects_total: int,
) -> None:
    """Add one call's entry to its plan's history and refresh the counts."""
    manifest = read_manifest(path)
    plan = _with_history(manifest.setdefault("plans", {}).get(plan_key, {}))
    rejected = Counter(plan.get("rejected", {}))
    rejected.update(entry.get("rejected", {}))
    flagged = Counter(plan.get("flagged", {}))
    flagged.update(entry.get("flagged", {}))
    plan.update(
        spec=spec,
        shard=str(shard),
        accepted=accepted,
        rejected=dict(rejected),
        flagged=dict(flagged),
        ctx_truncated=plan.get("ctx_truncated", 0) + entry.get("ctx_truncated", 0),
    )
    if entry.get("disclosures") or plan.get("disclosures"):
        plan["disclosures"] = add_counts(plan.get("disclosures", {}), entry.get("disclosures", {}))
    plan["runs"].append(entry)
    manifest["plans"][plan_key] = plan
    manifest["documents_total"] = documents_total
    manifest["rejects_total"] = rejects_total
    write_json_atomic(path, manifest)


def add_counts(total: dict[str, Any], more: dict[str, Any]) -> dict[str, Any]:
    """Nested counts summed key by key ({"planned": 3, "by_category": {"health": {...}}})."""
    summed = dict(total)
    for key, value in more.items():
        if isinstance(value, dict):
            summed[key] = add_counts(summed.get(key, {}), value)
        else:
            summed[key] = summed.get(key, 0) + value
    return summed
