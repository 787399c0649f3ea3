"""`gen review pull` and `gen review export FILE`: submitted annotations -> RUN/gold.

Both read Label Studio's JSON export, pull by downloading it through the SDK,
export from a file, and turn it into gold records with `gen.review.gold`. The
gold table is the state of the review at that moment, so each pull replaces it
whole: it is one Parquet file written under a temporary name and renamed
(`RUN/gold/part-00000.parquet`), never half-written. Refused tasks go to
`RUN/rejects/review` with their reason, counts to `RUN/manifests/review.json`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gen.core.errors import UsageError
from gen.core.files import write_json_atomic
from gen.core.records import Record
from gen.core.runs import RunPaths
from gen.core.store import write_records
from gen.review.connection import Connection, api_errors
from gen.review.gold import ReviewResult, check_export, check_records, review_tasks
from gen.review.offsets import OffsetUnit
from gen.review.push import find_project, read_state, read_table

#: The one shard of the gold and review-rejects tables, replaced whole by each pull.
SHARD = "part-00000.parquet"
REJECTS = "review"


@dataclass(frozen=True)
class PullOptions:
    #: Project title or id; default: the project of the last push.
    project: str | None = None
    prefer: str = "latest"
    #: Table the run's records are read from; default: the table of the last push.
    table: str | None = None
    unit: OffsetUnit | None = None


def _run_records(run: Path, options: PullOptions, state: dict[str, Any] | None) -> dict:
    table = options.table or (state or {}).get("table") or "labeled"
    return {record.id: record for record in read_table(run, table)}


def _unit(options: PullOptions, state: dict[str, Any] | None) -> OffsetUnit:
    return options.unit or (state or {}).get("unit") or "codepoint"


def write_review(run: Path, result: ReviewResult, origin: dict[str, Any]) -> None:
    """Gold, rejects and manifest of one pull; each file whole or not at all."""
    paths = RunPaths(Path(run))
    rejects = paths.rejects(REJECTS) / SHARD
    if result.rejected:
        write_records(rejects, result.rejected)
    else:
        rejects.unlink(missing_ok=True)
    write_records(paths.gold / SHARD, result.gold)
    write_json_atomic(
        paths.manifest("review"),
        {
            **origin,
            "gold": len(result.gold),
            "rejected": len(result.rejected),
            "unannotated": result.unannotated,
            "disagreements": result.disagreements,
            "reasons": [record.meta["reason"] for record in result.rejected],
        },
    )


def pull(run: Path, connection: Connection, options: PullOptions) -> ReviewResult:
    """Download the project's JSON export and write it as RUN/gold."""
    state = read_state(run)
    project_ref = options.project or (str(state["project_id"]) if state else None)
    if project_ref is None:
        raise UsageError(f"{run} was never pushed; run `gen review push` or pass --project")
    if options.project is None and state["url"] != connection.base_url:
        raise UsageError(
            f"{run} was pushed to {state['url']}, not {connection.base_url}; pass that --url "
            "or name the project with --project"
        )
    records = _run_records(run, options, state)
    client = connection.client()
    with api_errors(connection, "checking the API key"):
        client.users.whoami()
    with api_errors(connection, f"looking up project {project_ref!r}"):
        project = find_project(client, project_ref)
    if project is None:
        raise UsageError(f"no project {project_ref!r} at {connection.base_url}")
    with api_errors(connection, f"exporting project {project.id}"):
        data = b"".join(client.projects.exports.download_sync(project.id, export_type="JSON"))
    users = _users(client, connection)
    try:
        tasks = json.loads(data)
    except ValueError as exc:
        raise UsageError(f"project {project.id}: its export is not JSON ({exc})") from None
    tasks = check_export(tasks, f"project {project.id}", project.id)
    check_records(tasks, records, f"project {project.id}")
    result = review_tasks(
        tasks, records, prefer=options.prefer, unit=_unit(options, state), users=users
    )
    write_review(run, result, {"url": connection.base_url, "project_id": project.id})
    return result


def _users(client: Any, connection: Connection) -> dict[int, str]:
    """User id -> e-mail, for the annotator in meta; empty when the key may not list users."""
    from label_studio_sdk.core.api_error import ApiError

    with api_errors(connection, "listing users"):
        try:
            return {user.id: user.email for user in client.users.list() if user.email}
        except ApiError:  # a key that may not list users: annotators stay "user N"
            return {}


def read_export_file(path: Path) -> list[dict[str, Any]]:
    """The task list of a Label Studio JSON export file, or one UsageError naming it."""
    path = Path(path)
    try:
        tasks = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(f"{path}: file not found; expected a Label Studio JSON export") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise UsageError(f"{path}: not a Label Studio JSON export ({exc})") from None
    return tasks


def import_export_file(run: Path, path: Path, options: PullOptions) -> ReviewResult:
    """`gen review export FILE`: the same as a pull, from an export file."""
    state = read_state(run)
    project_id = state["project_id"] if state and options.project is None else None
    tasks = check_export(read_export_file(path), str(path), project_id)
    records = _run_records(run, options, state)
    check_records(tasks, records, str(path))
    result = review_tasks(tasks, records, prefer=options.prefer, unit=_unit(options, state))
    write_review(run, result, {"file": str(path), "project_id": project_id})
    return result


def gold_from_export(path: Path, *, prefer: str = "latest") -> list[Record]:
    """Gold records of a Label Studio JSON export file, without a run folder (for
    `gen import FILE --as gold`); UsageError naming the first task refused."""
    tasks = check_export(read_export_file(path), str(path))
    result = review_tasks(tasks, None, prefer=prefer)
    if result.rejected:
        raise UsageError(f"{path}: {result.rejected[0].meta['reason']}")
    return result.gold
