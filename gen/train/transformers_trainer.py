"""The transformers trainer: token classification with the Hugging Face `Trainer`.

It fine-tunes `AutoModelForTokenClassification` from a local `--base-model` folder
(nothing is downloaded; a BERT, XLM-R or DeBERTa checkpoint with its fast tokenizer) on
the training documents cut by that model's tokenizer into windows of `--length` tokens
overlapping by `--stride` (256 and 64: a paragraph), the IO tag of each word on its first
sub-token (gen.export.formats.hf_tokens, as the `hf-tokens` export). It is meant to run
on a CPU:

- the word embeddings stay frozen (`--train-embeddings` trains them): they are most of a
  multilingual model's weights (96M of multilingual-e5-small's 117M), cost the most to
  update and store, and a few hundred documents cannot teach them much;
- torch takes the cores this process may run on (`--threads` to choose);
- the loss is cross-entropy weighted per tag (`--class-weights`: the square root of the
  inverse tag frequency by default, since almost every token is `O`, yet fully inverse
  weights taught a model to mark far too much);
- after each epoch the held-out documents (the run's `dev` split) are read as the detector
  reads a text, each label's threshold is chosen on them, and the epoch kept is the one
  with the best token micro-F1 of every label that is not negative, as `gen eval` scores
  tokens (gen.train.transformers_dev); the thresholds and, with `--snap-to-units`, the
  special categories that gain by snapping to clause units are chosen the same way on the
  kept epoch;
- a checkpoint is saved after each epoch in the work folder; a killed run resumes from
  the last one written whole.
"""

from __future__ import annotations

import hashlib
import json
import math
import shutil
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any, ClassVar

from gen.backends.models import file_sha256
from gen.core.errors import UsageError
from gen.core.packs import negative_labels
from gen.core.progress import progress, say
from gen.core.records import Record
from gen.export.formats.hf_tokens import cut_into_windows, load_tokenizer, tokenized_rows
from gen.text.words import tag_names
from gen.train import TrainSettings, require
from gen.train.data import TrainingData
from gen.train.transformers_detector import (
    FORMAT,
    MODEL,
    TransformersDetector,
    check_window,
    device_for,
    set_threads,
)
from gen.train.transformers_dev import HeldOut
from gen.train.transformers_loop import (
    ProgressCallback,
    WeightedLossTrainer,
    class_weights,
    resume_point,
)

torch = require("torch", "transformers")
transformers = require("transformers", "transformers")

transformers.logging.set_verbosity_error()
transformers.utils.logging.disable_progress_bar()

DEFAULT_BATCH = 8
DEFAULT_LEARNING_RATE = 5e-5
COLUMNS = ("input_ids", "attention_mask", "labels")
WEIGHTS = ("*.safetensors", "pytorch_model*.bin")


def base_folder(settings: TrainSettings) -> Path:
    """The `--base-model` folder, checked for what training reads from it."""
    if not settings.base_model:
        raise UsageError(
            "--trainer transformers needs --base-model DIR: a local model folder with its "
            "tokenizer (e.g. multilingual-e5-small, XLM-R or DeBERTa)"
        )
    folder = Path(settings.base_model).expanduser().resolve()
    if not folder.is_dir():
        raise UsageError(f"base model {settings.base_model} not found: expected a model folder")
    if not (folder / "config.json").is_file():
        raise UsageError(f"base model {folder} has no config.json: expected a Hugging Face folder")
    if not (folder / "tokenizer.json").is_file():
        raise UsageError(
            f"base model {folder} has no tokenizer.json: a fast tokenizer is needed (its "
            "offsets map tokens to characters); write one with AutoTokenizer.from_pretrained"
            "(DIR).save_pretrained(DIR)"
        )
    if not weight_files(folder):
        raise UsageError(
            f"base model {folder} has no weights: expected model.safetensors or pytorch_model.bin"
        )
    return folder


def weight_files(folder: Path) -> list[Path]:
    return sorted({path for pattern in WEIGHTS for path in folder.glob(pattern)})


def _known(record: Record, labels: Sequence[str]) -> Record:
    return replace(record, spans=[s for s in record.spans if s.label in labels])


