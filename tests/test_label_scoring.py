"""Scored labels (`label_logprobs`) on every backend: probabilities of disjoint first tokens
(sum at most 1), and the argmax is the label a decoder restricted to the labels picks."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from stub_openai_server import StubOpenAIServer
from test_backend_openai import FAST_RETRY, LlamaCppServer, free_port

from gen.backends.base import (
    Backend,
    GenerationRequest,
    LabelScorer,
    SamplingParams,
    can_score_labels,
)
from gen.backends.openai_backend import OpenAIBackend
from gen.backends.scoring import label_first_tokens, logprobs_from_top, logprobs_of
from gen.core.errors import ModelError

LABELS = [" health", " other", " politic", " judicial"]
PROMPT = (
    "<|im_start|>user\nWhich kind of sensitive information does this sentence reveal: "
    "'She takes insulin for her diabetes.'? Answer health, politic, judicial or other."
    "<|im_end|>\n<|im_start|>assistant\nLabel:"
)


_VOCABULARY: dict[str, int] = {}


def words(text: str) -> list[int]:
    """A toy tokenizer: one token per word with its leading space (ids never collide, so
    labels share a first token only when they share a first word)."""
    pieces = text.replace(" ", "\0 ").split("\0")
    return [_VOCABULARY.setdefault(p, len(_VOCABULARY)) for p in pieces if p]


def test_first_tokens_are_found_after_the_prompt_and_must_differ() -> None:
    assert label_first_tokens(words, "x Label:", [" yes", " no"]) == words(" yes no")
    with pytest.raises(ModelError, match="start with the same token"):
        label_first_tokens(words, "Label:", [" yes", " yes please"])
    with pytest.raises(ModelError, match="merges with the end of the prompt"):
        label_first_tokens(words, "Label:", ["yes"])


def test_logprobs_of_is_a_log_softmax() -> None:
    logits = np.array([2.0, 1.0, 0.5, -3.0], dtype=np.float32)
    expected = logits - math.log(float(np.exp(logits).sum()))
    assert logprobs_of(logits, [0, 3]) == pytest.approx([expected[0], expected[3]])


def test_top_tokens_count_for_the_one_label_they_begin() -> None:
    top = {" health": -0.5, " he": -2.0, " ": -3.0, " other": -1.5, " x": -4.0}
    scored = logprobs_from_top(top, [" health", " other", " politic"])
    assert scored[0] == pytest.approx(math.log(math.exp(-0.5) + math.exp(-2.0)))
    assert scored[1] == pytest.approx(-1.5) and scored[2] == -math.inf


# -- openai: the top logprobs of the server -------------------------------------------------


@pytest.mark.parametrize(
    "answer",
    [
        {"tokens": [" health"], "top_logprobs": [{" health": -0.2, " other": -1.9}]},
        {
            "content": [
                {
                    "token": " health",
                    "logprob": -0.2,
                    "top_logprobs": [
                        {"token": " health", "logprob": -0.2},
                        {"token": " other", "logprob": -1.9},
                    ],
                }
            ]
        },
    ],
    ids=["completions", "llama-server"],
)
def test_openai_scores_from_either_logprobs_format(answer: dict) -> None:
    with StubOpenAIServer(models=[("m", "vllm")], logprobs=lambda body: answer) as server:
        backend = OpenAIBackend(server.url, retry=FAST_RETRY)
        assert can_score_labels(backend)
        scored = backend.label_logprobs("Label:", [" health", " other"])
    assert scored == pytest.approx([-0.2, -1.9])
    body = server.bodies[-1]
    assert body["max_tokens"] == 1 and body["logprobs"] == 20 and body["temperature"] == 0.0


def test_openai_without_logprobs_is_a_clear_error_and_generic_servers_do_not_score() -> None:
    with StubOpenAIServer(models=[("m", "llamacpp")]) as server:
        backend = OpenAIBackend(server.url, retry=FAST_RETRY)
        with pytest.raises(ModelError, match=r"no usable logprobs.*--answers generated"):
            backend.label_logprobs("Label:", [" a", " b"])
    with StubOpenAIServer(models=[("m", "openai")]) as server:
        assert not can_score_labels(OpenAIBackend(server.url, retry=FAST_RETRY))


# -- the real engines --------------------------------------------------------------------


def check_scores(scores: list[float], chosen: int) -> None:
    probabilities = [math.exp(score) for score in scores]
    assert all(0 <= p <= 1 for p in probabilities)
    assert sum(probabilities) <= 1 + 1e-6
    assert max(range(len(scores)), key=scores.__getitem__) == chosen


@pytest.fixture(scope="module")
def llama() -> Backend:
    from gen.backends import embedded_model_path
    from gen.backends.llama_cpp import LlamaCppBackend

    return LlamaCppBackend(embedded_model_path(), n_ctx=1024)


def restricted_greedy_llama(backend: Backend, prompt: str, labels: list[str]) -> int:
    """The label create_completion picks when only the labels' first tokens are allowed."""
    llama = backend._llama  # type: ignore[attr-defined]
    allowed = label_first_tokens(backend._tokens, prompt, labels)  # type: ignore[attr-defined]

    def only_labels(input_ids: object, scores: np.ndarray) -> np.ndarray:
        masked = np.full_like(scores, -np.inf)
        masked[allowed] = scores[allowed]
        return masked

    from llama_cpp import LogitsProcessorList

    result = backend.on_engine_thread(  # type: ignore[attr-defined]
        llama.create_completion,
        prompt=prompt,
        max_tokens=1,
        temperature=0.0,
        logits_processor=LogitsProcessorList([only_labels]),
    )
    return [label.strip() for label in labels].index(result["choices"][0]["text"].strip())


