"""Negative examples: encyclopedia paragraphs on sensitive topics that disclose nothing
about anyone.

Walks per-language category trees (`prompts/wikipedia/<lang>.yaml`) with the
`wikipedia-api` client, skips pages about people, keeps meaningful paragraphs
and stores each one as a record with its attribution (title, URL, revision,
licence). All HTTP goes through `PoliteTransport`, so answers are cached under
`RUN/cache/wikipedia/<lang>` and a rerun fetches nothing twice.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, fields
from itertools import cycle, islice
from pathlib import Path
from typing import Any

import httpx
import wikipediaapi

from gen.core.errors import GenError, UsageError
from gen.core.files import write_json_atomic
from gen.core.progress import progress
from gen.core.records import Record
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from scraping.wikipedia.client import (
    DEFAULT_API_URL,
    DOC_TYPE,
    LICENSE,
    LICENSE_URL,
    Wikipedia,
    WikipediaConfig,
    api_endpoint,
    load_config,
    user_agent,
)
from scraping.wikipedia.paragraphs import (
    Block,
    Paragraph,
    is_person_category,
    paragraphs,
    person_reason,
)
from scraping.wikipedia.polite_http import (
    DEFAULT_POLITENESS,
    NotCachedError,
    Politeness,
    PoliteTransport,
)


@dataclass
class ScrapeSummary:
    """What a `gen wikipedia` run did; also written as the stage manifest."""

    language: str
    depth: int
    max_pages: int | None
    seed: int
    offline: bool
    status: str = "running"
    pages_examined: int = 0
    pages_kept: int = 0
    paragraphs_kept: int = 0
    kept_by_category: Counter[str] = field(default_factory=Counter)
    rejected: Counter[str] = field(default_factory=Counter)
    not_cached: int = 0
    network_requests: int = 0
    cache_hits: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self)}


def _plain(value: Any) -> Any:
    """Counters as plain sorted dicts (dataclasses.asdict mangles them)."""
    return dict(sorted(value.items())) if isinstance(value, Counter) else value


@dataclass(frozen=True)
class _Candidate:
    title: str
    category: str
    root: str


def _roundrobin(iterables: Iterable[Iterator[_Candidate]]) -> Iterator[_Candidate]:
    """Alternate between topics so `--max-pages` does not spend itself on the first one."""
    active = list(iterables)
    nexts = cycle(iter(it).__next__ for it in active)
    remaining = len(active)
    while remaining:
        try:
            for next_item in nexts:
                yield next_item()
        except StopIteration:
            remaining -= 1
            nexts = cycle(islice(nexts, remaining))


class _Scraper:
    """One run over one language: walking, reading pages, storing records."""

    def __init__(
        self,
        wiki: wikipediaapi.Wikipedia,
        config: WikipediaConfig,
        summary: ScrapeSummary,
    ) -> None:
        self.wiki = wiki
        self.config = config
        self.rules = config.filters
        self.summary = summary

    def walk(self, root: str, category: str, depth: int) -> Iterator[_Candidate]:
        """Articles under `root`, breadth first, `depth` subcategory levels down."""
        queue = [(root, 0)]
        seen = {root}
        rng = random.Random(f"{self.summary.seed}:{root}")
        while queue:
            title, level = queue.pop(0)
            try:
                members = self.wiki.page(title, ns=wikipediaapi.Namespace.CATEGORY)
                listed = sorted(members.categorymembers.values(), key=lambda p: p.title)
            except NotCachedError:
                self.summary.not_cached += 1
                continue
            rng.shuffle(listed)
            for member in listed:
                if member.ns == wikipediaapi.Namespace.MAIN:
                    yield _Candidate(member.title, category, root)
                elif (
                    member.ns == wikipediaapi.Namespace.CATEGORY
                    and level < depth
                    and member.title not in seen
                ):
                    seen.add(member.title)
                    if is_person_category(member.title, self.rules):
                        self.summary.rejected["person_category_not_walked"] += 1
                    else:
                        queue.append((member.title, level + 1))

    def candidates(self, depth: int, max_pages: int | None) -> list[_Candidate]:
        walkers = [
            self.walk(root, category, depth)
            for category, roots in self.config.categories.items()
            for root in roots
        ]
        unique = _unique_titles(_roundrobin(walkers))
        return list(islice(unique, max_pages))

    def read(self, candidate: _Candidate) -> tuple[list[Record], list[Record]]:
        """Kept and rejected records of one page."""
        page = self.wiki.page(candidate.title)
        if not page.exists():
            self.summary.rejected["missing_page"] += 1
            return [], []
        lang = self.config.language
        page_id = f"wiki-{lang}-{page.pageid}"
        meta = {
            "title": page.title,
            "url": page.fullurl,
            "revision": page.lastrevid,
            "license": LICENSE,
            "license_url": LICENSE_URL,
            "root_category": candidate.root,
        }
        lead = page.summary
        reason = person_reason(page.categories.keys(), lead, self.rules)
        if reason is not None:
            self.summary.rejected["person_page"] += 1
            reject = self._record(f"{page_id}-page", lead, candidate, page_id, meta)
            reject.meta.update(reason=reason, section="")
            return [], [reject]
        kept, rejected = [], []
        for paragraph in paragraphs(_blocks(page), self.rules):
            record = self._paragraph_record(paragraph, candidate, page_id, meta)
            if paragraph.reason is None:
                kept.append(record)
            else:
                record.meta["reason"] = paragraph.reason
                rejected.append(record)
                self.summary.rejected[paragraph.reason] += 1
        return kept, rejected

    def _paragraph_record(
        self, paragraph: Paragraph, candidate: _Candidate, page_id: str, meta: dict[str, Any]
    ) -> Record:
        record = self._record(
            f"{page_id}-{paragraph.index:04d}", paragraph.text, candidate, page_id, meta
        )
        record.meta["section"] = paragraph.section
        return record

    def _record(
        self, record_id: str, text: str, candidate: _Candidate, group: str, meta: dict[str, Any]
    ) -> Record:
        return Record(
            id=record_id,
            text=text,
            category=candidate.category,
            doc_type=DOC_TYPE,
            language=self.config.language,
            source="wikipedia",
            group=group,
            meta=dict(meta),
        )


def _unique_titles(candidates: Iterable[_Candidate]) -> Iterator[_Candidate]:
    """Each page once, under the first topic that reached it."""
    seen: set[str] = set()
    for candidate in candidates:
        if candidate.title not in seen:
            seen.add(candidate.title)
            yield candidate


def _blocks(page: Any) -> list[Block]:
    """The lead and every section's own text, in page order, with its heading path."""
    blocks = [Block((), page.summary)]

    def visit(sections: Iterable[Any], path: tuple[str, ...]) -> None:
        for section in sections:
            here = (*path, section.title)
            blocks.append(Block(here, section.text))
            visit(section.sections, here)

    visit(page.sections, ())
    return blocks


