"""Settings that cannot work, refused before the first request.

Two rules, both conservative (they refuse only what is certain to fail):

- **--max-tokens must be able to reach min_chars.** A token of a BPE vocabulary covers
  3-4.5 characters of prose (SmolLM2's tokenizer: 3.4 on the English prompt pack, 2.7 on
  the Italian one, 4.3 on English Wikipedia paragraphs). At `MAX_CHARS_PER_TOKEN` = 6,
  well above any of these, `max_tokens * 6 < min_chars` means that no answer can pass the
  length check, so every one would be rejected as too_short.
- **A prompt plus --max-tokens must fit the context window.** Otherwise llama.cpp stops
  the answer at --ctx without an error. The prompts the run will send first are counted
  with the backend's tokenizer; a backend that cannot count tokens gets a lower bound,
  `len(prompt) / MAX_CHARS_PER_TOKEN`. A later prompt that still does not fit is caught
  when it comes back: the document is flagged `ctx_truncated` and counted.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from gen.backends.base import Backend
from gen.core.errors import UsageError
from gen.core.packs import LanguagePack
from gen.generate.plan import PlanSpec, validate_spec

#: More characters per token than any prose reaches with the tokenizers we know.
MAX_CHARS_PER_TOKEN = 6
#: How many of the first prompts of a run are counted before it starts.
CHECKED_PROMPTS = 32


@dataclass(frozen=True)
class TokenLimit:
    """The answer's token limit and where it comes from, for messages."""

    tokens: int
    #: True: --max-tokens; False: sampling.max_tokens of the generation file.
    from_option: bool
    generation_file: Path

    def __str__(self) -> str:
        if self.from_option:
            return f"--max-tokens {self.tokens}"
        return f"sampling.max_tokens {self.tokens} ({self.generation_file})"


def check_reach(limit: TokenLimit, min_chars: int) -> None:
    """Refuse a token limit that cannot produce min_chars characters."""
    reach = limit.tokens * MAX_CHARS_PER_TOKEN
    if reach >= min_chars:
        return
    needed = math.ceil(min_chars / MAX_CHARS_PER_TOKEN)
    raise UsageError(
        f"{limit} cannot reach checks.min_chars {min_chars} of {limit.generation_file}: even at "
        f"{MAX_CHARS_PER_TOKEN} characters per token (more than prose averages) {limit.tokens} "
        f"tokens make at most {reach} characters; use --max-tokens {needed} or more"
    )


def token_limit(pack: LanguagePack, spec: PlanSpec, max_tokens: int | None) -> TokenLimit:
    """The answer's token limit, after refusing a plan or limit that cannot work."""
    validate_spec(pack, spec)
    limit = TokenLimit(
        tokens=max_tokens or pack.generation.sampling.max_tokens,
        from_option=max_tokens is not None,
        generation_file=pack.folder / "generation.yaml",
    )
    check_reach(limit, pack.generation.checks.min_chars)
    return limit


def prompt_tokens(backend: Backend, prompt: str) -> tuple[int, bool]:
    """Tokens of `prompt`, and whether the count is exact (else a lower bound)."""
    if backend.capabilities.counts_tokens:
        return backend.count_tokens(prompt), True  # type: ignore[attr-defined]
    return len(prompt) // MAX_CHARS_PER_TOKEN, False


def check_context(
    backend: Backend, prompts: Iterable[tuple[str, str]], limit: TokenLimit, n_ctx: int
) -> None:
    """Refuse when the largest of `prompts` (item id, prompt text) plus the token limit
    exceeds the context window."""
    counted = [(prompt_tokens(backend, text), item_id) for item_id, text in prompts]
    if not counted:
        return
    (tokens, exact), item_id = max(counted)
    max_tokens = limit.tokens
    if tokens + max_tokens <= n_ctx:
        return
    size = f"{tokens} tokens" if exact else f"at least {tokens} tokens (estimated)"
    if tokens >= n_ctx:
        advice = f"raise --ctx above {tokens} or shorten the prompts"
    else:
        advice = (
            f"raise --ctx to {tokens + max_tokens} or more, or lower --max-tokens to "
            f"{n_ctx - tokens} or less"
        )
    raise UsageError(
        f"the prompt of {item_id} has {size}; with {limit} that is "
        f"{tokens + max_tokens}, over --ctx {n_ctx}: {advice}"
    )
