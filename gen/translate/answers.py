"""The model's answer for one piece: asked with the target pack's `translation.yaml`,
cleaned, and checked before its tags are read.

The part of the prompt before the piece is the same for every piece, so llama.cpp reads it
once. An answer is usable when, once the chatter around it is removed (a "Here is the
translation:" line, a code fence, the example's "Translation:" label), it is not empty, was
not cut off by the token limit, is not the source left untranslated, and its length is
within the pack's `length_ratio` of the source's; otherwise it is asked again once, warmer,
and then the record fails with the reason, its answers kept in the rejects. A passage whose
tag was lost is asked alone (`phrase`), in the sentence it stands in.
"""

from __future__ import annotations

import math
import re
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property

from gen.backends.base import Backend, Completion, GenerationRequest, SamplingParams
from gen.backends.prompting import PromptParts, RenderedPrompt, TokenCounter, render_prompt
from gen.core.errors import GenError
from gen.core.pack_translation import KEEP, TranslationPrompts
from gen.core.packs import LanguagePack
from gen.core.records import Record, Span
from gen.core.seeds import derive_seed
from gen.generate.postprocess import strip_fences, strip_preamble
from gen.text.sentences import split_sentences
from gen.translate.pieces import Piece
from gen.translate.tags import markup, read_tags

#: Tries per piece: the first answer and one retry.
ATTEMPTS = 2
#: Tokens an answer may use beyond the ratio (short pieces, a closing line).
_ANSWER_MARGIN = 24
_CONTEXT_MARGIN = 16
#: A piece whose words outside `keep` spans number at least this many must change (words of
#: letters: numbers, and a date's month that both languages spell alike, are no sign).
_MIN_WORDS_TO_CHANGE = 3
_WORD = re.compile(r"[^\W\d_]+")

# Why a piece, and so its record, failed.
MODEL_ERROR = "model_error"
EMPTY = "empty_answer"
CUT_OFF = "cut_off"
UNTRANSLATED = "untranslated"
LENGTH = "length_ratio"
TOO_LONG = "piece_too_long"


class PieceFailed(Exception):
    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


@dataclass
class Translation:
    """A record's translation, or why it failed; the answers and their cost either way."""

    text: str = ""
    spans: list[Span] = field(default_factory=list)
    origins: list[Span] = field(default_factory=list)
    fates: Counter[str] = field(default_factory=Counter)
    extra: Counter[str] = field(default_factory=Counter)
    tag_problems: Counter[str] = field(default_factory=Counter)
    dropped: list[tuple[Span, str]] = field(default_factory=list)
    pieces: int = 0
    answers: list[str] = field(default_factory=list)
    failed: PieceFailed | None = None
    seconds: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0


