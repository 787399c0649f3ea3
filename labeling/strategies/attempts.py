"""What the strategies that ask a model share: prompts with a constant per-category
prefix, token counts, and asking with one retry.

A model answer is usable or not; an unusable one (backend error, answer in the
wrong shape, alignment failed) is retried once with another seed and a warmer
temperature, and after that it is a failure with a reason and the raw answers,
never silently dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from gen.backends.base import Backend, GenerationRequest, SamplingParams
from gen.backends.prompting import PromptParts, RenderedPrompt, TokenCounter, render_prompt
from gen.core.errors import GenError, UsageError
from gen.core.packs import Formats
from gen.core.seeds import derive_seed
from labeling.config import LabelingPrompts
from labeling.strategies import LabelerSetup
from labeling.strategies.outcome import MODEL_ERROR, StrategyOutcome

#: Tries per model question: the first answer and one retry.
ATTEMPTS = 2

ParsedT = TypeVar("ParsedT")


class AnswerError(Exception):
    """A model answer that cannot be used; `reason` is a short code counted in the manifest."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


class PromptRenderer:
    """Renders the labeling prompts of one language in the configured format."""

    def __init__(
        self,
        backend: Backend,
        prompts: LabelingPrompts,
        formats: Formats,
        format_name: str | None = None,
    ) -> None:
        self.formats = formats
        self.format_name = format_name or prompts.format
        self._chat_template = backend.chat_template()

    def render(self, parts: PromptParts) -> RenderedPrompt:
        return render_prompt(parts, self.format_name, self.formats, self._chat_template)


class LlmLabeler:
    """What a labeler built on one model and one language pack holds."""

    #: The strategy's name, set by each subclass.
    strategy: str

    def __init__(self, setup: LabelerSetup) -> None:
        if setup.options.backend is None:
            raise UsageError(f"strategy {self.strategy} needs a model backend")
        self.backend: Backend = setup.options.backend
        self.pack = setup.pack
        self.prompts = setup.prompts
        self.options = setup.options
        self.context_tokens = setup.options.context_tokens
        self.seed = setup.options.seed
        self.renderer = PromptRenderer(
            self.backend, self.prompts, self.pack.formats, setup.options.prompt_format
        )
        self.count_tokens = TokenCounter(self.backend)

    def is_sensitive(self, category: str) -> bool:
        return self.pack.categories.categories[category].sensitive

    def label_of(self, category: str) -> str:
        """The span label of `category` (categories.yaml)."""
        return self.pack.categories.categories[category].label


def sampling(
    prompts: LabelingPrompts, attempt: int, max_tokens: int, stop: tuple[str, ...]
) -> SamplingParams:
    config = prompts.sampling
    return SamplingParams(
        temperature=config.temperature if attempt == 0 else config.retry_temperature,
        top_p=config.top_p,
        top_k=config.top_k,
        repeat_penalty=config.repeat_penalty,
        max_tokens=max_tokens,
        stop=stop,
    )


def ask(
    backend: Backend,
    prompts: LabelingPrompts,
    rendered: RenderedPrompt,
    *,
    max_tokens: int,
    seed_parts: tuple[object, ...],
    outcome: StrategyOutcome,
    accept: Callable[[str], ParsedT],
    grammar: str | None = None,
) -> ParsedT:
    """Ask up to `ATTEMPTS` times until `accept` takes the answer text (it raises
    AnswerError otherwise); every answer and its cost is recorded on `outcome`. Raises the
    last AnswerError when no answer was usable."""
    error = AnswerError("no_answer")
    for attempt in range(ATTEMPTS):
        request = GenerationRequest(
            prompt=rendered.text,
            sampling=sampling(prompts, attempt, max_tokens, rendered.stop),
            seed=derive_seed(*seed_parts, attempt),
            grammar=grammar,
        )
        try:
            completion = backend.generate(request)
        except GenError as exc:
            outcome.answers.append("")
            error = AnswerError(MODEL_ERROR, str(exc))
            continue
        outcome.add(completion)
        outcome.answers.append(completion.text)
        try:
            return accept(completion.text)
        except AnswerError as exc:
            error = exc
    raise error
