"""The options of `gen documents`, as the CLI, `gen bench`, benchmarks and tests pass them."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from gen.backends import default_backend_options
from gen.backends.spec import BackendOptions
from gen.core.errors import UsageError
from gen.core.shards import WHOLE, Shard
from gen.generate.plan_spec import PlanSpec


@dataclass(frozen=True)
class DocumentsOptions:
    spec: PlanSpec
    n: int
    #: None: each document type's budget (`gen.generate.preflight.TokenLimit`).
    max_tokens: int | None = None
    prompt_format: str | None = None
    prompts_dir: Path | None = None
    backend: BackendOptions = field(default_factory=default_backend_options)
    #: Shard K of N takes plan items i with i % N == K (gen/core/shards.py).
    shard: Shard = WHOLE
    #: The writer wraps sensitive passages in tags, stripped into `llm_inline` spans.
    inline_labels: bool = False
    #: With planned disclosures: reject a document missing a fact (else it is flagged).
    require_disclosures: bool = False

    def __post_init__(self) -> None:
        disclosures = self.spec.disclosures
        if disclosures is None and self.require_disclosures:
            raise UsageError("--require-disclosures needs --disclosures planned")
        if disclosures is not None and disclosures.style == "placeholder" and self.inline_labels:
            raise UsageError(
                "--fact-style placeholder and --inline-labels cannot be combined: the facts "
                "put in place of the placeholders would move the writer's tagged spans; use "
                "--fact-style inline"
            )
