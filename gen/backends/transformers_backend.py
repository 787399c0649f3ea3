"""A local Hugging Face model through transformers: the GPU path (and GPTQ checkpoints).

Accepts a model folder (safetensors, possibly GPTQ-quantized) or a single GGUF file,
which transformers de-quantizes on load. Everything is read offline; nothing is
downloaded. torch and transformers are imported only when this backend is chosen.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from gen.backends.base import Capabilities, ChatTemplate, Completion, GenerationRequest
from gen.backends.models import LocalModelOptions
from gen.backends.scoring import label_first_tokens, logprobs_of
from gen.backends.spec import BackendSpec, cli
from gen.core.errors import ModelError, UsageError

Device = Literal["auto", "cpu", "cuda"]
DTYPES = ("auto", "float32", "float16", "bfloat16")


@dataclass(frozen=True)
class TransformersOptions(LocalModelOptions):
    device: Device = field(default="auto", metadata=cli("--device", "Device (transformers)."))
    dtype: str = field(
        default="auto",
        metadata=cli("--dtype", f"Weights dtype: {', '.join(DTYPES)} (transformers)."),
    )


def _quantization_method(folder: Path) -> str | None:
    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return (config.get("quantization_config") or {}).get("quant_method")


class TransformersBackend:
    """Generates one sequence at a time; sampling matches the llama.cpp backend's settings."""

    name = "transformers"
    concurrency = 1
    capabilities = Capabilities(counts_tokens=True, logprobs=True)

    def __init__(self, model_path: Path, *, device: Device = "auto", dtype: str = "auto") -> None:
        model_path = Path(model_path)
        if not model_path.exists():
            raise ModelError(
                f"model not found: {model_path} "
                "(expected a Hugging Face model folder or a .gguf file)"
            )
        if dtype not in DTYPES:
            raise UsageError(f"--dtype must be one of {', '.join(DTYPES)}, got {dtype!r}")
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        import torch
        import transformers

        self._torch = torch
        self._transformers = transformers
        is_gguf = model_path.is_file()
        folder = model_path.parent if is_gguf else model_path
        self.model_id = model_path.name
        self.quantization = "gguf" if is_gguf else _quantization_method(folder)
        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        elif device == "cuda" and not torch.cuda.is_available():
            raise UsageError("--device cuda: torch sees no CUDA device here; use cpu or auto")
        self.device = device
        options: dict[str, Any] = {"local_files_only": True}
        if is_gguf:
            options["gguf_file"] = model_path.name
        try:
            self._tokenizer = transformers.AutoTokenizer.from_pretrained(folder, **options)
            self._model = transformers.AutoModelForCausalLM.from_pretrained(
                folder,
                dtype=dtype,
                device_map="auto" if device == "cuda" else device,
                **options,
            )
        except ImportError as exc:
            extra = " (GPTQ checkpoints need: pip install '.[gptq]')" if self.quantization else ""
            raise ModelError(f"cannot load {model_path}: {exc}{extra}") from None
        except (OSError, ValueError) as exc:
            raise ModelError(f"cannot load {model_path} with transformers: {exc}") from None
        self._model.eval()
        # Seeding is process-global in torch: one generation at a time keeps seeds meaningful.
        self._lock = threading.Lock()

    def _encode(self, prompt: str) -> Any:
        bos = self._tokenizer.bos_token
        add_special = not (bos and prompt.startswith(bos))
        return self._tokenizer(prompt, return_tensors="pt", add_special_tokens=add_special).to(
            self._model.device
        )

    def count_tokens(self, text: str) -> int:
        return len(self._tokenizer(text, add_special_tokens=False)["input_ids"])

    def generate(self, request: GenerationRequest) -> Completion:
        sampling = request.sampling
        options: dict[str, Any] = {
            "max_new_tokens": sampling.max_tokens,
            "repetition_penalty": sampling.repeat_penalty,
            "pad_token_id": self._tokenizer.pad_token_id or self._tokenizer.eos_token_id,
        }
        if sampling.temperature > 0:
            options |= {
                "do_sample": True,
                "temperature": sampling.temperature,
                "top_p": sampling.top_p,
                "top_k": sampling.top_k,
            }
        else:
            options["do_sample"] = False
        if sampling.stop:
            options |= {"stop_strings": list(sampling.stop), "tokenizer": self._tokenizer}
        with self._lock, self._torch.inference_mode():
            if request.seed is not None:
                self._transformers.set_seed(request.seed)
            inputs = self._encode(request.prompt)
            started = time.perf_counter()
            output = self._model.generate(**inputs, **options)
            seconds = time.perf_counter() - started
        prompt_tokens = inputs["input_ids"].shape[1]
        new_tokens = output[0, prompt_tokens:]
        text = self._tokenizer.decode(new_tokens, skip_special_tokens=True)
        cut = min((i for i in (text.find(s) for s in sampling.stop) if i >= 0), default=-1)
        ended = cut >= 0 or (
            len(new_tokens) > 0 and int(new_tokens[-1]) == self._tokenizer.eos_token_id
        )
        return Completion(
            text=text[:cut] if cut >= 0 else text,
            prompt_tokens=prompt_tokens,
            completion_tokens=len(new_tokens),
            seconds=seconds,
            finish_reason="stop" if ended or len(new_tokens) < sampling.max_tokens else "length",
        )

    def label_logprobs(self, prompt: str, labels: Sequence[str]) -> list[float]:
        """The logits of one forward pass over the prompt, at its last position."""
        firsts = label_first_tokens(self._token_ids, prompt, labels)
        with self._lock, self._torch.inference_mode():
            logits = self._model(**self._encode(prompt)).logits[0, -1]
        return logprobs_of(logits.float().cpu().numpy(), firsts)

    def _token_ids(self, text: str) -> list[int]:
        return self._tokenizer(text, add_special_tokens=False)["input_ids"]

    def chat_template(self) -> ChatTemplate | None:
        source = self._tokenizer.chat_template
        if not source:
            return None
        return ChatTemplate(
            source=source,
            bos_token=self._tokenizer.bos_token or "",
            eos_token=self._tokenizer.eos_token or "",
        )

    def describe(self) -> dict[str, object]:
        return {
            "backend": self.name,
            "model": self.model_id,
            "quantization": self.quantization,
            "device": self.device,
            "dtype": str(self._model.dtype).removeprefix("torch."),
            "torch": self._torch.__version__,
            "transformers": self._transformers.__version__,
            "grammar": "parse-and-retry",
        }


def create(options: TransformersOptions) -> TransformersBackend:
    return TransformersBackend(options.model_path(), device=options.device, dtype=options.dtype)


BACKEND = BackendSpec(name="transformers", options=TransformersOptions, create=create, rank=10)
