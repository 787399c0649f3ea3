"""Negative examples: encyclopedia paragraphs on sensitive topics that disclose nothing
about anyone.

Walks per-language category trees (`prompts/wikipedia/<lang>.yaml`, `walk`) with the
`wikipedia-api` client, skips pages about people, keeps meaningful paragraphs
and stores each one as a record with its attribution (title, URL, revision,
licence; `pages`). All HTTP goes through `PoliteTransport`, so answers are cached under
`RUN/cache/wikipedia/<lang>` and a rerun fetches nothing twice.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import wikipediaapi

from gen.core.errors import GenError, UsageError
from gen.core.files import write_json_atomic
from gen.core.progress import progress
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from scraping.wikipedia.client import (
    DEFAULT_API_URL,
    Wikipedia,
    api_endpoint,
    load_config,
    user_agent,
)
from scraping.wikipedia.pages import PageReader
from scraping.wikipedia.polite_http import (
    DEFAULT_POLITENESS,
    NotCachedError,
    Politeness,
    PoliteTransport,
)
from scraping.wikipedia.summary import ScrapeSummary
from scraping.wikipedia.walk import Candidate, CategoryWalker


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
    reader = PageReader(wiki, config, summary)
    try:
        with RecordTable(paths.wikipedia) as kept, RecordTable(paths.rejects("wikipedia")) as rej:
            candidates = CategoryWalker(wiki, config, summary).candidates(depth, max_pages)
            with progress("wikipedia", len(candidates)) as bar:
                for candidate in candidates:
                    _read_into(reader, candidate, kept, rej)
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
    reader: PageReader, candidate: Candidate, kept: RecordTable, rejected: RecordTable
) -> None:
    summary = reader.summary
    summary.pages_examined += 1
    try:
        good, bad = reader.read(candidate)
    except NotCachedError:
        summary.not_cached += 1
        return
    kept.extend(good)
    rejected.extend(bad)
    if good:
        summary.pages_kept += 1
        summary.paragraphs_kept += len(good)
        summary.kept_by_category[candidate.category] += len(good)
