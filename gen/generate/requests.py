"""What `gen documents` sends for a plan item: the rendered prompt and its request.

`gen bench` sends the same requests through a bare engine loop, so both come from here.
"""

from __future__ import annotations

from gen.backends.base import Backend, GenerationRequest, SamplingParams
from gen.backends.prompting import PromptParts, RenderedPrompt, render_prompt
from gen.core.packs import LanguagePack
from gen.generate.plan import PlanItem
from gen.generate.preflight import TokenLimit
from labeling.strategies.inline import InlineLabels


def sampling_for(pack: LanguagePack, rendered: RenderedPrompt, max_tokens: int) -> SamplingParams:
    config = pack.generation.sampling
    return SamplingParams(
        temperature=config.temperature,
        top_p=config.top_p,
        top_k=config.top_k,
        repeat_penalty=config.repeat_penalty,
        max_tokens=max_tokens,
        stop=rendered.stop,
    )


class Prompter:
    """Renders plan items in one prompt format for one backend."""

    def __init__(
        self,
        pack: LanguagePack,
        backend: Backend,
        *,
        prompt_format: str | None,
        limit: TokenLimit,
        inline: InlineLabels | None = None,
    ) -> None:
        self.pack = pack
        #: With inline labels, the writer is also asked to tag sensitive passages.
        self.inline = inline
        self.format_name = prompt_format or pack.generation.format
        self.limit = limit
        self._chat_template = backend.chat_template()

    def render(self, item: PlanItem) -> RenderedPrompt:
        return self.render_parts(self.inline.prompt(item.parts) if self.inline else item.parts)

    def render_parts(self, parts: PromptParts) -> RenderedPrompt:
        """Any prompt (the facts request too) in this format and chat template."""
        return render_prompt(parts, self.format_name, self.pack.formats, self._chat_template)

    def max_tokens(self, item: PlanItem) -> int:
        """The item's token limit: --max-tokens, or its document type's budget."""
        return self.limit.tokens(item.words)

    def request(self, item: PlanItem) -> tuple[RenderedPrompt, GenerationRequest]:
        rendered = self.render(item)
        sampling = sampling_for(self.pack, rendered, self.max_tokens(item))
        return rendered, GenerationRequest(prompt=rendered.text, sampling=sampling, seed=item.seed)
