"""The transformers trainer: token classification with the Hugging Face `Trainer`.

It fine-tunes `AutoModelForTokenClassification` from a local `--base-model` folder
(nothing is downloaded) on the `hf-tokens` export made with that model's own
tokenizer: windows of `--length` tokens overlapping by `--stride` (thesis best:
100 and 20), the label on each word's first sub-token. The loss is cross-entropy
weighted per tag (`--class-weights`: inverse tag frequency by default, as the
thesis's weighted softmax, since almost every token is `O`). Dev is scored with
seqeval after each epoch and the best epoch is kept. Checkpoints are saved each
epoch in the work folder, so an interrupted run resumes where it stopped.
"""

from __future__ import annotations

import hashlib
import json
import math
import shutil
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any, ClassVar

from gen.core.errors import UsageError
from gen.core.progress import progress
from gen.export.formats.hf_tokens import IGNORED
from gen.text.words import OUTSIDE
from gen.train import TrainSettings, require
from gen.train.data import TrainingData

torch = require("torch", "transformers")
transformers = require("transformers", "transformers")

transformers.logging.set_verbosity_error()
transformers.utils.logging.disable_progress_bar()

DEFAULT_BATCH = 16
DEFAULT_LEARNING_RATE = 5e-5


def _base_folder(settings: TrainSettings) -> Path:
    if not settings.base_model:
        raise UsageError(
            "--trainer transformers needs --base-model DIR: a local model folder with its "
            "tokenizer (e.g. a multilingual BERT or XLM-R checkpoint)"
        )
    folder = Path(settings.base_model).expanduser().resolve()
    if not (folder / "config.json").is_file():
        raise UsageError(
            f"base model {settings.base_model} not found: expected a folder with config.json"
        )
    return folder


def device_for(name: str) -> str:
    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cuda" and not torch.cuda.is_available():
        raise UsageError("--device cuda: torch sees no CUDA device")
    return name


