"""`gen review push`: a run's documents -> tasks of a Label Studio project.

The project is found by title (or id) and created when missing, with the
labeling config of `gen.review.config`; an existing one must offer our labels.
Pushing is idempotent: the server is asked which record ids (`gen_id`) its
tasks already hold, and only the others are imported, in batches. A crash
loses nothing and the next push imports what is missing. Where the run was
pushed (server, project, table, offset unit) is written to RUN/review/project.json
for `pull` and `report`; the API key never is.

`--select` (gen.review.select) picks the documents a trained detector would learn most
from instead of the doubt-ordered sample, leaving out those already in the project or in
RUN/gold: each push of a round of review adds new documents. The detector is loaded and
checked before the server is asked; the documents it cannot read are named and never
chosen, and a `--sample` larger than what there is to choose from is said.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gen.core.errors import UsageError
from gen.core.files import check_writable, read_json_object, write_atomic, write_json_atomic
from gen.core.progress import progress
from gen.core.records import Record
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from gen.predict.detector import Detector
from gen.predict.loader import detector_info
from gen.review.config import (
    LABELS_NAME,
    TEXT_NAME,
    LabelTarget,
    category_labels,
    label_target,
    labeling_config,
    review_labels,
)
from gen.review.connection import Connection, api_errors
from gen.review.offsets import OffsetUnit
from gen.review.sample import Stratify
from gen.review.select import Chosen, check_rule, selected_records, selection_detector
from gen.review.tasks import ID_KEY, labels_in_use, task

if TYPE_CHECKING:
    from label_studio_sdk import LabelStudio

#: Record tables that can be pushed.
TABLES = ("labeled", "dataset")
STATE_FILE = "project.json"


@dataclass(frozen=True)
class PushOptions:
    table: str = "labeled"
    #: Project title or numeric id; default "gen review: <run folder name>".
    project: str | None = None
    sample: int | None = None
    #: Strata of the doubt-ordered sample (None: category).
    stratify: Stratify | None = None
    #: Pick the `sample` documents by this rule of gen.review.select instead.
    select: str | None = None
    #: Model folder of gen train that `uncertain` and `disagreement` score with.
    detector: Path | None = None
    seed: int = 0
    #: How offsets are written (Label Studio 1.23 counts code points).
    unit: OffsetUnit = "codepoint"
    batch_size: int = 100
    prompts_dir: Path | None = None

    def __post_init__(self) -> None:
        """Refuse options that do not go together before any server is asked."""
        if self.select is None:
            if self.detector is not None:
                raise UsageError("--detector is read only by --select uncertain or disagreement")
            return
        check_rule(self.select, self.detector is not None)
        if self.sample is None:
            raise UsageError(f"--select {self.select} needs --sample N, how many documents to pick")
        if self.stratify is not None:
            raise UsageError("--stratify orders the sample of doubt; --select picks without it")
        if self.detector is not None:
            detector_info(self.detector)


@dataclass
class PushReport:
    url: str
    project_id: int
    title: str
    created: bool
    selected: int
    pushed: int
    #: Records already on the server as tasks.
    present: int
    #: Records whose task holds another text than the run now does.
    changed: list[str] = field(default_factory=list)
    #: Records `--select` left out: already in the project or in RUN/gold.
    skipped: int = 0
    #: Record id -> why the detector could not read it (never selected).
    unread: dict[str, str] = field(default_factory=dict)
    #: Said when `--sample` asks for more documents than there are to choose from.
    note: str | None = None


def read_table(run: Path, table: str) -> list[Record]:
    if table not in TABLES:
        raise UsageError(f"unknown table {table!r}; expected one of {', '.join(TABLES)}")
    records = RecordTable(RunPaths(Path(run)).root / table).read()
    if not records:
        raise UsageError(f"no records in {Path(run) / table}; run the stage that writes it first")
    return records


def read_state(run: Path) -> dict[str, Any] | None:
    """Where the run was pushed, or None before the first push."""
    path = RunPaths(Path(run)).review / STATE_FILE
    return read_json_object(path) if path.exists() else None


def find_project(client: LabelStudio, project: str) -> Any | None:
    """The project with this id or exact title (None: no such title); UsageError for an
    unknown id or an ambiguous title."""
    from label_studio_sdk.core.api_error import ApiError

    if project.isdigit():
        try:
            return client.projects.get(int(project))
        except ApiError as exc:
            if exc.status_code == 404:
                raise UsageError(f"there is no project {project}; expected a project id") from None
            raise
    matches = [p for p in client.projects.list(title=project) if p.title == project]
    if len(matches) > 1:
        ids = ", ".join(str(p.id) for p in matches)
        raise UsageError(f"several projects are titled {project!r} (ids {ids}); pass --project ID")
    return client.projects.get(matches[0].id) if matches else None


def existing_tasks(client: LabelStudio, project_id: int) -> dict[str, tuple[int, str]]:
    """Record id -> (task id, task text) of the project's tasks made by a push."""
    found = {}
    for item in client.tasks.list(project=project_id, page_size=500):
        data = item.data or {}
        if data.get(ID_KEY) is not None:
            found[str(data[ID_KEY])] = (item.id, data.get("text"))
    return found


