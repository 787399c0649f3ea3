"""The spaCy trainer: spaCy's own config system and training loop, no download.

The config comes from `spacy init config` (the quickstart template, efficiency
preset, blank language) with an `ner` or `spancat` component trained from
scratch; only the training schedule is changed: epochs instead of steps, a fixed
batch size in words, one evaluation on dev per epoch, and spaCy keeps the best
evaluation as `model-best` (score: entity F1 for ner, span F1 for spancat).
With `--base-model`, the pipeline's `tok2vec` is sourced (and fine-tuned) as the
detector's embedding layer; its other components are left out.

spaCy's loop cannot resume an interrupted run: a re-run trains from the start.
"""

from __future__ import annotations

import io
import math
import shutil
import tempfile
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, ClassVar

from gen.core.errors import UsageError
from gen.core.files import write_atomic
from gen.core.progress import ProgressReporter, progress
from gen.export.formats.spacy_docbin import split_identifiers
from gen.predict.loader import DETECTOR_FILE
from gen.train import SPACY_COMPONENTS, TrainSettings, require
from gen.train.data import TrainingData
from gen.train.spacy_detector import SPANS_KEY, SpacyDetector

spacy = require("spacy", "train")
from spacy.tokens import DocBin  # noqa: E402
from spacy.training.initialize import init_nlp  # noqa: E402
from spacy.training.loop import train as train_nlp  # noqa: E402

DEFAULT_BATCH_WORDS = 200
#: Prediction windows in words (spaCy's context is local; windows bound memory).
WINDOW_WORDS = 256
WINDOW_OVERLAP = 64
LOGGER = "gen.progress_logger.v1"

_reporter: ContextVar[ProgressReporter | None] = ContextVar("spacy_reporter", default=None)


@spacy.registry.loggers(LOGGER)
def progress_logger() -> Any:
    """spaCy training logger that advances gen's progress bar, one step at a time."""

    def setup(nlp: Any, stdout: Any, stderr: Any) -> tuple[Any, Any]:
        def log_step(info: dict[str, Any] | None) -> None:
            reporter = _reporter.get()
            if reporter is None:
                return
            if info:
                reporter.advance(1, epoch=info["epoch"], dev=f"{info['score']:.3f}")
            else:
                reporter.advance(1)

        return log_step, lambda: None

    return setup


@contextmanager
def _reporting(reporter: ProgressReporter) -> Iterator[None]:
    token = _reporter.set(reporter)
    try:
        yield
    finally:
        _reporter.reset(token)


class SpacyTrainer:
    name: ClassVar[str] = "spacy"
    export_format: ClassVar[str] = "spacy"

    def check(self, settings: TrainSettings) -> None:
        if settings.base_model:
            _base_pipeline(settings.base_model)

    def unused(self, settings: TrainSettings) -> dict[str, str]:
        names = (
            "length",
            "stride",
            "class_weights",
            "device",
            "encoder",
            "unit",
            "unit_cover",
            "identifiers",
            "threads",
            "train_embeddings",
            "snap_to_units",
        )
        unused = dict.fromkeys(names, "--trainer spacy")
        if settings.component != "spancat":
            unused["max_span_words"] = f"--trainer spacy --component {settings.component}"
        return unused

    def export_settings(self, settings: TrainSettings) -> dict[str, Any]:
        return {"alignment_mode": "expand"}

    def fit(
        self, data: TrainingData, folder: Path, settings: TrainSettings, work: Path
    ) -> dict[str, Any]:
        language = _language(r.language for r in data.splits["train"])
        base = _base_pipeline(settings.base_model) if settings.base_model else None
        if base is not None:
            language = base.lang
        with tempfile.TemporaryDirectory(prefix="gen-spacy-", dir=work) as scratch_name:
            scratch = Path(scratch_name)
            vocab = spacy.blank(language).vocab
            train_docs = _docs(data.folder / "train.spacy", vocab, set(data.train_ids))
            dev_docs = _docs(data.folder / "dev.spacy", vocab, None)
            for name, docs in (("train", train_docs), ("dev", dev_docs)):
                bin_ = DocBin(docs=_for_component(docs, settings.component))
                bin_.to_disk(scratch / f"{name}.spacy")
            words = sum(len(doc) for doc in train_docs)
            batch = settings.batch_size or DEFAULT_BATCH_WORDS
            steps_per_epoch = max(1, math.ceil(words / batch))
            config = training_config(
                settings, language, base, scratch, batch=batch, eval_every=steps_per_epoch
            )
            # The tokenizer of the export, saved with the model: the same words at prediction.
            nlp = split_identifiers(init_nlp(config, use_gpu=-1))
            (scratch / "out").mkdir()
            quiet = io.StringIO()
            with (
                progress(
                    f"train spacy {settings.component}", settings.epochs * steps_per_epoch
                ) as bar,
                _reporting(bar),
            ):
                train_nlp(nlp, scratch / "out", use_gpu=-1, stdout=quiet, stderr=quiet)
            shutil.copytree(scratch / "out" / "model-best", folder / "model")
        _restore_console_logger(folder / "model" / "config.cfg")
        best = spacy.load(folder / "model")
        return {
            "component": settings.component,
            "language": language,
            "labels": sorted(best.get_pipe(settings.component).labels),
            "dev_score": {
                name: round(value, 4)
                for name, value in best.meta.get("performance", {}).items()
                if isinstance(value, float)
            },
            "train_words": words,
            "steps_per_epoch": steps_per_epoch,
            "window": WINDOW_WORDS,
            "overlap": WINDOW_OVERLAP,
        }

    def load(self, folder: Path, info: dict[str, Any]) -> SpacyDetector:
        if (component := info.get("component")) not in SPACY_COMPONENTS:
            where = Path(folder) / DETECTOR_FILE
            raise UsageError(f"{where}: component {component!r}; expected ner or spancat")
        try:
            nlp = spacy.load(Path(folder) / "model")
            nlp.get_pipe(component)
        except (OSError, ValueError, KeyError) as exc:
            raise UsageError(f"cannot load the spaCy model in {folder}/model: {exc}") from None
        return SpacyDetector(
            nlp,
            component,
            int(info.get("window") or WINDOW_WORDS),
            int(info.get("overlap") if info.get("overlap") is not None else WINDOW_OVERLAP),
        )


