"""The options of `gen label`, as the CLI, `gen bench`, benchmarks and tests pass them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from gen.core.errors import UsageError
from gen.core.shards import WHOLE, Shard
from gen.text.units import UNITS
from labeling.min_score import MinScore

if TYPE_CHECKING:
    from gen.backends.base import Backend

#: Documents per batch: each strategy's prefix is read once per batch at worst, and a
#: crash loses at most this many documents of work.
BATCH_SIZE = 8

#: `--categories own`: a document is asked about its own category (the thesis's prompt);
#: `all`: every unit may be any sensitive category of the pack, or none.
CATEGORY_MODES = ("own", "all")
#: `--answers scored`: the labels' probabilities after one forward pass per unit;
#: `generated`: the model writes the labels (a grammar keeps them in shape where the backend
#: takes one); `auto`: scored when the backend can score labels.
ANSWER_MODES = ("auto", "scored", "generated")
#: What the model reads with each unit of a scored answer: the unit alone, or the whole
#: document first (read once per document: the units' prompts share it as a prefix).
CONTEXT_MODES = ("unit", "document")
DEFAULT_UNIT = "sentence"
#: The defaults, chosen on the gold set's dev split with Qwen2.5-Coder-1.5B (docs/labeling.md):
#: one category per document, each unit scored after its whole document, spans kept from a
#: label probability of 0.8, 0.4 for sexuality (scored answers only; `auto` writes labels
#: where a backend cannot score them).
DEFAULT_CATEGORIES = "own"
DEFAULT_ANSWERS = "auto"
DEFAULT_CONTEXT = "document"
DEFAULT_MIN_SCORE = MinScore(0.8, (("sexuality", 0.4),))


@dataclass(frozen=True)
class LabelOptions:
    #: `--strategy` as given: names, `all`, `both`, or a comma-separated list.
    strategy: str = "sentences"
    seed: int = 0
    #: The backend's context window, which prompts and answers must fit.
    context_tokens: int = 4096
    prompt_format: str | None = None
    overwrite: bool = False
    batch_size: int = BATCH_SIZE
    #: What one label of the `sentences` strategy covers (`sentence`, `clause`: see
    #: gen.text.units).
    unit: str = DEFAULT_UNIT
    categories: str = DEFAULT_CATEGORIES
    answers: str = DEFAULT_ANSWERS
    context: str = DEFAULT_CONTEXT
    #: Spans whose label probability is below this are dropped (scored answers only); a
    #: number is the same threshold for every label.
    min_score: MinScore | float = DEFAULT_MIN_SCORE
    prompts_dir: Path | None = None
    #: `--strategy detector`: the --out folder of `gen train`.
    detector: Path | None = None
    #: `--strategy detector`: `--min-score` when given (None: the detector's own thresholds).
    detector_min_score: MinScore | None = None
    #: The model, already loaded (gen bench, benchmarks, tests); None when no chosen
    #: strategy needs one or when `load_backend` is given.
    backend: Backend | None = None
    #: Loads the model once the run's tables are locked (the CLI), so that a second
    #: process on the same run is refused before it spends a model load.
    load_backend: Callable[[], Backend] | None = None
    #: Shard K of N labels the documents whose id hashes to K (gen/core/shards.py).
    shard: Shard = WHOLE

    def __post_init__(self) -> None:
        if self.overwrite and not self.shard.whole:
            raise UsageError(
                "--overwrite cannot be combined with --shard: it would delete the labels of "
                "the other shards; delete RUN/labeled once, then start the shards"
            )
        if self.categories not in CATEGORY_MODES:
            raise UsageError(
                f"unknown --categories {self.categories!r}; expected {' or '.join(CATEGORY_MODES)}"
            )
        if self.answers not in ANSWER_MODES:
            raise UsageError(
                f"unknown --answers {self.answers!r}; expected one of {', '.join(ANSWER_MODES)}"
            )
        if self.context not in CONTEXT_MODES:
            raise UsageError(
                f"unknown --context {self.context!r}; expected {' or '.join(CONTEXT_MODES)}"
            )
        if self.unit not in UNITS:
            raise UsageError(f"unknown --unit {self.unit!r}; expected one of {', '.join(UNITS)}")
        if not isinstance(self.min_score, MinScore):
            object.__setattr__(self, "min_score", MinScore.parse(self.min_score))