def class_weights(
    setting: str, tags: Sequence[str], rows: Sequence[dict[str, Any]]
) -> list[float] | None:
    """Per-tag loss weights: None, inverse frequency (N / (K * n_tag)), or a JSON file."""
    if setting == "none":
        return None
    if setting == "inverse":
        counts = Counter(label for row in rows for label in row["labels"] if label != IGNORED)
        total = sum(counts.values())
        return [total / (len(tags) * counts[i]) if counts[i] else 1.0 for i in range(len(tags))]
    try:
        given = json.loads(Path(setting).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(
            f"--class-weights {setting}: expected a JSON object {{tag: weight}} ({exc})"
        ) from None
    unknown = set(given) - set(tags) if isinstance(given, dict) else {"(not an object)"}
    if unknown:
        raise UsageError(
            f"--class-weights {setting}: unknown tags {sorted(unknown)}; tags: {', '.join(tags)}"
        )
    return [float(given.get(tag, 1.0)) for tag in tags]


class WeightedLossTrainer(transformers.Trainer):
    """`Trainer` with a per-tag weighted cross-entropy."""

    def __init__(self, *args: Any, tag_weights: list[float] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.tag_weights = tag_weights

    def compute_loss(
        self, model: Any, inputs: dict[str, Any], return_outputs: bool = False, **kwargs: Any
    ) -> Any:
        labels = inputs.pop("labels")
        outputs = model(**inputs)
        logits = outputs.logits
        weight = (
            None
            if self.tag_weights is None
            else torch.tensor(self.tag_weights, device=logits.device, dtype=logits.dtype)
        )
        loss = torch.nn.functional.cross_entropy(
            logits.view(-1, logits.shape[-1]), labels.view(-1), weight=weight, ignore_index=IGNORED
        )
        return (loss, outputs) if return_outputs else loss


class _ProgressCallback(transformers.TrainerCallback):
    def __init__(self, bar: Any) -> None:
        self.bar = bar

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self.bar.advance(1, epoch=f"{state.epoch:.1f}")

    def on_evaluate(
        self, args: Any, state: Any, control: Any, metrics: dict | None = None, **kwargs: Any
    ) -> None:
        if metrics and "eval_f1" in metrics:
            self.bar.update(dev=f"{metrics['eval_f1']:.3f}")


def _seqeval(tags: Sequence[str]) -> Any:
    seqeval = require("seqeval.metrics", "transformers")

    def compute(prediction: Any) -> dict[str, float]:
        logits, labels = prediction
        predicted = logits.argmax(-1)
        gold_seqs, pred_seqs = [], []
        for gold_row, pred_row in zip(labels, predicted, strict=True):
            kept = [(g, p) for g, p in zip(gold_row, pred_row, strict=True) if g != IGNORED]
            gold_seqs.append([tags[g] for g, _ in kept])
            pred_seqs.append([tags[p] for _, p in kept])
        return {
            "precision": seqeval.precision_score(gold_seqs, pred_seqs, zero_division=0),
            "recall": seqeval.recall_score(gold_seqs, pred_seqs, zero_division=0),
            "f1": seqeval.f1_score(gold_seqs, pred_seqs, zero_division=0),
        }

    return compute


class TransformersTrainer:
    name: ClassVar[str] = "transformers"
    export_format: ClassVar[str] = "hf-tokens"

    def check(self, settings: TrainSettings) -> None:
        _base_folder(settings)
        device_for(settings.device)

    def unused(self, settings: TrainSettings) -> dict[str, str]:
        names = (
            "component",
            "max_span_words",
            "encoder",
            "unit",
            "unit_cover",
            "identifiers",
            "fill_unplanned",
        )
        return dict.fromkeys(names, "--trainer transformers")

    def export_settings(self, settings: TrainSettings) -> dict[str, Any]:
        return {
            "tokenizer": _base_folder(settings),
            "length": settings.length,
            "stride": settings.stride,
            "scheme": "io",
        }

    def fit(
        self, data: TrainingData, folder: Path, settings: TrainSettings, work: Path
    ) -> dict[str, Any]:
        import pyarrow.parquet as pq

        base = _base_folder(settings)
        device = device_for(settings.device)
        tags = (data.folder / "labels.txt").read_text(encoding="utf-8").split()
        keep = set(data.train_ids)
        columns = ["input_ids", "attention_mask", "labels"]
        train_rows = [
            r
            for r in pq.read_table(data.folder / "train.parquet").to_pylist()
            if r["record_id"] in keep
        ]
        dev_rows = pq.read_table(data.folder / "dev.parquet").to_pylist()
        if not train_rows:
            raise UsageError(f"the train split of {data.folder} has no windows")
        tokenizer = transformers.AutoTokenizer.from_pretrained(base, local_files_only=True)
        model = transformers.AutoModelForTokenClassification.from_pretrained(
            base,
            num_labels=len(tags),
            id2label=dict(enumerate(tags)),
            label2id={tag: i for i, tag in enumerate(tags)},
            local_files_only=True,
            ignore_mismatched_sizes=True,
        )
        batch = settings.batch_size or DEFAULT_BATCH
        steps = settings.epochs * math.ceil(len(train_rows) / batch)
        checkpoints = work / "checkpoints"
        key = hashlib.sha256(json.dumps([asdict(settings), sorted(keep)]).encode()).hexdigest()
        key_file = work / "settings.sha256"
        if not key_file.is_file() or key_file.read_text() != key:
            shutil.rmtree(checkpoints, ignore_errors=True)
            key_file.write_text(key)
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
        with progress("train transformers", steps) as bar:
            trainer = WeightedLossTrainer(
                model=model,
                args=args,
                train_dataset=[{k: r[k] for k in columns} for r in train_rows],
                eval_dataset=[{k: r[k] for k in columns} for r in dev_rows],
                data_collator=transformers.DataCollatorForTokenClassification(tokenizer),
                compute_metrics=_seqeval(tags),
                callbacks=[*callbacks, _ProgressCallback(bar)],
                tag_weights=class_weights(settings.class_weights, tags, train_rows),
            )
            trainer.remove_callback(transformers.PrinterCallback)
            resume = any(checkpoints.glob("checkpoint-*"))
            trainer.train(resume_from_checkpoint=True if resume else None)
        dev = trainer.evaluate()
        trainer.save_model(str(folder / "model"))
        tokenizer.save_pretrained(str(folder / "model"))
        return {
            "labels": sorted({tag.partition("-")[2] for tag in tags if tag != OUTSIDE}),
            "tags": tags,
            "base_model": str(base),
            "device": device,
            "dev_score": {k: round(v, 4) for k, v in dev.items() if isinstance(v, float)},
            "train_windows": len(train_rows),
            "window": settings.length,
            "overlap": settings.stride,
            "resumed": resume,
        }

    def load(self, folder: Path, info: dict[str, Any]) -> Any:
        from gen.train.transformers_detector import TransformersDetector

        return TransformersDetector(
            Path(folder) / "model",
            device_for(info.get("device_for_prediction", "auto")),
            int(info.get("window") or 100),
            int(info.get("overlap") or 0),
        )
