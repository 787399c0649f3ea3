"""`gen build`: labeled and translated documents, Wikipedia negatives and queries -> one
clean dataset.

Each step is a pure function over records; `build_dataset` reads the stage
tables, joins the quality scores of `gen score` to the documents (`meta.quality`), runs
the steps, and writes the dataset, the rejected records (with a reason) and a manifest of
counts. A dataset never contains an invalid span:
every kept record is re-checked, including for overlaps across span sources
(the span steps are in `gen.dataset.spans`, the options in `gen.dataset.options`).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from gen.core.errors import InvalidSpanError, UsageError
from gen.core.files import check_writable, write_json_atomic
from gen.core.records import Record, check_spans
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from gen.dataset.dedup import exact_duplicates, minhashes, near_duplicates, similar_pairs
from gen.dataset.normalize import clean_record
from gen.dataset.options import GOLD_SOURCE, BuildOptions
from gen.dataset.spans import check_dataset_spans, relabel
from gen.generate.echo import ECHO_KEY, PROMPT_ECHO
from gen.quality.filter import filter_quality
from gen.quality.stored import read_scored, with_quality
from gen.translate.stored import SOURCE as TRANSLATED

if TYPE_CHECKING:
    from datasketch import MinHash

#: Record sources of documents (the negatives' share is counted against them).
DOCUMENT_SOURCES = ("llm", GOLD_SOURCE, TRANSLATED)


@dataclass
class BuildReport:
    inputs_found: list[str] = field(default_factory=list)
    inputs_missing: list[str] = field(default_factory=list)
    read: dict[str, int] = field(default_factory=dict)
    records: int = 0
    by_source: dict[str, int] = field(default_factory=dict)
    negatives_available: int = 0
    negatives_used: int = 0
    #: Queries kept, and how many of them carry no span (the query negatives).
    queries: int = 0
    queries_without_spans: int = 0
    #: Records removed, per reason (prompt_echo, flagged, invalid_span, exact_duplicate,
    #: near_duplicate).
    removed: dict[str, int] = field(default_factory=dict)
    #: Spans dropped, per reason (source, negative, scheme, overlap, cleaning).
    spans_dropped: dict[str, int] = field(default_factory=dict)
    spans_kept: int = 0
    groups: int = 0
    options: dict[str, object] = field(default_factory=dict)


# -- pure steps --------------------------------------------------------------------


def sample_negatives(
    negatives: Sequence[Record], documents: int, share: float, seed: int
) -> list[Record]:
    """As many negatives as make them `share` of all documents, drawn reproducibly."""
    wanted = round(share / (1 - share) * documents) if share else 0
    pool = sorted(negatives, key=lambda r: r.id)
    return random.Random(seed).sample(pool, min(wanted, len(pool)))


def assign_groups(records: Sequence[Record], similar: Sequence[tuple[int, int]]) -> list[Record]:
    """Join records that share a source group, a persona or a similar text into one group."""
    parent = list(range(len(records)))

    def root(index: int) -> int:
        while parent[index] != index:
            parent[index] = parent[parent[index]]
            index = parent[index]
        return index

    def join(left: int, right: int) -> None:
        parent[max(root(left), root(right))] = min(root(left), root(right))

    first_with: dict[str, int] = {}
    for index, record in enumerate(records):
        keys = [f"group:{record.group or record.id}"]
        if record.persona and record.persona.get("name"):
            keys.append(f"persona:{record.persona['name']}|{record.persona.get('birth_date')}")
        for key in keys:
            join(index, first_with.setdefault(key, index))
    for left, right in similar:
        join(left, right)
    return [
        replace(r, group=records[root(i)].group or records[root(i)].id)
        for i, r in enumerate(records)
    ]


def _rejected(record: Record, reason: str, detail: str = "") -> Record:
    """`record` kept with why it was refused. Spans that do not fit its text (a table written
    outside gen) move to `meta.spans` as they were, since a table only holds valid spans."""
    meta = {**record.meta, "reason": reason, "detail": detail}
    try:
        check_spans(record.text, record.spans, record_id=record.id)
    except InvalidSpanError:
        meta["spans"] = [span.to_dict() for span in record.spans]
        return replace(record, spans=[], meta=meta)
    return replace(record, meta=meta)


def merge_gold(
    documents: Sequence[Record],
    gold: Sequence[Record],
    sources: Sequence[str],
    dropped: Counter[str],
) -> tuple[list[Record], list[Record]]:
    """(documents with their gold spans, gold records refused).

    A gold record with the id and the text of a run's document brings its spans to it. A
    person saw every span of that document, so the spans of sources ranked below gold in
    `sources` are dropped there (`superseded_by_gold`): a span a reviewer deleted does not
    come back; sources ranked above gold still win overlaps. A gold record with another
    text under a run's id is refused (`gold_text_differs`), never guessed at; the other
    gold records are documents of their own, first, as the best labels of the run.
    """
    by_id = {record.id: record for record in gold}
    below = set(sources[sources.index(GOLD_SOURCE) + 1 :]) if GOLD_SOURCE in sources else set()
    merged, refused = [], []
    for document in documents:
        reviewed = by_id.pop(document.id, None)
        if reviewed is not None and reviewed.text != document.text:
            refused.append(_rejected(reviewed, "gold_text_differs", document.id))
        elif reviewed is not None:
            kept = [span for span in document.spans if span.source not in below]
            dropped["superseded_by_gold"] += len(document.spans) - len(kept)
            document = replace(document, spans=[*kept, *reviewed.spans])
        merged.append(document)
    return [*by_id.values(), *merged], refused


def prepare(
    records: Sequence[Record], options: BuildOptions, dropped: Counter[str]
) -> tuple[list[Record], list[Record]]:
    """(records with their final spans, records refused): holding an echo of their prompt
    (unless kept), flagged (when asked), or with invalid spans as read (checked before
    relabeling and cleaning can move them) or after."""
    kept: list[Record] = []
    rejected: list[Record] = []
    for record in records:
        if not options.keep_echoes and PROMPT_ECHO in record.flags:
            echoes = {echo["kind"] for echo in record.meta.get(ECHO_KEY, [])}
            rejected.append(_rejected(record, PROMPT_ECHO, ",".join(sorted(echoes))))
            continue
        if options.exclude_flagged and record.flags:
            rejected.append(_rejected(record, "flagged", ",".join(record.flags)))
            continue
        try:
            check_spans(record.text, record.spans, record_id=record.id)
        except InvalidSpanError as exc:
            rejected.append(_rejected(record, "invalid_span", str(exc)))
            continue
        record = replace(record, spans=relabel(record.spans, options, dropped))
        if options.clean:
            record, lost, places_lost = clean_record(record)
            dropped["cleaning"] += len(lost)
            dropped["cleaning (planned-fact places)"] += places_lost
        try:
            check_dataset_spans(record)
        except InvalidSpanError as exc:
            rejected.append(_rejected(record, "invalid_span", str(exc)))
            continue
        kept.append(record)
    return kept, rejected


def deduplicate(
    records: Sequence[Record], hashes: Sequence[MinHash], threshold: float
) -> tuple[list[int], list[Record]]:
    """(indices of the records to keep, removed copies naming the record they copy)."""
    exact = exact_duplicates([r.text for r in records])
    near = near_duplicates(hashes, threshold, skip=set(exact))
    removed = [
        _rejected(records[index], reason, records[original].id)
        for reason, duplicates in (("exact_duplicate", exact), ("near_duplicate", near))
        for index, original in duplicates.items()
    ]
    return [i for i in range(len(records)) if i not in exact and i not in near], removed


def assemble(
    documents: Sequence[Record],
    negatives: Sequence[Record],
    queries: Sequence[Record],
    options: BuildOptions,
    gold: Sequence[Record] = (),
) -> tuple[list[Record], list[Record], BuildReport]:
    """The dataset, the rejected records (reason in meta) and the counts.

    Documents come first (gold records of their own before them), so that a Wikipedia
    paragraph or query never evicts the document it duplicates; negatives are sampled
    after deduplication, so that their share is the share in the final dataset.
    """
    dropped: Counter[str] = Counter()
    documents, refused_gold = merge_gold(documents, gold, options.sources, dropped)
    documents, low_quality = filter_quality(documents, options.min_quality)
    candidates, rejected = prepare([*documents, *queries, *negatives], options, dropped)
    rejected += refused_gold + [_rejected(*removed) for removed in low_quality]
    hashes = minhashes([r.text for r in candidates])
    unique, duplicates = deduplicate(candidates, hashes, options.dedup_threshold)
    rejected += duplicates

    kept_negatives = [candidates[i] for i in unique if candidates[i].source == "wikipedia"]
    kept_documents = sum(candidates[i].source in DOCUMENT_SOURCES for i in unique)
    sampled = sample_negatives(
        kept_negatives, kept_documents, options.negatives_share, options.seed
    )
    chosen = {r.id for r in sampled}
    final = [i for i in unique if candidates[i].source != "wikipedia" or candidates[i].id in chosen]
    similar = similar_pairs([hashes[i] for i in final], options.group_threshold)
    dataset = assign_groups([candidates[i] for i in final], similar)

    query_ids = {r.id for r in queries}
    kept_queries = [r for r in dataset if r.id in query_ids]
    report = BuildReport(
        records=len(dataset),
        by_source=dict(Counter(r.source for r in dataset)),
        negatives_available=len(kept_negatives),
        negatives_used=len(chosen),
        queries=len(kept_queries),
        queries_without_spans=sum(not r.spans for r in kept_queries),
        removed=dict(Counter(r.meta["reason"] for r in rejected)),
        spans_dropped=dict(+dropped),  # unary + drops zero counts
        spans_kept=sum(len(r.spans) for r in dataset),
        groups=len({r.group for r in dataset}),
        options=asdict(options),
    )
    return dataset, rejected, report


# -- I/O edge ----------------------------------------------------------------------


def build_dataset(run: Path, options: BuildOptions) -> BuildReport:
    """Read the stage tables of `run`, assemble, and write `RUN/dataset` with its manifest.
    A place among them that cannot be written is refused first, naming its folder."""
    paths = RunPaths(Path(run))
    for name, table in (("rejects", paths.rejects("build")), ("dataset", paths.dataset)):
        check_writable(table, name, replaced_folder=True)
    check_writable(paths.manifest("build"), "manifest")
    stages = {"labeled": paths.labeled, "translated": paths.translated, "gold": paths.gold}
    stages |= {"wikipedia": paths.wikipedia, "queries": paths.queries}
    if not options.include_translated:
        del stages["translated"]
    if GOLD_SOURCE not in options.sources:
        del stages["gold"]
    if not options.include_queries:
        del stages["queries"]
    loaded = {
        name: RecordTable(folder).read() if folder.is_dir() else []
        for name, folder in stages.items()
    }
    if not any(loaded.values()):
        raise UsageError(
            f"nothing to build in {paths.root}: expected records in "
            + ", ".join(map(str, stages.values()))
        )
    scored = read_scored(paths)
    if options.min_quality is not None and not scored:
        raise UsageError(
            f"--min-quality {options.min_quality}: {paths.quality} holds no quality scores; "
            f"run `gen score --run {paths.root}` first"
        )
    loaded["labeled"] = with_quality(loaded["labeled"], scored)
    dataset, rejected, report = assemble(
        [*loaded["labeled"], *loaded.get("translated", [])],
        loaded.get("wikipedia", []),
        loaded.get("queries", []),
        options,
        gold=loaded.get("gold", []),
    )
    report.inputs_found = [name for name, records in loaded.items() if records]
    report.inputs_missing = [name for name, records in loaded.items() if not records]
    report.read = {name: len(records) for name, records in loaded.items()}
    # The rejects first: a build that fails to write them leaves the dataset and its
    # manifest as they were; the manifest last, once the dataset it describes is in place.
    RecordTable(paths.rejects("build")).replace(rejected)
    RecordTable(paths.dataset).replace(dataset)
    write_json_atomic(paths.manifest("build"), asdict(report))
    return report
