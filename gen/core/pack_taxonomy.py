"""The schema of a pack's `taxonomy.yaml`: each category's sensitive topics and document
types, with the usual length and layout of each type."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, RootModel, model_validator

from gen.core.grammar import Word
from gen.core.yamlio import StrictModel

#: The range of a document type's `words`: a short form to a long report.
MIN_WORDS, MAX_WORDS = 30, 3000


class DocType(StrictModel):
    name: Word
    kind: Literal["inherent", "mention"]
    #: The usual length of such a document, in words: what the writer is asked for
    #: (`{length}`), and without --max-tokens the answer's token budget (times
    #: `sampling.tokens_per_word`), so a long type is not cut and a short one not padded.
    words: int = Field(ge=MIN_WORDS, le=MAX_WORDS)
    #: How such a document is laid out (`{layout}`): its parts, headings, fields or turns.
    layout: Word


class CategoryPrompts(StrictModel):
    sensitive_info: list[Word]
    doc_types: list[DocType] = Field(min_length=1)


class Taxonomy(RootModel[dict[str, CategoryPrompts]]):
    model_config = {"frozen": True}

    @model_validator(mode="after")
    def _known_categories(self, info: object) -> Taxonomy:
        context = getattr(info, "context", None) or {}
        known = context.get("categories")
        if known is not None:
            for name in self.root:
                if name not in known:
                    raise ValueError(
                        f"unknown category {name!r}; categories.yaml defines: {', '.join(known)}"
                    )
        return self
