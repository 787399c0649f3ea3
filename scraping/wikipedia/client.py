"""The Wikipedia side of `gen wikipedia`: which categories to walk
(`prompts/wikipedia/<lang>.yaml`), the API endpoint, the client and how it introduces
itself."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import wikipediaapi
from pydantic import Field

from gen import __version__
from gen.core.errors import ConfigError, UsageError
from gen.core.packs import Categories
from gen.core.yamlio import StrictModel, load_model
from scraping.wikipedia.paragraphs import PageFilter

DEFAULT_API_URL = "https://{lang}.wikipedia.org/w/api.php"
LICENSE = "CC BY-SA 4.0"
LICENSE_URL = "https://creativecommons.org/licenses/by-sa/4.0/"
DOC_TYPE = "wikipedia_paragraph"


class WikipediaConfig(StrictModel):
    """`prompts/wikipedia/<lang>.yaml`: where to start and what to keep."""

    language: str
    #: Topic category (from categories.yaml) -> root Wikipedia categories (full titles).
    categories: dict[str, list[str]] = Field(min_length=1)
    filters: PageFilter = PageFilter()


def config_path(prompts_dir: Path, language: str) -> Path:
    return Path(prompts_dir) / "wikipedia" / f"{language}.yaml"


def load_config(prompts_dir: Path, language: str) -> WikipediaConfig:
    path = config_path(prompts_dir, language)
    if not path.exists():
        raise UsageError(f"{path}: no Wikipedia configuration for language {language!r}")
    config = load_model(path, WikipediaConfig)
    if config.language != language:
        raise ConfigError(f"{path}: language is {config.language!r}, expected {language!r}")
    known = load_model(Path(prompts_dir) / "categories.yaml", Categories).categories
    for name in config.categories:
        if name not in known:
            raise ConfigError(
                f"{path}: categories.{name}: unknown category; categories.yaml defines: "
                + ", ".join(known)
            )
    return config


class Wikipedia(wikipediaapi.Wikipedia):
    """The stock client, pointed at `api_url` (a mirror or a local server)."""

    def __init__(self, api_url: str, **kwargs: Any) -> None:
        self._api_url = api_url
        super().__init__(**kwargs)

    def _build_url(self, language: str) -> str:  # type: ignore[override]
        return self._api_url.format(lang=language)


def api_endpoint(api_url: str, language: str) -> str:
    """The API URL for `language`; `{lang}` is the only placeholder allowed."""
    try:
        url = api_url.format(lang=language)
    except (KeyError, IndexError, ValueError):
        url = ""
    if not url.startswith(("http://", "https://")):
        raise UsageError(
            f"--api-url {api_url!r}: expected an http(s) URL, with {{lang}} where the "
            "language goes, e.g. https://{lang}.wikipedia.org/w/api.php"
        )
    return url


def user_agent(contact: str | None) -> str:
    """Wikimedia asks bots to say who they are and how to reach the operator."""
    who = f"contact: {contact}" if contact else "no contact given, set --contact"
    return f"gen/{__version__} (negative examples for personal-data detectors; {who})"