class PieceAsker:
    """Asks one model for the translations of pieces into one pack's language."""

    def __init__(
        self,
        backend: Backend,
        pack: LanguagePack,
        *,
        prompt_format: str | None = None,
        context_tokens: int = 4096,
        seed: int = 0,
        abandon: threading.Event | None = None,
    ) -> None:
        self.backend = backend
        self.pack = pack
        self.prompts: TranslationPrompts = pack.translation
        self.format = prompt_format or self.prompts.format
        self.template = backend.chat_template()
        self.context_tokens = context_tokens
        self.seed = seed
        self.abandon = abandon
        self.count_tokens = TokenCounter(backend)
        # A model without a chat template for `chat` is refused before the first record.
        self.render(PromptParts("", ""))

    def render(self, parts: PromptParts) -> RenderedPrompt:
        return render_prompt(parts, self.format, self.pack.formats, self.template)

    @cached_property
    def keep_tags(self) -> str:
        return ", ".join(f"<{label}>" for label, rule in self.prompts.rules.items() if rule == KEEP)

    @cached_property
    def example(self) -> str:
        example = self.prompts.example
        if example is None:
            return ""
        return self.prompts.example_format.format(
            source=example.source, translation=example.translation
        )

    @cached_property
    def answer_labels(self) -> tuple[str, ...]:
        """The example's label before a translation ("Translation:"), which a model may
        write before its own."""
        before = self.prompts.example_format.split("{translation}")[0].strip()
        last = before.splitlines()[-1].strip() if before else ""
        return (last,) if last and "{" not in last else ()

    def keeps(self, label: str) -> bool:
        return self.prompts.rule(label) == KEEP

    def source_name(self, code: str) -> str:
        return self.prompts.source_name(code) or code

    def ask(
        self,
        record: Record,
        index: int,
        tagged: str,
        source: str,
        piece: Piece,
        result: Translation,
    ) -> str:
        parts = PromptParts(
            system=self.prompts.system.format(source_language=self.source_name(record.language)),
            instruction=self.prompts.instruction.format(
                source_language=self.source_name(record.language),
                keep_tags=self.keep_tags,
                example=self.example,
                text=tagged,
            ),
            response_prefix=self.prompts.response_prefix,
        )
        rendered = self.render(parts)
        piece_tokens = self.count_tokens(tagged)
        max_tokens = math.ceil(piece_tokens * self.prompts.max_tokens_ratio) + _ANSWER_MARGIN
        needed = self.count_tokens(rendered.text) + max_tokens + _CONTEXT_MARGIN
        if needed > self.context_tokens:
            raise PieceFailed(
                TOO_LONG,
                f"piece {index} needs {needed} tokens with its answer, the context has "
                f"{self.context_tokens}",
            )
        error = PieceFailed(EMPTY, "no answer")
        for attempt in range(ATTEMPTS):
            completion = self.generate(
                rendered, max_tokens, (record.id, index, attempt), attempt, result
            )
            if completion is None:
                error = PieceFailed(MODEL_ERROR, result.answers[-1])
                continue
            try:
                return self.check(
                    completion.text, completion.finish_reason, source, piece, record.text
                )
            except PieceFailed as exc:
                error = PieceFailed(exc.reason, f"piece {index}: {exc.detail}")
        raise error

    def generate(
        self,
        rendered: RenderedPrompt,
        max_tokens: int,
        seed_parts: tuple[object, ...],
        attempt: int,
        result: Translation,
    ) -> Completion | None:
        config = self.prompts.sampling
        request = GenerationRequest(
            prompt=rendered.text,
            sampling=SamplingParams(
                temperature=config.temperature if attempt == 0 else config.retry_temperature,
                top_p=config.top_p,
                top_k=config.top_k,
                repeat_penalty=config.repeat_penalty,
                max_tokens=max_tokens,
                stop=rendered.stop,
            ),
            seed=derive_seed(self.seed, "translate", self.pack.code, *seed_parts),
            abandon=self.abandon,
        )
        started = time.perf_counter()
        try:
            completion = self.backend.generate(request)
        except GenError as exc:
            if self.abandon is not None and self.abandon.is_set():
                raise
            result.answers.append(f"({exc})")
            return None
        result.seconds += time.perf_counter() - started
        result.prompt_tokens += completion.prompt_tokens
        result.completion_tokens += completion.completion_tokens
        result.answers.append(completion.text)
        return completion

    def clean(self, answer: str) -> str:
        text, _ = strip_preamble(answer.strip(), self.pack.generation.chatter)
        text, _ = strip_fences(text)
        text = text.strip()
        for label in self.answer_labels:
            if text.lower().startswith(label.lower()):
                text = text[len(label) :].strip()
        return text

    def check(self, answer: str, finish_reason: str, source: str, piece: Piece, text: str) -> str:
        if finish_reason == "length":
            raise PieceFailed(CUT_OFF, "the answer reached its token limit")
        cleaned = self.clean(answer)
        plain = read_tags(cleaned, sorted({s.label for s in piece.spans}), markup(source)).text
        if not plain.strip():
            raise PieceFailed(EMPTY, "nothing left once the chatter was removed")
        low, high = self.prompts.length_ratio
        ratio = len(plain) / max(1, len(source))
        if not low <= ratio <= high:
            raise PieceFailed(LENGTH, f"{len(plain)} characters for {len(source)} ({ratio:.2f})")
        if self.untranslated(plain, source, piece, text):
            raise PieceFailed(UNTRANSLATED, "the answer repeats the source's words")
        return cleaned

    def untranslated(self, plain: str, source: str, piece: Piece, text: str) -> bool:
        """The answer's words are the source's, apart from what is copied anyway."""
        kept = [text[s.start : s.end] for s in piece.spans if self.keeps(s.label)]
        for words in kept:
            source = source.replace(words, " ")
            plain = plain.replace(words, " ")
        source_words = [w.casefold() for w in _WORD.findall(source)]
        if len(source_words) < _MIN_WORDS_TO_CHANGE:
            return False
        return source_words == [w.casefold() for w in _WORD.findall(plain)]

    def phrase(self, record: Record, source: str, span: Span, result: Translation) -> str | None:
        """The translation of `span`'s words alone, asked in the sentence they stand in."""
        context = " ".join(
            source[start:end]
            for start, end in split_sentences(source, record.language)
            if start < span.end and span.start < end
        )
        words = source[span.start : span.end]
        parts = PromptParts(
            system=self.prompts.system.format(source_language=self.source_name(record.language)),
            instruction=self.prompts.phrase_instruction.format(
                source_language=self.source_name(record.language), context=context, text=words
            ),
        )
        rendered = self.render(parts)
        max_tokens = math.ceil(self.count_tokens(words) * self.prompts.max_tokens_ratio) + 8
        seed = (record.id, "phrase", span.start, span.end)
        completion = self.generate(rendered, max_tokens, seed, 0, result)
        if completion is None:
            return None
        line = self.clean(completion.text).splitlines()
        phrase = line[0].strip().strip("\"'“”«»„").rstrip(".").strip() if line else ""
        return read_tags(phrase, [span.label], markup(words)).text.strip() or None
