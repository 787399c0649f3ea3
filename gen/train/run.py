"""`gen train`: export -> train -> best checkpoint on dev -> scores -> model card.

The model folder is built in a staging folder next to `--out` and put in place in
one rename at the end, so `--out` always holds a complete detector (or the
previous one); the staging folders of a killed training are removed by the next
one into the same folder, which holds a lock meanwhile (gen.core.staging).
Checkpoints and finished learning-curve points live in a work folder beside it
(`.<name>.work`) until the run succeeds, so a re-run resumes; a training refused or
failed before it kept any leaves no work folder, and the lock file goes with the lock.
An unwritable model folder is refused before any work.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from contextlib import nullcontext
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from gen.core.files import check_writable, write_atomic, write_json_atomic
from gen.core.progress import progress_stage, say
from gen.core.staging import folder_lock, new_staging, remove_leftovers, swap_in
from gen.evaluate.report import render_text
from gen.predict.loader import DETECTOR_FILE, trainer_class
from gen.train import Trainer, TrainSettings
from gen.train.card import model_card
from gen.train.curve import CurvePoint, CurveState, summarize, write_curve
from gen.train.data import TrainingData, dataset_labels, load_training_data
from gen.train.scoring import GoldSet, ScoredSet, gold_set, load_gold, score_sets


@dataclass
class TrainReport:
    folder: Path
    info: dict[str, Any]
    train_seconds: float
    scored: list[ScoredSet]
    curve: list[CurvePoint] = field(default_factory=list)
    #: Why the export was written again first (None: it was up to date).
    reexported: str | None = None
    #: Staging folders of killed trainings into the same folder, removed first.
    removed_leftovers: list[Path] = field(default_factory=list)
    #: The gold set scored: its ids left out (in the train or dev split, gen build --sources
    #: gold) and its documents the dataset changed (None: no --gold).
    gold: GoldSet | None = None


#: Where the tables of `gen train` (which has no `--format json`) say the scores are whole.
WHOLE_SCORES = "scores.json in the model folder"


def default_out(run: Path, settings: TrainSettings) -> Path:
    return Path(run) / "models" / settings.trainer


def train_detector(
    run: Path,
    settings: TrainSettings,
    *,
    out: Path | None = None,
    gold: Path | None = None,
    curve_shares: list[float] | None = None,
) -> TrainReport:
    trainer: Trainer = trainer_class(settings.trainer)()
    trainer.check(settings)
    given = out is not None
    out = Path(out or default_out(run, settings))
    check_writable(out, "--out" if given else "model folder", replaced_folder=True)
    gold_records = load_gold(gold, dataset_labels(run)) if gold else None
    data = load_training_data(run, trainer.export_format, trainer.export_settings(settings))
    gold_scored = gold_set(gold_records, data) if gold_records is not None else None
    work = out.with_name(f".{out.name}.work")
    with folder_lock(out.parent, out.name, f"`gen train` into {out}"):
        removed = remove_leftovers(out.parent, out.name)
        staging = new_staging(out.parent, out.name)
        try:
            work.mkdir(exist_ok=True)
            state = _curve_state(settings, data, curve_shares, work, gold_scored)
            with progress_stage("full train split") if curve_shares else nullcontext():
                seconds, info, scored = _train_and_score(
                    trainer, data, settings, staging, work / "full", gold_scored
                )
            curve = []
            if curve_shares:
                full = CurvePoint(1.0, len(data.train_ids), seconds, _summaries(scored))
                curve = _learning_curve(
                    trainer, data, settings, curve_shares, state, gold_scored, full
                )
                write_curve(staging, curve)
            _write_outputs(staging, run, settings, info, data, scored, seconds, curve)
            swap_in(staging, out)
        except BaseException:
            _keep_if_resumable(work)
            raise
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)
    return TrainReport(out, info, seconds, scored, curve, data.reexported, removed, gold_scored)


def _keep_if_resumable(work: Path) -> None:
    """After a refused, failed or interrupted training: keep the work folder when it holds
    something a re-run resumes from (a checkpoint, a finished learning-curve point), and
    say so; else remove it, so nothing is left beside the model folder."""
    if any(path.is_file() for path in work.rglob("*")):
        say(f"kept {work} for the same command to resume from")
    else:
        shutil.rmtree(work, ignore_errors=True)


def _train_and_score(
    trainer: Trainer,
    data: TrainingData,
    settings: TrainSettings,
    folder: Path,
    work: Path,
    gold: GoldSet | None,
) -> tuple[float, dict[str, Any], list[ScoredSet]]:
    work.mkdir(parents=True, exist_ok=True)
    started, cpu_started = time.perf_counter(), time.process_time()
    info = {"trainer": settings.trainer, **trainer.fit(data, folder, settings, work)}
    seconds = time.perf_counter() - started
    # CPU time of this process: on a shared machine it says more than the wall clock.
    info["train_cpu_seconds"] = round(time.process_time() - cpu_started, 1)
    write_json_atomic(folder / DETECTOR_FILE, info)
    return seconds, info, score_sets(trainer.load(folder, info), data, gold)


def _summaries(scored: list[ScoredSet]) -> dict[str, dict[str, float]]:
    return {s.name: summarize(s.evaluation) for s in scored}


def _curve_state(
    settings: TrainSettings,
    data: TrainingData,
    shares: list[float] | None,
    work: Path,
    gold: GoldSet | None,
) -> CurveState:
    """The points an interrupted run of the same curve finished (said, when there are)."""
    key = hashlib.sha256(
        json.dumps([asdict(settings), data.manifest["splits"], gold is not None]).encode()
    ).hexdigest()
    state = CurveState(work / "curve-state.json", key)
    kept = [share for share in shares or [] if share != 1.0 and share in state.points]
    if shares and kept:
        listed = ", ".join(f"{share:g}" for share in kept)
        say(
            f"learning curve resumed: share{'s' * (len(kept) > 1)} {listed} kept from an "
            f"interrupted run ({len(kept)} of {len(shares)} points)"
        )
    return state


def _learning_curve(
    trainer: Trainer,
    data: TrainingData,
    settings: TrainSettings,
    shares: list[float],
    state: CurveState,
    gold: GoldSet | None,
    full: CurvePoint,
) -> list[CurvePoint]:
    work = state.path.parent
    for number, share in enumerate(shares, start=1):
        if share == 1.0 or share in state.points:
            continue
        subset = data.subset(share, settings.seed)
        point_folder = work / f"curve-{share:g}"
        shutil.rmtree(point_folder, ignore_errors=True)
        point_folder.mkdir(parents=True)
        stage = f"learning curve: share {share:g} of train, point {number} of {len(shares)}"
        with progress_stage(stage):
            seconds, _, scored = _train_and_score(
                trainer, subset, settings, point_folder, work / f"curve-{share:g}-work", gold
            )
        state.add(CurvePoint(share, len(subset.train_ids), round(seconds, 2), _summaries(scored)))
        shutil.rmtree(point_folder, ignore_errors=True)
    points = [state.points[s] for s in shares if s != 1.0]
    return [*points, full] if 1.0 in shares else points


def _write_outputs(
    folder: Path,
    run: Path,
    settings: TrainSettings,
    info: dict[str, Any],
    data: TrainingData,
    scored: list[ScoredSet],
    seconds: float,
    curve: list[CurvePoint],
) -> None:
    manifest = {
        "run": str(run),
        "export": str(data.folder),
        "counts": data.manifest["counts"],
        "train_records": len(data.train_ids),
        "splits": data.manifest["splits"],
    }
    write_json_atomic(folder / "data.json", manifest)
    write_json_atomic(
        folder / "scores.json",
        {
            "settings": asdict(settings),
            "train_seconds": round(seconds, 2),
            "sets": {
                s.name: {
                    "documents_per_second": round(s.documents_per_second, 2),
                    "ignored_labels": s.ignored_labels,
                    "unknown_labels": s.unknown_labels,
                    "evaluation": s.evaluation.to_json(),
                }
                for s in scored
            },
        },
    )
    for s in scored:
        table = render_text(s.evaluation, whole=WHOLE_SCORES)
        write_atomic(folder / f"{s.name}.txt", table.encode())
    card = model_card(settings, info, manifest, scored, seconds, curve)
    write_atomic(folder / "README.md", card.encode())
