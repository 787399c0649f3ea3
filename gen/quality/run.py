"""`gen score`: ask a model the questions of quality.yaml about every generated document of
`RUN/documents`, and store one score per question in `RUN/quality`.

A score is the probability of a yes answer as a share of yes and no, read from the first
answer token after one forward pass (`gen.backends.scoring.answer_shares`, the scored
answers of `gen label`): nothing is generated, so a small model scores a document in a
few forward passes, and the four prompts of a document share everything up to the
question. Resumable like `gen label`: a document already in `RUN/quality` is skipped,
and a batch is written only when complete. A question whose answer fails (the backend
fails, the prompt does not fit the context, the model gives no answer word any
probability) is stored with its reason in the document's `meta.quality_failed` and in
`RUN/rejects/score`, and counted; the stage stops when the backend fails again and again.
A run folder is scored by one model: another one needs `--overwrite`.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gen import __version__
from gen.backends.base import can_score_labels
from gen.backends.prompting import PromptParts, TokenCounter, render_prompt
from gen.backends.scoring import answer_shares
from gen.backends.streak import ErrorStreak
from gen.core.errors import GenError, UsageError
from gen.core.files import write_json_atomic
from gen.core.packs import LanguagePack, load_language_pack
from gen.core.progress import progress
from gen.core.records import Record
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from gen.quality.questions import asked, question_parts
from gen.quality.stored import (
    SCORED_SOURCE,
    STAGE,
    previous_model,
    reject_record,
    scored_record,
)
from gen.quality.summary import ScoreSummary

if TYPE_CHECKING:
    from gen.backends.base import Backend

#: Documents per batch: a crash loses at most this many documents of work.
BATCH_SIZE = 8
#: Tokens kept free besides the prompt (BOS/EOS, rounding of estimates).
_CONTEXT_MARGIN = 16
#: The reason of an answer the backend failed to give (the stage stops when it repeats).
MODEL_ERROR = "model_error"


@dataclass(frozen=True)
class ScoreOptions:
    #: The backend's context window, which every prompt must fit.
    context_tokens: int = 4096
    prompt_format: str | None = None
    overwrite: bool = False
    batch_size: int = BATCH_SIZE
    prompts_dir: Path | None = None
    #: The model, already loaded (tests), or None when `load_backend` is given.
    backend: Backend | None = None
    #: Loads the model once the run's tables are locked (the CLI).
    load_backend: Callable[[], Backend] | None = None


class QuestionFailed(Exception):
    """A question without a usable answer; `reason` is the short code counted."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


@dataclass
class DocumentScores:
    """What the questions gave for one document."""

    scores: dict[str, float] = field(default_factory=dict)
    #: Question -> (reason, detail).
    failed: dict[str, tuple[str, str]] = field(default_factory=dict)
    seconds: float = 0.0
    prompt_tokens: int = 0


class Scorer:
    """Asks the questions of one language pack with one model."""

    def __init__(self, backend: Backend, pack: LanguagePack, options: ScoreOptions) -> None:
        self.backend = backend
        self.pack = pack
        self.prompts = pack.quality
        self.format = options.prompt_format or self.prompts.format
        self.template = backend.chat_template()
        self.context_tokens = options.context_tokens
        self.count_tokens = TokenCounter(backend)
        # A model without a chat template for `chat` is refused before the first document.
        render_prompt(PromptParts("", ""), self.format, pack.formats, self.template)

    def score(self, document: Record) -> DocumentScores:
        result = DocumentScores()
        for name in asked(document, self.pack):
            try:
                result.scores[name] = self.answer(document, name, result)
            except QuestionFailed as exc:
                result.failed[name] = (exc.reason, exc.detail)
        return result

    def answer(self, document: Record, name: str, result: DocumentScores) -> float:
        """The probability of a yes answer to question `name`, rounded to 4 places."""
        parts = question_parts(self.pack, document, name)
        prompt = render_prompt(parts, self.format, self.pack.formats, self.template).text
        tokens = self.count_tokens(prompt)
        if tokens + _CONTEXT_MARGIN > self.context_tokens:
            raise QuestionFailed(
                "too_long", f"the prompt takes {tokens} tokens, a context of {self.context_tokens}"
            )
        answers = self.prompts.answers
        started = time.perf_counter()
        try:
            shares = answer_shares(self.backend, prompt, answers.words)  # type: ignore[arg-type]
        except GenError as exc:
            raise QuestionFailed(MODEL_ERROR, str(exc)) from None
        result.seconds += time.perf_counter() - started
        result.prompt_tokens += tokens
        if shares is None:
            raise QuestionFailed("unscored_answer", "the model gives no answer word a probability")
        return round(sum(shares[: len(answers.positive)]), 4)


