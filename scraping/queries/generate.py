"""Short and medium texts (messages, e-mail threads, tickets, logs, forms, letters,
invoices...) full of fictional identifiers, with spans exact by construction.

Templates live in `prompts/queries/<lang>.yaml` (`templates.py`); identity
placeholders are filled from one fictional person per query (`values/`) and each
value's offsets are recorded while the text is assembled, never searched for
afterwards. Which template each query uses is
planned up front so every label gets about the same number of spans, and a
share of queries carry no identifier at all (negatives). Filler placeholders
(`{WEEKDAY}`, `{PRODUCT}`...) insert words that identify no one, so that queries of
one template, negatives above all, differ enough to survive deduplication.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import count, islice
from pathlib import Path

from faker import Faker

from gen.core.errors import UsageError
from gen.core.files import write_json_atomic
from gen.core.packs import load_categories
from gen.core.progress import progress
from gen.core.records import Record, check_spans
from gen.core.runs import RunPaths
from gen.core.shards import WHOLE, Shard
from gen.core.store import RecordTable
from scraping.queries.templates import Filler, QueryTemplates, load_templates
from scraping.queries.values import locale_spec

#: Records journaled per write.
BATCH = 100
#: The most queries one plan may hold: a run keeps the ids it stored in memory to resume,
#: and counts the labels of every stored query at its end.
MAX_QUERIES = 1_000_000


def plan(config: QueryTemplates, n: int, seed: int) -> list[int]:
    """Template index of each of the first `n` queries (see `planned_templates`)."""
    return list(islice(planned_templates(config, seed), n))


def planned_templates(config: QueryTemplates, seed: int) -> Iterator[int]:
    """Template index of each query, in order, chosen so label counts stay level.

    Negatives are spread evenly; each other query serves the label with the
    fewest spans so far, through the least used template that does not push
    another label too far ahead (or, when every template of that label would, the
    one that pushes least). The choice for query i never depends on n, so
    `--n 1000` extends `--n 500`, and a run can write query i as soon as it is chosen.
    """
    rng = random.Random(f"queries-plan-{seed}")
    labels = [config.labels(t) for t in config.templates]
    negatives = [i for i, found in enumerate(labels) if not found]
    positives = [i for i, found in enumerate(labels) if found]
    counts = Counter({label: 0 for i in positives for label in labels[i]})
    by_label = {label: [i for i in positives if label in labels[i]] for label in counts}
    uses: Counter[int] = Counter()
    for i in count():
        if int((i + 1) * config.negative_share) > int(i * config.negative_share):
            yield rng.choice(negatives)
            continue
        fewest = min(counts.values())
        label = rng.choice(sorted(name for name, found in counts.items() if found == fewest))
        slack = max(2, fewest // 8)

        def overshoot(j: int, ceiling: int = fewest + slack) -> int:
            after = Counter(labels[j])
            return max(counts[name] + after[name] for name in after) - ceiling

        candidates = by_label[label]
        least = min(max(0, overshoot(j)) for j in candidates)
        options = [j for j in candidates if max(0, overshoot(j)) == least]
        # ...and among those the least used one, for variety.
        least_used = min(uses[j] for j in options)
        pick = rng.choice([j for j in options if uses[j] == least_used])
        counts.update(labels[pick])
        uses[pick] += 1
        yield pick


def _query(
    config: QueryTemplates,
    filler: Filler,
    category: str,
    template_index: int,
    fake: Faker,
    record_id: str,
    seed: int,
) -> Record:
    """One query, the same whenever and in whatever order it is made."""
    fake.seed_instance(record_id)
    template = config.templates[template_index]
    text, spans, values = filler.fill(template, fake)
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
        meta={"locale": filler.locale, "template": template_index, "values": values},
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
    """Write queries 0..n-1 (those of `shard`) to `RUN/queries`, a batch at a time from the
    first; ones already there are kept, not redone."""
    if n < 1:
        raise UsageError(f"--n must be at least 1, got {n}")
    if n > MAX_QUERIES:
        raise UsageError(
            f"--n {n}: a plan holds at most {MAX_QUERIES} queries (a run keeps the ids it "
            "stored in memory to resume); write more with another --seed or --run"
        )
    spec = locale_spec(locale)  # an unsupported locale is named before any file is read
    config = load_templates(prompts_dir, locale)
    filler = Filler(config, locale)
    # Queries disclose identifiers only, nothing of the sensitive categories.
    category = load_categories(prompts_dir).negative[0]
    paths = RunPaths(Path(run))
    summary = QuerySummary(locale, shard.quota(n), seed)
    fake = Faker(spec.faker)
    with RecordTable(paths.queries, shard=shard) as table:
        done = table.ids()
        summary.already_done = _already_done(done, locale, seed, n, shard)
        summary.written = summary.n - summary.already_done
        with progress("queries", summary.n, done=summary.already_done) as bar:
            batch: list[Record] = []
            for i, template in zip(range(n), planned_templates(config, seed), strict=False):
                record_id = query_id(locale, seed, i)
                if not shard.owns(i) or record_id in done:
                    continue
                batch.append(_query(config, filler, category, template, fake, record_id, seed))
                if len(batch) == BATCH:
                    table.extend(batch)
                    bar.advance(len(batch))
                    batch = []
            table.extend(batch)
            bar.advance(len(batch))
        for record in table.read():
            if _index(record.id, locale, seed, n, shard) is not None:
                summary.label_counts.update(span.label for span in record.spans)
                summary.negatives += not record.spans
    write_json_atomic(paths.manifest("queries", shard), _manifest(summary))
    return summary


def _index(record_id: str, locale: str, seed: int, n: int, shard: Shard) -> int | None:
    """The plan index of `record_id` when it is one of this call's queries, else None."""
    prefix = query_id(locale, seed, 0)[:-1]
    number = record_id.removeprefix(prefix)
    if number == record_id or not (number.isascii() and number.isdigit()):
        return None
    if number != str(int(number)):
        return None
    index = int(number)
    return index if index < n and shard.owns(index) else None


def _already_done(done: set[str], locale: str, seed: int, n: int, shard: Shard) -> int:
    return sum(_index(record_id, locale, seed, n, shard) is not None for record_id in done)


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