class TransformersTrainer:
    name: ClassVar[str] = "transformers"
    export_format: ClassVar[str] = "hf-tokens"

    def check(self, settings: TrainSettings) -> None:
        check_window(base_folder(settings), settings.length, "--length")
        device_for(settings.device)

    def unused(self, settings: TrainSettings) -> dict[str, str]:
        names = ("component", "max_span_words", "encoder", "identifiers", "fill_unplanned")
        unused = dict.fromkeys(names, "--trainer transformers")
        if not settings.snap_to_units:
            context = "--trainer transformers --no-snap-to-units"
            unused |= dict.fromkeys(("unit", "unit_cover"), context)
        return unused

    def export_settings(self, settings: TrainSettings) -> dict[str, Any]:
        return {
            "tokenizer": base_folder(settings),
            "length": settings.length,
            "stride": settings.stride,
            "scheme": "io",
        }

    def fit(
        self, data: TrainingData, folder: Path, settings: TrainSettings, work: Path
    ) -> dict[str, Any]:
        base = base_folder(settings)
        device = device_for(settings.device)
        threads = set_threads(settings.threads)
        chosen = set(data.train_ids)
        train = [r for r in data.splits["train"] if r.id in chosen]
        labels = sorted({s.label for r in train for s in r.spans} - set(negative_labels()))
        if not labels:
            raise UsageError("the train split has no span to learn (none, or only negative ones)")
        tags = tag_names(labels)
        tag_ids = {tag: index for index, tag in enumerate(tags)}
        windows = load_tokenizer(base)
        cut_into_windows(windows, settings.length, settings.stride)
        train_rows = [
            {key: row[key] for key in COLUMNS}
            for record in train
            for row in tokenized_rows(_known(record, labels), windows, tag_ids, "io")
        ]
        held = HeldOut.of(data.splits["dev"], windows, tags)
        if not held.rows:
            raise UsageError("the dev split has no text to choose the epoch and thresholds on")
        sha256 = {path.name: file_sha256(path) for path in weight_files(base)}
        checkpoints = work / "checkpoints"
        key = hashlib.sha256(
            json.dumps([asdict(settings), sorted(chosen), sha256, device]).encode()
        ).hexdigest()
        key_file = work / "settings.sha256"
        if not key_file.is_file() or key_file.read_text() != key:
            shutil.rmtree(checkpoints, ignore_errors=True)
            key_file.write_text(key)
        resume = resume_point(checkpoints)
        if resume:
            say(f"resuming from {resume[0]} (step {resume[1]})")
        tokenizer = transformers.AutoTokenizer.from_pretrained(base, local_files_only=True)
        model = transformers.AutoModelForTokenClassification.from_pretrained(
            base,
            num_labels=len(tags),
            id2label=dict(enumerate(tags)),
            label2id=tag_ids,
            local_files_only=True,
            ignore_mismatched_sizes=True,
        )
        if not settings.train_embeddings:
            model.get_input_embeddings().requires_grad_(False)
        batch = settings.batch_size or DEFAULT_BATCH
        per_epoch = math.ceil(len(train_rows) / batch)
        cuda = device == "cuda"
        args = transformers.TrainingArguments(
            output_dir=str(checkpoints),
            num_train_epochs=settings.epochs,
            per_device_train_batch_size=batch,
            per_device_eval_batch_size=batch,
            learning_rate=settings.learning_rate or DEFAULT_LEARNING_RATE,
            weight_decay=0.01,
            eval_strategy="epoch",
            save_strategy="epoch",
            save_total_limit=2,
            load_best_model_at_end=True,
            metric_for_best_model="f1",
            greater_is_better=True,
            seed=settings.seed,
            use_cpu=not cuda,
            bf16=cuda and torch.cuda.is_bf16_supported(),
            fp16=cuda and not torch.cuda.is_bf16_supported(),
            report_to=[],
            disable_tqdm=True,
            logging_strategy="no",
        )
        callbacks: list[Any] = []
        if settings.patience:
            callbacks.append(transformers.EarlyStoppingCallback(settings.patience))
        done = resume[1] if resume else 0
        with progress("train transformers", settings.epochs * per_epoch, done=done) as bar:
            trainer = WeightedLossTrainer(
                model=model,
                args=args,
                train_dataset=train_rows,
                eval_dataset=held.rows,
                data_collator=transformers.DataCollatorForTokenClassification(tokenizer),
                compute_metrics=lambda p: held.choose(held.probabilities(p.predictions)).scores,
                callbacks=[*callbacks, ProgressCallback(bar)],
                tag_weights=class_weights(settings.class_weights, tags, train_rows),
            )
            trainer.remove_callback(transformers.PrinterCallback)
            trainer.train(resume_from_checkpoint=str(resume[0]) if resume else None)
        logits = trainer.predict(held.rows).predictions
        unit = settings.unit if settings.snap_to_units else None
        choice = held.choose(held.probabilities(logits), unit, settings.unit_cover)
        trainer.save_model(str(folder / MODEL))
        tokenizer.save_pretrained(str(folder / MODEL))
        # The detector cuts texts with this file, as the windows it learned from were cut.
        shutil.copyfile(base / "tokenizer.json", folder / MODEL / "tokenizer.json")
        state = trainer.state
        return {
            "format": FORMAT,
            "labels": labels,
            "tags": tags,
            "thresholds": {
                label: float(t) for label, t in zip(labels, choice.thresholds, strict=True)
            },
            "snap": choice.snapped,
            "unit": settings.unit,
            "unit_cover": settings.unit_cover,
            "languages": [
                language for language, _ in Counter(r.language or "en" for r in train).most_common()
            ],
            "base_model": str(base),
            "base_model_sha256": sha256,
            "device": device,
            "threads": threads,
            "trainable_parameters": sum(p.numel() for p in model.parameters() if p.requires_grad),
            "dev_score": {k: round(v, 4) for k, v in choice.scores.items()},
            "dev_f1_by_epoch": [
                round(entry["eval_f1"], 4) for entry in state.log_history if "eval_f1" in entry
            ],
            "best_epoch": math.ceil((state.best_global_step or state.global_step) / per_epoch),
            "train_windows": len(train_rows),
            "window": settings.length,
            "overlap": settings.stride,
            "resumed": resume is not None,
        }

    def load(self, folder: Path, info: dict[str, Any]) -> TransformersDetector:
        return TransformersDetector(Path(folder), info)
