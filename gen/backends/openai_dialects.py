"""What differs between OpenAI-compatible servers, so the openai backend stays one client.

llama.cpp's server and vLLM both speak `/v1/completions`, but each names its sampling
settings and takes a grammar its own way, and they return the top log-probabilities of
an answer in different shapes; a generic server gets the common fields only. The kind of
a server is told from the `owned_by` of its `/v1/models` entries.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from gen.backends.base import GenerationRequest

ServerKind = Literal["auto", "llamacpp", "vllm", "generic"]
#: Server kinds that constrain answers with a grammar.
GRAMMAR_KINDS = ("llamacpp", "vllm")
#: Server kinds whose completions return top log-probabilities (labels are scored).
LOGPROB_KINDS = ("llamacpp", "vllm")
#: `owned_by` of `/v1/models` entries, as each server fills it in.
_OWNERS_TO_KIND = {"llamacpp": "llamacpp", "me": "llamacpp", "vllm": "vllm"}


def detect_kind(served: list[dict[str, Any]], model_id: str) -> str:
    """The kind of the server that lists `served` for `model_id`; generic when unsure."""
    owners = {entry.get("owned_by") for entry in served if entry.get("id") == model_id}
    kinds = {_OWNERS_TO_KIND.get(str(owner), "generic") for owner in owners}
    return kinds.pop() if len(kinds) == 1 else "generic"


def completion_body(kind: str, model_id: str, request: GenerationRequest) -> dict[str, Any]:
    """The JSON of a `/v1/completions` request for `request`, in the dialect of `kind`."""
    sampling = request.sampling
    body: dict[str, Any] = {
        "model": model_id,
        "prompt": request.prompt,
        "max_tokens": sampling.max_tokens,
        "temperature": sampling.temperature,
        "top_p": sampling.top_p,
    }
    if sampling.stop:
        body["stop"] = list(sampling.stop)
    if request.seed is not None:
        body["seed"] = request.seed
    if kind == "llamacpp":
        body |= {"top_k": sampling.top_k, "repeat_penalty": sampling.repeat_penalty}
        if request.grammar:
            body["grammar"] = request.grammar
    elif kind == "vllm":
        # Older vLLM releases accept only -1 for "no top-k", newer ones both -1 and 0.
        body |= {"top_k": sampling.top_k or -1, "repetition_penalty": sampling.repeat_penalty}
        if request.grammar:
            body["structured_outputs"] = {"grammar": request.grammar}
    return body


def top_logprobs(answer: Any) -> Mapping[str, float] | None:
    """Token text -> logprob of the first answer token, in the completions format
    (`top_logprobs: [{token: logprob}]`) or llama-server's (`content: [{top_logprobs}]`);
    None when the answer has neither."""
    try:
        logprobs = answer["choices"][0].get("logprobs") or {}
        if logprobs.get("top_logprobs"):
            return dict(logprobs["top_logprobs"][0])
        if logprobs.get("content"):
            top = logprobs["content"][0]["top_logprobs"]
            return {entry["token"]: float(entry["logprob"]) for entry in top}
    except (KeyError, IndexError, TypeError, AttributeError, ValueError):
        pass
    return None