def reviewed_ids(run: Path) -> set[str]:
    """Ids of the records in RUN/gold: reviewed already."""
    gold = RecordTable(RunPaths(Path(run)).gold)
    return {record.id for record in gold.read()} if gold.exists() else set()


def push(run: Path, connection: Connection, options: PushOptions) -> PushReport:
    table = read_table(run, options.table)
    detector = selection_detector(options.detector, options.select)
    title = options.project or f"gen review: {Path(run).resolve().name}"
    client = connection.client()
    with api_errors(connection, "checking the API key"):
        client.users.whoami()
    with api_errors(connection, f"looking up project {title!r}"):
        project = find_project(client, title)
    created = project is None
    if project is None:
        # Every label of the table, so that later rounds find theirs in the config too.
        labels = review_labels(category_labels(options.prompts_dir), labels_in_use(table))
        config = labeling_config(labels)
        with api_errors(connection, f"creating project {title!r}"):
            project = client.projects.create(title=title, label_config=config)
    name = f"{project.id} {project.title!r}"
    with api_errors(connection, f"listing the tasks of project {name}"):
        present = existing_tasks(client, project.id)
    exclude = set(present) | reviewed_ids(run) if options.select else set()
    chosen = _chosen(table, options, exclude, detector)
    records = chosen.records
    target = label_target(project.label_config or "", labels_in_use(records), project=name)
    changed = [r.id for r in records if r.id in present and present[r.id][1] != r.text]
    todo = [r for r in records if r.id not in present]
    with progress("push", len(todo)) as bar:
        for first in range(0, len(todo), options.batch_size):
            batch = todo[first : first + options.batch_size]
            payload = [task(record, target, options.unit) for record in batch]
            with api_errors(connection, f"importing tasks into project {name}"):
                client.projects.import_tasks(project.id, request=payload)
            bar.advance(len(batch))
    report = PushReport(
        url=connection.base_url,
        project_id=project.id,
        title=project.title,
        created=created,
        selected=len(records),
        pushed=len(todo),
        present=len(records) - len(todo),
        changed=changed,
        skipped=chosen.skipped,
        unread=chosen.unread,
        note=chosen.note,
    )
    write_state(run, report, options)
    return report


def _chosen(
    table: list[Record], options: PushOptions, exclude: Collection[str], detector: Detector | None
) -> Chosen:
    return selected_records(
        table,
        options.sample,
        select=options.select,
        stratify=options.stratify,
        seed=options.seed,
        exclude=exclude,
        detector=detector,
    )


def write_state(run: Path, report: PushReport, options: PushOptions) -> None:
    state = {
        "url": report.url,
        "project_id": report.project_id,
        "title": report.title,
        "table": options.table,
        "unit": options.unit,
    }
    write_json_atomic(RunPaths(Path(run)).review / STATE_FILE, state)


def write_task_file(run: Path, out: Path, options: PushOptions) -> tuple[Path, Path, Chosen]:
    """Tasks and labeling config as files, for a server this machine cannot reach:
    import `tasks.json` into a project whose config is `label_config.xml`."""
    tasks_path, config_path = Path(out) / "tasks.json", Path(out) / "label_config.xml"
    check_writable(tasks_path, "--out")
    table = read_table(run, options.table)
    detector = selection_detector(options.detector, options.select)
    reviewed = reviewed_ids(run) if options.select else set()
    chosen = _chosen(table, options, reviewed, detector)
    labels = review_labels(category_labels(options.prompts_dir), labels_in_use(chosen.records))
    target = LabelTarget(LABELS_NAME, TEXT_NAME, tuple(labels))
    payload = [task(record, target, options.unit) for record in chosen.records]
    write_atomic(tasks_path, json.dumps(payload, ensure_ascii=False, indent=1).encode())
    write_atomic(config_path, labeling_config(labels).encode())
    return tasks_path, config_path, chosen


def report_lines(report: PushReport) -> list[str]:
    what = "created project" if report.created else "project"
    summary = (
        f"{what} {report.project_id} {report.title!r} at {report.url}: "
        f"{report.pushed} tasks pushed, {report.present} already there "
        f"(of {report.selected} selected)"
    )
    if report.skipped:
        summary += f"; {report.skipped} already pushed or reviewed were left out"
    if report.unread:
        summary += f"; {len(report.unread)} the detector could not read were left out"
    lines = [summary, f"open {report.url}/projects/{report.project_id}/data to review"]
    lines += [
        f"warning: record {record_id} changed since its task was pushed; delete the task in "
        "Label Studio to push the new text"
        for record_id in report.changed
    ]
    return lines
