"""Which pages `gen wikipedia` reads: each topic's category trees, walked breadth first.

Members are shuffled with the run's seed, categories about people are not entered, and
the topics take turns, so `--max-pages` samples every topic instead of spending itself on
the first one; a page reached from two topics is read once, under the first.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import cycle, islice

import wikipediaapi

from scraping.wikipedia.client import WikipediaConfig
from scraping.wikipedia.paragraphs import is_person_category
from scraping.wikipedia.polite_http import NotCachedError
from scraping.wikipedia.summary import ScrapeSummary


@dataclass(frozen=True)
class Candidate:
    """An article to read, and the topic category and root category that reached it."""

    title: str
    category: str
    root: str


class CategoryWalker:
    """The articles under the root categories of `config`, counting what it skips."""

    def __init__(
        self, wiki: wikipediaapi.Wikipedia, config: WikipediaConfig, summary: ScrapeSummary
    ) -> None:
        self.wiki = wiki
        self.config = config
        self.summary = summary

    def walk(self, root: str, category: str, depth: int) -> Iterator[Candidate]:
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
                    yield Candidate(member.title, category, root)
                elif (
                    member.ns == wikipediaapi.Namespace.CATEGORY
                    and level < depth
                    and member.title not in seen
                ):
                    seen.add(member.title)
                    if is_person_category(member.title, self.config.filters):
                        self.summary.rejected["person_category_not_walked"] += 1
                    else:
                        queue.append((member.title, level + 1))

    def candidates(self, depth: int, max_pages: int | None) -> list[Candidate]:
        walkers = [
            self.walk(root, category, depth)
            for category, roots in self.config.categories.items()
            for root in roots
        ]
        unique = _unique_titles(_roundrobin(walkers))
        return list(islice(unique, max_pages))


def _roundrobin(iterables: Iterable[Iterator[Candidate]]) -> Iterator[Candidate]:
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


def _unique_titles(candidates: Iterable[Candidate]) -> Iterator[Candidate]:
    """Each page once, under the first topic that reached it."""
    seen: set[str] = set()
    for candidate in candidates:
        if candidate.title not in seen:
            seen.add(candidate.title)
            yield candidate
