"""`gen translate`: labeled records into another language, their spans carried over.

The thesis wrote its documents in English and translated them with their sensitive
passages marked, so that one labeled corpus served two languages; `gen` writes natively
in every pack's language, and translates what native writing cannot give: a team's own
hand-labeled gold set, a reviewed dataset, or documents in a language the writer model
writes poorly. How a record is translated: `gen.translate.translator`; how its spans are
carried over: `gen.translate.carry`.

The plan is deterministic (the source's records sorted by language and id, each asked
with seeds derived from its id), and the stage resumes like every other one: a record
already in `RUN/translated`, or in `RUN/rejects/translate`, is not asked again; each
record is written once complete, so a crash or Ctrl-C costs at most the records in
flight. The tables are locked before the model loads, so a second process on the same
run stops at once.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gen import __version__
from gen.backends.streak import ErrorStreak
from gen.core.errors import GenError, UsageError
from gen.core.files import write_json_atomic
from gen.core.packs import LanguagePack, check_language, load_language_pack
from gen.core.progress import progress
from gen.core.record_files import read_record_file
from gen.core.records import Record
from gen.core.runs import RunPaths
from gen.core.shards import WHOLE, Shard
from gen.core.store import RecordTable
from gen.translate.answers import MODEL_ERROR, Translation
from gen.translate.stored import (
    STAGE,
    reject_record,
    translated_id,
    translated_record,
)
from gen.translate.summary import TranslateSummary
from gen.translate.translator import Translator

if TYPE_CHECKING:
    from gen.backends.base import Backend

#: The run tables `--source` may name; anything else is a record file or folder.
SOURCE_TABLES = ("labeled", "documents", "gold")


@dataclass(frozen=True)
class TranslateOptions:
    to: str
    source: str = "labeled"
    #: Only the records of this language (default: every language but the target).
    from_language: str | None = None
    prompt_format: str | None = None
    context_tokens: int = 4096
    seed: int = 0
    #: Words per piece (default: the pack's `piece_words`).
    piece_words: int | None = None
    shard: Shard = WHOLE
    #: Translate again the records this target's rejects hold (after a fix, with a better
    #: model); those that fail again go back to the rejects.
    retry_rejected: bool = False
    prompts_dir: Path | None = None
    #: The model, already loaded (tests), or None when `load_backend` is given.
    backend: Backend | None = None
    load_backend: Callable[[], Backend] | None = None


def source_records(paths: RunPaths, source: str) -> tuple[list[Record], str]:
    """The records `--source` names and where they are; a usage error when there are none."""
    if source in SOURCE_TABLES:
        folder = getattr(paths, source)
        records = RecordTable(folder).read() if RecordTable(folder).exists() else []
        if not records:
            raise UsageError(
                f"no records to translate in {folder} (--source {source}); expected "
                f"{', '.join(SOURCE_TABLES)} with records, or a record file"
            )
        return records, str(folder)
    return read_record_file(Path(source), "--source", span_source="gold"), source


class TranslateRun:
    """One invocation of `gen translate` against a run folder."""

    def __init__(self, paths: RunPaths, options: TranslateOptions) -> None:
        if options.backend is None and options.load_backend is None:
            raise UsageError("gen translate needs a model backend")
        self.paths = paths
        self.options = options
        self.summary = TranslateSummary(language=options.to)
        self.backend: Backend | None = options.backend
        self.translator: Translator | None = None
        self.abandon = threading.Event()
        self._errors = ErrorStreak()
        self.source_where = ""

    def execute(self) -> TranslateSummary:
        started = time.perf_counter()
        todo_all = self.plan()
        pack = self.load_pack()
        table = RecordTable(self.paths.translated, shard=self.options.shard)
        rejects = RecordTable(self.paths.rejects(STAGE), shard=self.options.shard)
        if self.options.retry_rejected:
            self.forget_rejects(rejects, todo_all)
        translating = False
        try:
            with table, rejects:  # locked before the model loads
                self.backend = self.backend or self.options.load_backend()  # type: ignore[misc]
                self.translator = Translator(
                    self.backend,
                    pack,
                    prompt_format=self.options.prompt_format,
                    context_tokens=self.options.context_tokens,
                    seed=self.options.seed,
                    piece_words=self.options.piece_words,
                    abandon=self.abandon,
                )
                translating = True
                self.translate_all(todo_all, table, rejects)
        except BaseException:
            self.abandon.set()
            if translating:
                with contextlib.suppress(GenError):
                    self.write_manifest(started)
            raise
        self.write_manifest(started)
        return self.summary

    def plan(self) -> list[Record]:
        """The records to translate, in a fixed order; the others counted by reason."""
        options = self.options
        check_language(options.to, options.prompts_dir)
        if options.from_language is not None:
            check_language(options.from_language, options.prompts_dir)
            if options.from_language == options.to:
                raise UsageError(f"--from and --to are both {options.to!r}")
        records, self.source_where = source_records(self.paths, options.source)
        self.summary.source_records = len(records)
        todo = []
        for record in records:
            if record.language == options.to:
                self.summary.skipped["already_in_target_language"] += 1
            elif options.from_language and record.language != options.from_language:
                self.summary.skipped["other_language"] += 1
            elif not options.shard.owns_key(record.id):
                self.summary.skipped["other_shard"] += 1
            else:
                todo.append(record)
        if not todo:
            reasons = ", ".join(
                f"{n} {why.replace('_', ' ')}" for why, n in self.summary.skipped.items()
            )
            raise UsageError(
                f"nothing to translate into {options.to!r} in {self.source_where}: {reasons}"
            )
        self.summary.to_translate = len(todo)
        return sorted(todo, key=lambda r: (r.language, r.id))

    def load_pack(self) -> LanguagePack:
        """The target pack and its translation prompts, checked before anything is locked."""
        pack = load_language_pack(self.options.to, self.options.prompts_dir)
        pack.formats.check_option(self.options.prompt_format)
        pack.translation  # noqa: B018 (loaded now: a missing or broken file stops here)
        pack.facts  # noqa: B018 (the finder of lost passages)
        return pack

    def forget_rejects(self, rejects: RecordTable, todo: Sequence[Record]) -> None:
        """Take the planned records of this target out of the rejects, so they are asked
        again; the table is rewritten whole (a second writer is refused)."""
        if not rejects.exists():
            return
        again = {translated_id(r.id, self.options.to) for r in todo}
        held = rejects.read()
        kept = [r for r in held if r.id not in again]
        self.summary.retried = len(held) - len(kept)
        if self.summary.retried:
            rejects.replace(kept)

    def translate_all(
        self, todo: Sequence[Record], table: RecordTable, rejects: RecordTable
    ) -> None:
        done = table.ids() | rejects.ids()
        to = self.options.to
        left = [r for r in todo if translated_id(r.id, to) not in done]
        workers = max(1, self.backend.concurrency if self.backend else 1)
        provenance = {"backend": self.backend.name, "model": self.backend.model_id}  # type: ignore[union-attr]
        failures = 0
        with (
            progress(f"{STAGE} {to}", len(todo), done=len(todo) - len(left)) as bar,
            ThreadPoolExecutor(max_workers=workers) as pool,
        ):
            for start in range(0, len(left), workers):
                batch = left[start : start + workers]
                results = list(pool.map(self.translator.translate, batch))  # type: ignore[union-attr]
                self.check_backend(results)
                for record, result in zip(batch, results, strict=True):
                    self.summary.add_cost(result.seconds, result.completion_tokens)
                    if result.failed is not None:
                        rejects.append(reject_record(record, to, result))
                        self.summary.new_rejected += 1
                        failures += 1
                    else:
                        table.append(translated_record(record, to, result, provenance))
                        self.summary.new_translated += 1
                bar.advance(len(batch), failures=failures)

    def check_backend(self, results: Sequence[Translation]) -> None:
        """Stop, without writing the batch, when the backend itself keeps failing."""
        for result in results:
            if result.failed is not None and result.failed.reason == MODEL_ERROR:
                self._errors.failed(result.failed.detail)
            else:
                self._errors.succeeded()

    def write_manifest(self, started: float) -> None:
        self.summary.wall_seconds = time.perf_counter() - started
        self.summary.tally(
            RecordTable(self.paths.translated).read(),
            RecordTable(self.paths.rejects(STAGE)).read(),
        )
        manifest: dict[str, Any] = self.summary.to_dict()
        pack = self.translator.pack if self.translator else None
        manifest.update(
            source=self.source_where,
            backend=self.backend.describe() if self.backend else None,
            prompts_sha256=pack.files_sha256 if pack else None,
            options={
                "to": self.options.to,
                "from": self.options.from_language,
                "seed": self.options.seed,
                "piece_words": self.translator.piece_words if self.translator else None,
                "prompt_format": self.options.prompt_format,
                "context_tokens": self.options.context_tokens,
            },
            translated_dir=str(self.paths.translated),
            rejects_dir=str(self.paths.rejects(STAGE)),
            gen_version=__version__,
        )
        write_json_atomic(
            self.paths.manifest(f"{STAGE}-{self.options.to}", self.options.shard), manifest
        )


def run(paths: RunPaths, options: TranslateOptions) -> TranslateSummary:
    """Translate the records of `options.source` into `options.to`, into `RUN/translated`."""
    return TranslateRun(paths, options).execute()
