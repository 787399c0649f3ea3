"""One encyclopedia page into records: its kept paragraphs and its rejected ones.

A page about a person is rejected whole (its lead kept as the rejected record, with the
reason); otherwise every paragraph of the lead and the sections (`paragraphs`) becomes a
record carrying its attribution: title, URL, revision, licence and root category.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import wikipediaapi

from gen.core.records import Record
from scraping.wikipedia.client import DOC_TYPE, LICENSE, LICENSE_URL, WikipediaConfig
from scraping.wikipedia.paragraphs import Block, Paragraph, paragraphs, person_reason
from scraping.wikipedia.summary import ScrapeSummary
from scraping.wikipedia.walk import Candidate


class PageReader:
    """Reads candidate pages into records, counting rejections by reason."""

    def __init__(
        self, wiki: wikipediaapi.Wikipedia, config: WikipediaConfig, summary: ScrapeSummary
    ) -> None:
        self.wiki = wiki
        self.config = config
        self.rules = config.filters
        self.summary = summary

    def read(self, candidate: Candidate) -> tuple[list[Record], list[Record]]:
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
        self, paragraph: Paragraph, candidate: Candidate, page_id: str, meta: dict[str, Any]
    ) -> Record:
        record = self._record(
            f"{page_id}-{paragraph.index:04d}", paragraph.text, candidate, page_id, meta
        )
        record.meta["section"] = paragraph.section
        return record

    def _record(
        self, record_id: str, text: str, candidate: Candidate, group: str, meta: dict[str, Any]
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
