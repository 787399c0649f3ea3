"""Short everyday texts (messages, form lines, support requests, bookings) full of
fictional identifiers, with spans exact by construction.

Templates live in `prompts/queries/<lang>.yaml`; `{LABEL}` placeholders are
filled with Faker values and each value's offsets are recorded while the text
is assembled, never searched for afterwards. Which template each query uses is
planned up front so every label gets about the same number of spans, and a
share of queries carry no identifier at all (negatives). Filler placeholders
(`{WEEKDAY}`, `{PRODUCT}`...) insert words that identify no one, so that queries of
one template, negatives above all, differ enough to survive deduplication.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from faker import Faker
from pydantic import Field, ValidationInfo, field_validator, model_validator

from gen.core.errors import UsageError
from gen.core.files import write_json_atomic
from gen.core.packs import load_categories
from gen.core.placeholders import check_placeholders, template_pieces
from gen.core.progress import progress
from gen.core.records import Record, Span, check_spans
from gen.core.runs import RunPaths
from gen.core.shards import WHOLE, Shard
from gen.core.store import RecordTable
from gen.core.yamlio import StrictModel, load_model, read_yaml
from scraping.queries.pii_values import (
    BUILTIN_FILLERS,
    LABELS,
    ValueMaker,
    filler_makers,
    locale_formats,
    value_makers,
)

#: Records journaled per write.
BATCH = 100


class QueryTemplate(StrictModel):
    #: What the text is (message, form, support, booking...): the record's doc_type.
    kind: str = Field(min_length=1)
    text: str = Field(min_length=1)

    @field_validator("text")
    @classmethod
    def _known_placeholders(cls, value: str, info: ValidationInfo) -> str:
        fillers = (*BUILTIN_FILLERS, *(info.context or {}).get("fillers", ()))
        return check_placeholders(value, (*LABELS, *fillers))

    @property
    def labels(self) -> list[str]:
        """The identifier placeholders, each a span of the filled text."""
        return [name for _, name in template_pieces(self.text) if name in LABELS]


class QueryTemplates(StrictModel):
    """`prompts/queries/<lang>.yaml`."""

    language: str
    #: Share of queries written from templates without identifier placeholders.
    negative_share: float = Field(0.1, ge=0, lt=1)
    #: Filler placeholders of this language (e.g. PRODUCT) and the words they take.
    fillers: dict[str, list[str]] = Field(default_factory=dict)
    templates: list[QueryTemplate] = Field(min_length=1)

    @field_validator("fillers")
    @classmethod
    def _filler_names(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        for name, words in value.items():
            if not name.isupper() or name in LABELS or name in BUILTIN_FILLERS:
                raise ValueError(
                    f"filler {name!r} must be an uppercase name other than the labels and the "
                    f"built-in fillers ({', '.join(BUILTIN_FILLERS)})"
                )
            if not words or not all(word.strip() for word in words):
                raise ValueError(f"filler {name} needs a list of non-empty words")
        return value

    @model_validator(mode="after")
    def _both_kinds_present(self) -> QueryTemplates:
        if not any(t.labels for t in self.templates):
            raise ValueError("no template has a {LABEL} placeholder")
        if self.negative_share > 0 and all(t.labels for t in self.templates):
            raise ValueError("negative_share > 0 needs templates without identifier placeholders")
        return self

    def makers(self, locale: str) -> dict[str, ValueMaker]:
        """A value maker for every placeholder: labels, built-in and declared fillers."""
        declared = {
            name: (lambda fake, words=tuple(words): fake.random.choice(words))
            for name, words in self.fillers.items()
        }
        return {**value_makers(locale), **filler_makers(locale), **declared}


def config_path(prompts_dir: Path, locale: str) -> Path:
    return Path(prompts_dir) / "queries" / f"{locale.split('_')[0]}.yaml"


def load_templates(prompts_dir: Path, locale: str) -> QueryTemplates:
    path = config_path(prompts_dir, locale)
    if not path.exists():
        raise UsageError(f"{path}: no query templates for locale {locale!r}")
    raw = read_yaml(path)
    declared = raw.get("fillers") if isinstance(raw, dict) else None
    fillers = tuple(map(str, declared)) if isinstance(declared, dict) else ()
    return load_model(path, QueryTemplates, fillers=fillers)


def plan(config: QueryTemplates, n: int, seed: int) -> list[int]:
    """Template index of each query, chosen so label counts stay level.

    Negatives are spread evenly; each other query serves the label with the
    fewest spans so far, through the least used template that does not push
    another label too far ahead. The choice for query i never depends on n, so
    `--n 1000` extends `--n 500`.
    """
    rng = random.Random(f"queries-plan-{seed}")
    templates = config.templates
    negatives = [i for i, t in enumerate(templates) if not t.labels]
    positives = [i for i, t in enumerate(templates) if t.labels]
    counts = Counter({label: 0 for i in positives for label in templates[i].labels})
    uses: Counter[int] = Counter()
    chosen = []
    for i in range(n):
        if int((i + 1) * config.negative_share) > int(i * config.negative_share):
            chosen.append(rng.choice(negatives))
            continue
        fewest = min(counts.values())
        label = rng.choice(sorted(name for name, count in counts.items() if count == fewest))
        # Templates for that label whose other labels are not ahead by more than the slack...
        slack = max(2, fewest // 20)
        options = [
            j
            for j in positives
            if label in templates[j].labels
            and max(counts[name] for name in templates[j].labels) <= fewest + slack
        ]
        # ...and among those the least used one, for variety.
        least_used = min(uses[j] for j in options)
        pick = rng.choice([j for j in options if uses[j] == least_used])
        counts.update(templates[pick].labels)
        uses[pick] += 1
        chosen.append(pick)
    return chosen


def fill(
    template: QueryTemplate, fake: Faker, makers: dict[str, ValueMaker]
) -> tuple[str, list[Span], list[str]]:
    """The filled text, its spans and the identifier values, offsets taken while writing;
    `makers` has a maker for every placeholder (fillers make text without a span)."""
    parts: list[str] = []
    spans: list[Span] = []
    values: list[str] = []
    position = 0
    for literal, name in template_pieces(template.text):
        parts.append(literal)
        position += len(literal)
        if name is None:
            continue
        value = " ".join(makers[name](fake).split())
        if name in LABELS:
            spans.append(Span(position, position + len(value), name, source="faker"))
            values.append(value)
        parts.append(value)
        position += len(value)
    return "".join(parts), spans, values


def _query(
    config: QueryTemplates,
    category: str,
    template_index: int,
    fake: Faker,
    makers: dict[str, ValueMaker],
    record_id: str,
    seed: int,
    locale: str,
) -> Record:
    """One query, the same whenever and in whatever order it is made."""
    fake.seed_instance(record_id)
    template = config.templates[template_index]
    text, spans, values = fill(template, fake, makers)
    check_spans(text, spans, record_id=record_id)
    return Record(
        id=record_id,
        text=text,
        category=category,
        doc_type=template.kind,
        language=config.language,
        source="faker",
        spans=spans,
        seed=seed,
        meta={"locale": locale, "template": template_index, "values": values},
    )


def query_id(locale: str, seed: int, index: int) -> str:
    return f"q-{locale}-{seed}-{index}"


@dataclass
class QuerySummary:
    locale: str
    n: int
    seed: int
    written: int = 0
    already_done: int = 0
    negatives: int = 0
    label_counts: Counter[str] = field(default_factory=Counter)


def generate_queries(
    run: Path, *, locale: str, n: int, seed: int, prompts_dir: Path, shard: Shard = WHOLE
) -> QuerySummary:
    """Write queries 0..n-1 (those of `shard`) to `RUN/queries`; ones already there are
    kept, not redone."""
    if n < 1:
        raise UsageError(f"--n must be at least 1, got {n}")
    locale_formats(locale)  # an unsupported locale is named before any file is read
    config = load_templates(prompts_dir, locale)
    makers = config.makers(locale)
    # Queries disclose identifiers only, nothing of the sensitive categories.
    category = load_categories(prompts_dir).negative[0]
    chosen = plan(config, n, seed)
    paths = RunPaths(Path(run))
    summary = QuerySummary(locale, shard.quota(n), seed)
    fake = Faker(locale)
    ids = {i: query_id(locale, seed, i) for i in range(n) if shard.owns(i)}
    with RecordTable(paths.queries, shard=shard) as table:
        done = table.ids()
        todo = [i for i, record_id in ids.items() if record_id not in done]
        summary.already_done = len(ids) - len(todo)
        summary.written = len(todo)
        with progress("queries", len(ids), done=summary.already_done) as bar:
            for start in range(0, len(todo), BATCH):
                batch = [
                    _query(config, category, chosen[i], fake, makers, ids[i], seed, locale)
                    for i in todo[start : start + BATCH]
                ]
                table.extend(batch)
                bar.advance(len(batch))
        wanted = set(ids.values())
        for record in table.read():
            if record.id in wanted:
                summary.label_counts.update(span.label for span in record.spans)
                summary.negatives += not record.spans
    write_json_atomic(paths.manifest("queries", shard), _manifest(summary))
    return summary


def _manifest(summary: QuerySummary) -> dict[str, object]:
    return {
        "locale": summary.locale,
        "n": summary.n,
        "seed": summary.seed,
        "written": summary.written,
        "already_done": summary.already_done,
        "negatives": summary.negatives,
        "label_counts": dict(sorted(summary.label_counts.items())),
    }
