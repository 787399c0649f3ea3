"""`gen wikipedia` end to end against a fake MediaWiki API on loopback."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner
from fakewiki import FakeWiki, serve

from gen.cli import main
from gen.core.errors import ConfigError, GenError, UsageError
from gen.core.packs import default_prompts_dir
from gen.core.records import Record
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from scraping.wikipedia.client import LICENSE
from scraping.wikipedia.polite_http import Politeness
from scraping.wikipedia.scrape import scrape_wikipedia
from scraping.wikipedia.summary import ScrapeSummary

FIXTURES = Path(__file__).parent / "fixtures" / "wiki"
FAST = Politeness(min_interval=0, backoff=0, max_retries=3)


@pytest.fixture
def it_wiki() -> Iterator[FakeWiki]:
    with serve(FakeWiki.from_fixture(FIXTURES / "it.yaml")) as wiki:
        yield wiki


@pytest.fixture
def en_wiki() -> Iterator[FakeWiki]:
    with serve(FakeWiki.from_fixture(FIXTURES / "en.yaml")) as wiki:
        yield wiki


@dataclass(frozen=True)
class Scraped:
    run: Path
    wiki: FakeWiki
    summary: ScrapeSummary


@pytest.fixture(scope="module")
def it_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Scraped]:
    """One default Italian scrape, shared by the tests that only read its output."""
    run = tmp_path_factory.mktemp("it_run")
    with serve(FakeWiki.from_fixture(FIXTURES / "it.yaml")) as wiki:
        yield Scraped(run, wiki, scrape(run, wiki))


def scrape(run: Path, wiki: FakeWiki, language: str = "it", **options) -> ScrapeSummary:
    options.setdefault("politeness", FAST)
    return scrape_wikipedia(
        run, language=language, prompts_dir=default_prompts_dir(), api_url=wiki.url, **options
    )


def kept(run: Path) -> dict[str, Record]:
    return {r.id: r for r in RecordTable(RunPaths(run).wikipedia).read()}


def rejected(run: Path) -> dict[str, Record]:
    return {r.id: r for r in RecordTable(RunPaths(run).rejects("wikipedia")).read()}


def requested_titles(wiki: FakeWiki) -> set[str]:
    return {params.get("titles") or params.get("cmtitle") for params in wiki.requests}


def test_keeps_topic_paragraphs_with_attribution(it_run: Scraped) -> None:
    records = kept(it_run.run)
    lead = records["wiki-it-101-0000"]
    assert lead.source == "wikipedia" and lead.category == "health" and lead.spans == []
    assert lead.doc_type == "wikipedia_paragraph" and lead.language == "it"
    assert lead.group == "wiki-it-101"
    assert lead.meta["title"] == "Morbo di Vetralla"
    assert lead.meta["revision"] == 5101
    assert lead.meta["license"] == LICENSE == "CC BY-SA 4.0"
    assert lead.meta["url"].endswith("/wiki/Morbo_di_Vetralla")
    assert lead.meta["section"] == ""
    assert records["wiki-it-106-0003"].meta["section"] == "Dottrina > Critiche"
    assert records["wiki-it-109-0000"].category == "judicial"
    frame = pd.read_parquet(RunPaths(it_run.run).wikipedia)
    assert sorted(frame["id"]) == sorted(records)


def test_citation_markers_and_empty_lines_are_stripped(it_run: Scraped) -> None:
    texts = [r.text for r in kept(it_run.run).values()]
    assert all("[" not in text and text == text.strip() and text for text in texts)
    assert kept(it_run.run)["wiki-it-101-0001"].text.endswith("mobilità guidata.")


def test_drops_listed_and_biography_sections_and_short_lines(it_run: Scraped) -> None:
    summary = it_run.summary
    sections = {r.meta["section"] for r in kept(it_run.run).values()}
    assert not sections & {"Note", "Voci correlate", "Collegamenti esterni", "Bibliografia"}
    assert "Biografia" not in sections
    reasons = {r.id: r.meta["reason"] for r in rejected(it_run.run).values()}
    assert reasons["wiki-it-106-0001"] == "biography_section"
    assert reasons["wiki-it-101-0002"] == "too_short"
    assert reasons["wiki-it-101-0004"] == "skipped_section"
    assert summary.rejected["skipped_section"] == 5
    assert summary.rejected["biography_section"] == 1


def test_skips_people_by_category_and_by_lead(it_run: Scraped) -> None:
    summary = it_run.summary
    groups = {r.group for r in kept(it_run.run).values()}
    assert "wiki-it-107" not in groups  # "Nati nel 1851"
    assert "wiki-it-108" not in groups  # "(Borgo Sereno, 4 maggio 1911 – ...)"
    reasons = {r.id: r.meta["reason"] for r in rejected(it_run.run).values()}
    assert reasons["wiki-it-107-page"] == "person_category: Categoria:Nati nel 1851"
    assert reasons["wiki-it-108-page"].startswith("person_lead")
    assert summary.rejected["person_page"] == 2
    # A people subcategory is not even walked.
    assert "Categoria:Medici italiani" not in requested_titles(it_run.wiki)
    assert "Ottavio Lanzeri" not in requested_titles(it_run.wiki)


def test_english_people_and_sections(tmp_path: Path, en_wiki: FakeWiki) -> None:
    scrape(tmp_path, en_wiki, language="en")
    records = kept(tmp_path)
    assert {r.group for r in records.values()} == {"wiki-en-201", "wiki-en-202", "wiki-en-205"}
    assert {r.meta["section"] for r in records.values()} == {"", "Treatment"}
    reasons = {r.id: r.meta["reason"] for r in rejected(tmp_path).values()}
    assert reasons["wiki-en-203-page"] == "person_category: Category:Living people"
    assert reasons["wiki-en-204-page"].startswith("person_lead")
    assert reasons["wiki-en-205-0001"] == "biography_section"
    assert "[" not in records["wiki-en-201-0000"].text


@pytest.mark.parametrize(
    ("depth", "expected"),
    [
        (0, {"wiki-it-101"}),
        (1, {"wiki-it-101", "wiki-it-102"}),
        (2, {"wiki-it-101", "wiki-it-102", "wiki-it-103"}),
        (3, {"wiki-it-101", "wiki-it-102", "wiki-it-103", "wiki-it-104"}),
    ],
)
def test_depth_limits_the_category_walk(
    tmp_path: Path, it_wiki: FakeWiki, depth: int, expected: set[str]
) -> None:
    scrape(tmp_path, it_wiki, depth=depth)
    health = {r.group for r in kept(tmp_path).values() if r.category == "health"}
    assert health == expected


def test_a_page_in_two_topics_is_kept_once(it_run: Scraped) -> None:
    morbo = [r for r in kept(it_run.run).values() if r.group == "wiki-it-101"]
    assert {r.category for r in morbo} == {"health"}
    extracts = [p for p in it_run.wiki.requests if p.get("prop") == "extracts"]
    assert [p["titles"] for p in extracts].count("Morbo di Vetralla") == 1


def test_max_pages_alternates_topics_and_is_deterministic(
    tmp_path: Path, it_wiki: FakeWiki
) -> None:
    first = scrape(tmp_path / "a", it_wiki, max_pages=3, seed=7)
    second = scrape(tmp_path / "b", it_wiki, max_pages=3, seed=7)
    assert first.pages_examined == second.pages_examined == 3
    assert sorted(kept(tmp_path / "a")) == sorted(kept(tmp_path / "b"))
    # politic has no pages here; health, judicial and sexuality then give one page each.
    read = {p["titles"] for p in it_wiki.requests if p.get("prop") == "info"}
    assert "Morbo di Vetralla" in read and "Teodora Mancuso" in read
    assert len(read & {"Furto di nuvole", "Pagina scomparsa"}) == 1


def test_category_listing_pagination(tmp_path: Path, it_wiki: FakeWiki) -> None:
    it_wiki.page_size = 1
    scrape(tmp_path / "paged", it_wiki)
    assert any("cmcontinue" in p for p in it_wiki.requests)
    with serve(FakeWiki.from_fixture(FIXTURES / "it.yaml")) as whole:
        scrape(tmp_path / "whole", whole)
    assert sorted(kept(tmp_path / "paged")) == sorted(kept(tmp_path / "whole"))


def test_rerun_fetches_nothing_and_adds_nothing(tmp_path: Path, it_wiki: FakeWiki) -> None:
    first = scrape(tmp_path, it_wiki)
    before = sorted(kept(tmp_path))
    asked = len(it_wiki.requests)
    again = scrape(tmp_path, it_wiki)
    assert len(it_wiki.requests) == asked
    assert again.network_requests == 0 and again.cache_hits == first.network_requests
    assert sorted(kept(tmp_path)) == before
    assert len(pd.read_parquet(RunPaths(tmp_path).wikipedia)) == len(before)


def test_offline_uses_the_cache_alone(tmp_path: Path, it_wiki: FakeWiki) -> None:
    scrape(tmp_path / "online", it_wiki)
    cache = RunPaths(tmp_path / "online").cache
    offline_run = tmp_path / "offline"
    RunPaths(offline_run).cache.parent.mkdir(parents=True, exist_ok=True)
    cache.rename(RunPaths(offline_run).cache)
    summary = scrape_wikipedia(
        offline_run,
        language="it",
        prompts_dir=default_prompts_dir(),
        offline=True,
        api_url="http://127.0.0.1:9/{lang}/w/api.php",  # nothing listens there
    )
    assert summary.network_requests == 0 and summary.not_cached == 0
    assert sorted(kept(offline_run)) == sorted(kept(tmp_path / "online"))


def test_offline_with_partial_cache_skips_and_counts(tmp_path: Path, it_wiki: FakeWiki) -> None:
    scrape(tmp_path, it_wiki, max_pages=1)
    summary = scrape(tmp_path, it_wiki, offline=True)
    assert summary.not_cached > 0
    assert summary.network_requests == 0
    assert "wiki-it-101-0000" in kept(tmp_path)


def test_offline_with_empty_cache_says_so(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"cache .* is empty"):
        scrape_wikipedia(tmp_path, language="it", prompts_dir=default_prompts_dir(), offline=True)


def test_retries_errors_rate_limits_and_dropped_connections(
    tmp_path: Path, it_wiki: FakeWiki
) -> None:
    it_wiki.failures = ["503", "429", "drop"]  # one request, three failed attempts
    summary = scrape(tmp_path, it_wiki)
    assert summary.status == "complete"
    with serve(FakeWiki.from_fixture(FIXTURES / "it.yaml")) as clean:
        scrape(tmp_path / "clean", clean)
    assert sorted(kept(tmp_path)) == sorted(kept(tmp_path / "clean"))
    assert summary.network_requests == len(clean.requests) + 3


def test_garbage_answers_are_retried_and_never_cached(tmp_path: Path, it_wiki: FakeWiki) -> None:
    it_wiki.failures = ["garbage"] * 4  # the first attempt and all three retries
    with pytest.raises(GenError, match=r"the answer is not JSON, after 3 retries.*re-run"):
        scrape(tmp_path, it_wiki)
    it_wiki.failures = ["garbage"]
    summary = scrape(tmp_path, it_wiki)
    assert summary.status == "complete" and summary.paragraphs_kept == 9


def test_outage_mid_run_keeps_what_was_fetched(tmp_path: Path, it_wiki: FakeWiki) -> None:
    it_wiki.outage_after = 20
    with pytest.raises(GenError, match="re-run to resume"):
        scrape(tmp_path, it_wiki)
    saved = sorted(kept(tmp_path))
    assert saved  # pages finished before the outage are stored
    manifest = json.loads(RunPaths(tmp_path).manifest("wikipedia").read_text())
    assert manifest["status"] == "interrupted"
    it_wiki.outage_after = None
    answered = it_wiki.answered
    summary = scrape(tmp_path, it_wiki)
    assert summary.status == "complete"
    assert summary.cache_hits == answered  # nothing fetched twice
    assert set(saved) < set(kept(tmp_path))


def test_user_agent_names_the_project_and_contact(tmp_path: Path, it_wiki: FakeWiki) -> None:
    scrape(tmp_path, it_wiki, max_pages=1, contact="data-team@example.org")
    assert all("gen/" in ua and "data-team@example.org" in ua for ua in it_wiki.user_agents)


def test_manifest_counts(it_run: Scraped) -> None:
    summary = it_run.summary
    manifest = json.loads(RunPaths(it_run.run).manifest("wikipedia").read_text())
    assert manifest["status"] == "complete"
    assert manifest["paragraphs_kept"] == len(kept(it_run.run)) == summary.paragraphs_kept
    assert manifest["rejected"]["person_page"] == 2
    assert sum(manifest["rejected"].values()) - manifest["rejected"][
        "person_category_not_walked"
    ] - manifest["rejected"]["missing_page"] == len(rejected(it_run.run))


def test_cli_offline_run_prints_summary(it_run: Scraped) -> None:
    result = CliRunner().invoke(
        main, ["wikipedia", "--run", str(it_run.run), "--language", "it", "--offline"]
    )
    assert result.exit_code == 0, result.output
    assert "paragraphs kept: 9" in result.output
    assert "0 to the network" in result.output


def test_cli_offline_without_cache_exits_2(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main, ["wikipedia", "--run", str(tmp_path), "--language", "it", "--offline"]
    )
    assert result.exit_code == 2
    assert "is empty; run once without --offline" in result.output


def test_unknown_language_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no Wikipedia configuration for language 'xx'"):
        scrape_wikipedia(tmp_path, language="xx", prompts_dir=default_prompts_dir())


def _prompts_with(tmp_path: Path, wikipedia_yaml: str) -> Path:
    prompts = tmp_path / "prompts"
    (prompts / "wikipedia").mkdir(parents=True)
    (prompts / "categories.yaml").write_text(
        (default_prompts_dir() / "categories.yaml").read_text(encoding="utf-8"), encoding="utf-8"
    )
    (prompts / "wikipedia" / "it.yaml").write_text(wikipedia_yaml, encoding="utf-8")
    return prompts


@pytest.mark.parametrize(
    ("yaml_text", "message"),
    [
        (
            "language: it\ncategories: {health: [a]}\nfilters: {skip: [x]}\n",
            r"line 3: filters.skip: unknown key",
        ),
        ("language: it\ncategories: {weather: [a]}\n", r"categories.weather: unknown category"),
        (
            "language: it\ncategories: {health: [a]}\nfilters:\n  person_lead: ['(']\n",
            r"filters.person_lead.0",
        ),
        ("language: it\ncategories: {health: [a]\n", r"invalid YAML"),
    ],
)
def test_bad_yaml_names_file_and_key(tmp_path: Path, yaml_text: str, message: str) -> None:
    prompts = _prompts_with(tmp_path, yaml_text)
    with pytest.raises(ConfigError, match=message):
        scrape_wikipedia(tmp_path / "run", language="it", prompts_dir=prompts)


@pytest.mark.parametrize("api_url", ["ftp://x/{lang}", "https://{language}.example/api.php"])
def test_bad_api_url_is_a_usage_error(tmp_path: Path, api_url: str) -> None:
    with pytest.raises(UsageError, match="--api-url"):
        scrape_wikipedia(
            tmp_path, language="it", prompts_dir=default_prompts_dir(), api_url=api_url
        )