class ScoreRun:
    """One invocation of `gen score` against a run folder."""

    def __init__(self, paths: RunPaths, options: ScoreOptions) -> None:
        if options.backend is None and options.load_backend is None:
            raise UsageError("gen score needs a model backend")
        self.paths = paths
        self.options = options
        self.packs: dict[str, LanguagePack] = {}
        self.scorers: dict[str, Scorer] = {}
        self.summary = ScoreSummary()
        self.provenance: dict[str, Any] = {}
        #: The model, once loaded (`build_scorers`).
        self.backend: Backend | None = options.backend
        self._errors = ErrorStreak()

    def execute(self) -> ScoreSummary:
        started = time.perf_counter()
        documents = generated_documents(self.paths)
        self.load_packs(documents)
        if self.options.overwrite:
            for folder in (self.paths.quality, self.paths.rejects(STAGE)):
                RecordTable(folder).drop()
            self.paths.manifest(STAGE).unlink(missing_ok=True)
        table = RecordTable(self.paths.quality)
        previous = previous_model(table.read())
        rejects = RecordTable(self.paths.rejects(STAGE))
        scoring = False
        try:
            # Locked before the model loads: a second process is refused at once.
            with table, rejects:
                self.build_scorers(previous)
                scoring = True
                self.score_all(documents, table, rejects)
        except BaseException:
            if scoring:  # a partial run is recorded, never in place of the error
                with contextlib.suppress(GenError):
                    self.write_manifest(documents, started)
            raise
        self.write_manifest(documents, started)
        return self.summary

    def load_packs(self, documents: Sequence[Record]) -> None:
        """Load and check every language's quality.yaml before anything is locked or loaded."""
        for language in sorted({d.language for d in documents}):
            pack = load_language_pack(language, self.options.prompts_dir)
            pack.formats.check_option(self.options.prompt_format)
            pack.quality  # noqa: B018 (loaded now: a broken file stops the command here)
            self.packs[language] = pack

    def build_scorers(self, previous: str | None) -> None:
        backend = self.backend or self.options.load_backend()  # type: ignore[misc]
        if not can_score_labels(backend):
            raise UsageError(
                f"the {backend.name} backend cannot score answers here (no log-probabilities); "
                "gen score needs llama.cpp, transformers or a server that returns them"
            )
        if previous is not None and previous != backend.model_id:
            raise UsageError(
                f"{self.paths.quality} was scored with {previous}, not {backend.model_id}; "
                f"re-run with {previous} to resume, or pass --overwrite to score every "
                f"document again with {backend.model_id}"
            )
        self.backend = backend
        self.provenance = {"backend": backend.name, "model": backend.model_id}
        for language, pack in self.packs.items():
            self.scorers[language] = Scorer(backend, pack, self.options)

    def score_all(
        self, documents: Sequence[Record], table: RecordTable, rejects: RecordTable
    ) -> None:
        done = table.ids()
        todo = sorted((d for d in documents if d.id not in done), key=lambda d: (d.language, d.id))
        size = max(1, self.options.batch_size)
        workers = max(1, self.backend.concurrency if self.backend else 1)
        failures = 0
        with (
            progress(STAGE, len(documents), done=len(documents) - len(todo)) as bar,
            ThreadPoolExecutor(max_workers=workers) as pool,
        ):
            for start in range(0, len(todo), size):
                batch = todo[start : start + size]
                results = list(pool.map(lambda d: self.scorers[d.language].score(d), batch))
                self.check_backend(results)
                refused = [
                    reject_record(document, name, reason, detail)
                    for document, result in zip(batch, results, strict=True)
                    for name, (reason, detail) in result.failed.items()
                ]
                rejects.extend(refused)
                table.extend(
                    scored_record(
                        document,
                        result.scores,
                        {name: reason for name, (reason, _) in result.failed.items()},
                        self.provenance,
                    )
                    for document, result in zip(batch, results, strict=True)
                )
                for result in results:
                    self.summary.add_cost(result.prompt_tokens, result.seconds)
                self.summary.new_scored += len(batch)
                failures += len(refused)
                bar.advance(len(batch), failures=failures)

    def check_backend(self, results: Sequence[DocumentScores]) -> None:
        """Stop, without writing the batch, when the backend itself keeps failing."""
        for result in results:
            for reason, detail in result.failed.values():
                if reason == MODEL_ERROR:
                    self._errors.failed(detail)
            if result.scores:
                self._errors.succeeded()

    def write_manifest(self, documents: Sequence[Record], started: float) -> None:
        self.summary.wall_seconds = time.perf_counter() - started
        self.summary.documents = len(documents)
        self.summary.rejects = len(RecordTable(self.paths.rejects(STAGE)).ids())
        self.summary.tally(RecordTable(self.paths.quality).read())
        manifest = self.summary.to_dict()
        manifest.update(
            backend=self.backend.describe() if self.backend else None,
            prompts_sha256={code: pack.files_sha256 for code, pack in self.packs.items()},
            options={
                "context_tokens": self.options.context_tokens,
                "prompt_format": self.options.prompt_format,
                "batch_size": self.options.batch_size,
            },
            quality_dir=str(self.paths.quality),
            rejects_dir=str(self.paths.rejects(STAGE)),
            gen_version=__version__,
        )
        write_json_atomic(self.paths.manifest(STAGE), manifest)


def generated_documents(paths: RunPaths) -> list[Record]:
    """The generated documents of RUN/documents; a usage error when there are none."""
    table = RecordTable(paths.documents)
    documents = [d for d in table.read() if d.source == SCORED_SOURCE] if table.exists() else []
    if not documents:
        raise UsageError(
            f"no generated documents in {paths.documents}; run `gen documents --run "
            f"{paths.root}` first"
        )
    return documents


def run(paths: RunPaths, options: ScoreOptions) -> ScoreSummary:
    """Score the generated documents of `paths.documents` into `paths.quality`."""
    return ScoreRun(paths, options).execute()