@pytest.mark.model
def test_llama_cpp_scores_agree_with_restricted_greedy_decoding(llama: Backend) -> None:
    assert isinstance(llama, LabelScorer) and can_score_labels(llama)
    for prompt in (PROMPT, PROMPT.replace("insulin for her diabetes", "a walk on Sundays")):
        scores = llama.label_logprobs(prompt, LABELS)  # type: ignore[attr-defined]
        check_scores(scores, restricted_greedy_llama(llama, prompt, LABELS))


@pytest.mark.model
def test_llama_cpp_scores_do_not_depend_on_what_the_cache_holds(llama: Backend) -> None:
    first = llama.label_logprobs(PROMPT, LABELS)  # type: ignore[attr-defined]
    other = PROMPT.replace("insulin", "aspirin")
    llama.label_logprobs(other, LABELS)  # type: ignore[attr-defined]
    llama.generate(GenerationRequest(other, SamplingParams(temperature=0.0, max_tokens=4)))
    assert llama.label_logprobs(PROMPT, LABELS) == pytest.approx(first, abs=1e-4)  # type: ignore[attr-defined]


def tiny_transformers_model(folder: Path) -> Path:
    """A random 2-layer Llama with a byte-level BPE tokenizer trained here: nothing
    downloaded, a few hundred kilobytes."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400,
        special_tokens=["<s>", "</s>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    corpus = [f"Passage: a sentence.\nLabel:{label}" for label in LABELS] * 20
    tokenizer.train_from_iterator(corpus, trainer)
    fast = transformers.PreTrainedTokenizerFast(
        tokenizer_object=tokenizer, bos_token="<s>", eos_token="</s>"
    )
    fast.save_pretrained(folder)
    config = transformers.LlamaConfig(
        vocab_size=len(fast),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=128,
        bos_token_id=0,
        eos_token_id=1,
    )
    torch.manual_seed(0)
    transformers.LlamaForCausalLM(config).save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Backend:
    from gen.backends.transformers_backend import TransformersBackend

    folder = tiny_transformers_model(tmp_path_factory.mktemp("tiny"))
    return TransformersBackend(folder, device="cpu", dtype="float32")


@pytest.mark.parametrize("prompt", ["Passage: a sentence.\nLabel:", "Passage: other.\nLabel:"])
def test_transformers_scores_agree_with_restricted_greedy_decoding(
    tiny: Backend, prompt: str
) -> None:
    backend = tiny
    assert can_score_labels(backend)
    scores = backend.label_logprobs(prompt, LABELS)
    allowed = label_first_tokens(backend._token_ids, prompt, LABELS)
    inputs = backend._encode(prompt)
    output = backend._model.generate(
        **inputs,
        max_new_tokens=1,
        do_sample=False,
        prefix_allowed_tokens_fn=lambda batch, ids: allowed,
        pad_token_id=1,
    )
    check_scores(scores, allowed.index(int(output[0, -1])))


@pytest.mark.model
def test_openai_scores_against_a_real_server_match_llama_cpp(
    llama: Backend, tmp_path: Path
) -> None:
    pytest.importorskip("llama_cpp.server.app")
    from gen.backends import embedded_model_path

    server = LlamaCppServer(embedded_model_path(), free_port(), tmp_path / "server.log")
    server.start()
    try:
        backend = OpenAIBackend(server.url, concurrency=1, retry=FAST_RETRY)
        assert can_score_labels(backend)
        served = backend.label_logprobs(PROMPT, LABELS)
    finally:
        server.kill()
    local = llama.label_logprobs(PROMPT, LABELS)  # type: ignore[attr-defined]
    check_scores(served, max(range(len(local)), key=local.__getitem__))
    for mine, theirs in zip(local, served, strict=True):
        if theirs > -math.inf:  # labels outside the server's top 20 are not reported
            assert theirs == pytest.approx(mine, abs=0.05)
