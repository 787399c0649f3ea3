"""`gen wikipedia`: encyclopedia paragraphs on sensitive topics, as negative examples."""

from __future__ import annotations

from pathlib import Path

import click

from gen.cli.options import language_option, prompts_option, run_option, seed_option
from gen.core.packs import default_prompts_dir
from gen.core.runs import RunPaths
from scraping.wikipedia.client import DEFAULT_API_URL
from scraping.wikipedia.scrape import scrape_wikipedia
from scraping.wikipedia.summary import ScrapeSummary


@click.command("wikipedia")
@run_option
@language_option
@click.option(
    "--depth",
    type=click.IntRange(min=0),
    default=2,
    show_default=True,
    help="Levels of subcategories walked below each root category.",
)
@click.option(
    "--max-pages",
    type=click.IntRange(min=1),
    default=None,
    help="Read at most N articles, alternating between topics (default: all).",
)
@click.option("--offline", is_flag=True, help="Use cached answers only; never touch the network.")
@click.option(
    "--contact",
    envvar="GEN_CONTACT",
    default=None,
    show_default="none: a note asks for one",
    help="E-mail or URL put in the User-Agent, as Wikimedia asks [env: GEN_CONTACT].",
)
@click.option(
    "--api-url",
    default=DEFAULT_API_URL,
    show_default=True,
    help="MediaWiki API endpoint; {lang} is replaced by --language (e.g. a mirror).",
)
@seed_option
@prompts_option
def wikipedia_command(
    run_dir: Path,
    language: str,
    depth: int,
    max_pages: int | None,
    offline: bool,
    contact: str | None,
    api_url: str,
    seed: int,
    prompts_dir: Path | None,
) -> None:
    """Scrape Wikipedia paragraphs into RUN/wikipedia (resumable, cached)."""
    if not contact and not offline:
        click.echo(
            "note: no --contact (or GEN_CONTACT) for the User-Agent; Wikimedia asks "
            "automated clients for one",
            err=True,
        )
    summary = scrape_wikipedia(
        run_dir,
        language=language,
        prompts_dir=prompts_dir or default_prompts_dir(),
        depth=depth,
        max_pages=max_pages,
        seed=seed,
        offline=offline,
        contact=contact,
        api_url=api_url,
    )
    click.echo(format_summary(summary))
    paths = RunPaths(run_dir)
    click.echo(f"records: {paths.wikipedia}, rejects: {paths.rejects('wikipedia')}")


def format_summary(summary: ScrapeSummary) -> str:
    lines = [
        f"pages read: {summary.pages_examined}, kept: {summary.pages_kept}, "
        f"paragraphs kept: {summary.paragraphs_kept}",
        "kept by category: " + _counts(summary.kept_by_category),
        "rejected: " + _counts(summary.rejected),
        f"requests: {summary.network_requests} to the network, {summary.cache_hits} from the cache",
    ]
    if summary.not_cached:
        lines.append(f"not in the cache (skipped, offline): {summary.not_cached}")
    return "\n".join(lines)


def _counts(counter: dict[str, int]) -> str:
    return ", ".join(f"{name} {count}" for name, count in sorted(counter.items())) or "none"