def _restore_console_logger(path: Path) -> None:
    """The saved config names spaCy's own logger, so `spacy train` can go on from it."""
    config = spacy.util.load_config(path, interpolate=False)
    config["training"]["logger"] = {"@loggers": "spacy.ConsoleLogger.v1", "progress_bar": False}
    write_atomic(path, config.to_str().encode())


def _language(languages: Iterator[str]) -> str:
    """The dataset's language if it has one, else spaCy's multi-language `xx`."""
    counts = Counter(languages)
    if len(counts) == 1:
        (language,) = counts
        try:
            spacy.blank(language)
            return language
        except ImportError:
            pass
    return "xx"


def _base_pipeline(name: str) -> Any:
    try:
        nlp = spacy.load(name)
    except OSError:
        raise UsageError(
            f"base model {name!r} not found: expected an installed spaCy pipeline "
            "(e.g. python -m spacy download en_core_web_sm) or a pipeline folder"
        ) from None
    if "tok2vec" not in nlp.pipe_names:
        raise UsageError(
            f"base model {name!r} has no tok2vec component (it has: "
            f"{', '.join(nlp.pipe_names) or 'none'}); only its tok2vec can be reused"
        )
    return nlp


def _docs(path: Path, vocab: Any, keep: set[str] | None) -> list[Any]:
    docs = list(DocBin().from_disk(path).get_docs(vocab))
    return [doc for doc in docs if keep is None or doc.user_data.get("id") in keep]


def _for_component(docs: list[Any], component: str) -> list[Any]:
    """spancat learns from `doc.spans["sc"]`; the export writes entities."""
    if component == "spancat":
        for doc in docs:
            doc.spans[SPANS_KEY] = list(doc.ents)
    return docs


def training_config(
    settings: TrainSettings, language: str, base: Any, work: Path, *, batch: int, eval_every: int
) -> Any:
    """spaCy's quickstart config for one component, with gen's schedule and paths."""
    from spacy.cli.init_config import init_config

    config = init_config(lang=language, pipeline=[settings.component], optimize="efficiency")
    training = config["training"]
    training.update(
        {
            "max_epochs": settings.epochs,
            "max_steps": 0,
            "eval_frequency": eval_every,
            "patience": settings.patience * eval_every,
            "seed": settings.seed,
        }
    )
    training["batcher"]["size"] = batch
    training["logger"] = {"@loggers": LOGGER}
    if settings.learning_rate is not None:
        training["optimizer"]["learn_rate"] = settings.learning_rate
    config["paths"].update({"train": str(work / "train.spacy"), "dev": str(work / "dev.spacy")})
    config["system"]["seed"] = settings.seed
    component = config["components"][settings.component]
    if settings.component == "spancat":
        component["suggester"] = {
            "@misc": "spacy.ngram_range_suggester.v1",
            "min_size": 1,
            "max_size": settings.max_span_words,
        }
    if base is not None:
        config["components"]["tok2vec"] = {"source": settings.base_model}
        component["model"]["tok2vec"]["width"] = base.get_pipe("tok2vec").model.get_dim("nO")
        if base.vocab.vectors.shape[0]:
            config["paths"]["vectors"] = settings.base_model
    return config