def scrape_wikipedia(
    run: Path,
    *,
    language: str,
    prompts_dir: Path,
    depth: int = 2,
    max_pages: int | None = None,
    seed: int = 0,
    offline: bool = False,
    contact: str | None = None,
    api_url: str = DEFAULT_API_URL,
    politeness: Politeness = DEFAULT_POLITENESS,
) -> ScrapeSummary:
    """Scrape into `RUN/wikipedia` (kept) and `RUN/rejects/wikipedia` (with reasons).

    Resumable: records are keyed by page id and paragraph index, and every
    answer is cached, so rerunning the same command only adds what is missing.
    """
    if depth < 0:
        raise UsageError(f"--depth must be 0 or more, got {depth}")
    if max_pages is not None and max_pages < 1:
        raise UsageError(f"--max-pages must be at least 1, got {max_pages}")
    endpoint = api_endpoint(api_url, language)
    config = load_config(prompts_dir, language)
    paths = RunPaths(Path(run))
    transport = PoliteTransport(
        paths.cache / "wikipedia" / language,
        politeness=politeness,
        offline=offline,
    )
    if offline and transport.is_empty():
        raise UsageError(
            f"--offline: the cache {transport.cache_dir} is empty; run once without --offline"
        )
    wiki = Wikipedia(
        api_url,
        user_agent=user_agent(contact),
        language=language,
        extract_format=wikipediaapi.ExtractFormat.WIKI,
        max_retries=0,  # PoliteTransport retries, with the backoff configured here
        transport=transport,
        timeout=politeness.timeout,
    )
    summary = ScrapeSummary(language, depth, max_pages, seed, offline)
    scraper = _Scraper(wiki, config, summary)
    try:
        with RecordTable(paths.wikipedia) as kept, RecordTable(paths.rejects("wikipedia")) as rej:
            candidates = scraper.candidates(depth, max_pages)
            with progress("wikipedia", len(candidates)) as bar:
                for candidate in candidates:
                    _read_into(scraper, candidate, kept, rej)
                    bar.advance(1, kept=summary.paragraphs_kept)
        summary.status = "complete"
    except (wikipediaapi.WikipediaException, httpx.HTTPError) as exc:
        summary.status = "interrupted"
        raise GenError(
            f"no usable answer from {endpoint} ({_describe(exc)}, "
            f"after {politeness.max_retries} retries); {summary.paragraphs_kept} paragraphs "
            f"from {summary.pages_kept} pages are saved in {paths.wikipedia} and every answer "
            "so far is cached: re-run to resume"
        ) from None
    finally:
        if summary.status == "running":  # interrupted by anything else, e.g. Ctrl-C
            summary.status = "interrupted"
        summary.network_requests = transport.network_requests
        summary.cache_hits = transport.cache_hits
        write_json_atomic(paths.manifest("wikipedia"), summary.as_dict())
        transport.close()
    return summary


def _describe(exc: Exception) -> str:
    if isinstance(exc, wikipediaapi.WikiInvalidJsonError):
        return "the answer is not JSON"
    if isinstance(exc, wikipediaapi.WikiHttpError):
        return f"HTTP {exc.status_code}"
    if isinstance(exc, wikipediaapi.WikiHttpTimeoutError):
        return "timed out"
    return f"connection failed: {exc.__cause__ or exc}"


def _read_into(
    scraper: _Scraper, candidate: _Candidate, kept: RecordTable, rejected: RecordTable
) -> None:
    summary = scraper.summary
    summary.pages_examined += 1
    try:
        good, bad = scraper.read(candidate)
    except NotCachedError:
        summary.not_cached += 1
        return
    kept.extend(good)
    rejected.extend(bad)
    if good:
        summary.pages_kept += 1
        summary.paragraphs_kept += len(good)
        summary.kept_by_category[candidate.category] += len(good)
