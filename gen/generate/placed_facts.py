"""After writing: where each planned fact of a document is, what that flags, and the counts.

A document written with planned disclosures gets one `planned` span per fact found
(`labeling.planned`: found by matching in `inline` style, put in place of the writer's
placeholders in `placeholder` style) and, in `meta.disclosures`, every planned fact with
its category, text, source and outcome (`exact`, `fuzzy` or `missing`, with offsets and
score). A document with a missing fact is flagged `disclosure_missing`, or rejected with
that reason when disclosures are required. Non-disclosures (`--non-disclosures`: passages
on a sensitive topic that say nothing about anyone) are found the same way and kept in
`meta.disclosures.non_disclosures`, never as spans: a found one is a labeled negative
(the encoder trainer never gives its units a label), a missing one is only counted. The
manifest counts the facts of every document that passed the quality checks, per category
and per source (pack, model), and its non-disclosures.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any

from gen.core.packs import LanguagePack
from gen.core.records import Record, Span, check_spans
from gen.generate.checks import Rejection
from gen.generate.disclosures import Disclosure, DisclosureSpec
from gen.generate.model_facts import WrittenFacts
from gen.generate.plan import PlanItem
from labeling.planned import (
    EXACT,
    FUZZY,
    META_KEY,
    MISSING,
    SOURCE,
    FactFinder,
    Found,
    substitute,
)

#: Flag (or, with --require-disclosures, reject reason) of a document missing a fact.
DISCLOSURE_MISSING = "disclosure_missing"
#: Key of `meta.disclosures` that holds the non-disclosures and where they were found.
NON_DISCLOSURES = "non_disclosures"


class FactPlacer:
    """Places the planned facts of the documents of one plan."""

    def __init__(self, pack: LanguagePack, spec: DisclosureSpec, *, required: bool) -> None:
        self.spec = spec
        self.required = required
        self.finder = FactFinder(pack.facts.finder, pack.code)
        self.labels = {name: info.label for name, info in pack.categories.categories.items()}

    def place(
        self,
        record: Record,
        item: PlanItem,
        facts: WrittenFacts | None,
        fields: dict[int, tuple[int, int]] | None = None,
    ) -> Record:
        """The document with its facts' spans, `meta.disclosures` and flag; `fields`: the
        offsets of a layout document's field facts (by fact index), exact by construction,
        while its clause facts are found like any others."""
        fields = fields or {}
        texts = [disclosure.text for disclosure in item.disclosures]
        text, unknown = record.text, []
        if self.spec.style == "placeholder":
            substituted = substitute(record.text, texts)
            text, unknown = substituted.text, substituted.unknown
            places = [
                [Found(start, end, EXACT, 1.0) for start, end in found]
                for found in substituted.places
            ]
        else:
            clauses = [i for i in range(len(texts)) if i not in fields]
            found_clauses = self.finder.find(text, [texts[i] for i in clauses])
            found_at = dict(zip(clauses, found_clauses, strict=True))
            found_at.update({i: Found(*fields[i], EXACT, 1.0) for i in fields})
            places = [[found_at[i]] if found_at[i] else [] for i in range(len(texts))]
        spans = list(record.spans)
        planned = []
        for disclosure, found in zip(item.disclosures, places, strict=True):
            label = self.labels[disclosure.category]
            spans += [Span(f.start, f.end, label, SOURCE, f.quality, float(f.score)) for f in found]
            planned.append(_fact_meta(disclosure, found))
        passages = [passage.text for passage in item.non_disclosures]
        negatives = [
            _fact_meta(passage, [found] if found else [])
            for passage, found in zip(
                item.non_disclosures, self.finder.find(text, passages), strict=True
            )
        ]
        spans.sort(key=lambda span: (span.start, span.end, span.source))
        check_spans(text, spans, record_id=record.id)
        meta: dict[str, Any] = {
            "facts": self.spec.facts,
            "style": self.spec.style,
            "planned": planned,
        }
        if negatives:
            meta[NON_DISCLOSURES] = negatives
        if unknown:
            meta["unknown_placeholders"] = unknown
        if facts is not None:
            meta["model"] = facts.meta()
        missing = any(fact["found"] == MISSING for fact in planned)
        return dataclasses.replace(
            record,
            text=text,
            spans=spans,
            meta={**record.meta, META_KEY: meta},
            flags=[*record.flags, DISCLOSURE_MISSING] if missing else record.flags,
        )

    def refusal(self, record: Record) -> Rejection | None:
        """`disclosure_missing` when facts are required and one is missing."""
        if not self.required or DISCLOSURE_MISSING not in record.flags:
            return None
        missing = [fact["text"] for fact in planned_facts(record) if fact["found"] == MISSING]
        return Rejection(DISCLOSURE_MISSING, "; ".join(missing))


def _fact_meta(disclosure: Disclosure, found: list[Found]) -> dict[str, Any]:
    fact: dict[str, Any] = {
        "category": disclosure.category,
        "text": disclosure.text,
        "source": disclosure.source,
    }
    if disclosure.form != "clause":
        fact["form"] = disclosure.form
    if not found:
        return {**fact, "found": MISSING}
    first = found[0]
    fact.update(found=first.quality, start=first.start, end=first.end, score=float(first.score))
    if len(found) > 1:
        fact["places"] = len(found)
    return fact


def planned_facts(record: Record, key: str = "planned") -> list[dict[str, Any]]:
    """The planned facts (or, with `key=NON_DISCLOSURES`, the non-disclosures) a
    document's meta records ([] for any other record)."""
    disclosures = record.meta.get(META_KEY)
    return list(disclosures.get(key) or []) if isinstance(disclosures, dict) else []


def no_fact_from_another_source(record: Record, source: str) -> bool:
    """No planned fact of the document came from a source other than `source`: what each
    source's documents teach a detector is compared on these (a document of both sources,
    `--facts mixed`, is left out of either; one without planned facts stays in both)."""
    return all(fact["source"] == source for fact in planned_facts(record))


class FactCounts:
    """Facts per category and per source (pack, model) and outcome: planned, exact, fuzzy,
    missing."""

    def __init__(self) -> None:
        self.by_category: dict[str, Counter[str]] = {}
        #: The non-disclosures: planned, exact, fuzzy, missing.
        self.non_disclosures: Counter[str] = Counter()
        self.by_source: dict[str, Counter[str]] = {}

    def add(self, record: Record) -> None:
        """Count a document's facts; `asked` differs from `planned` when the model wrote
        fewer facts than it was asked for (`--facts model|mixed`)."""
        for answer in (record.meta.get(META_KEY) or {}).get("model") or []:
            for counts in self._counts(answer["category"], "model"):
                counts["asked"] += answer["wanted"]
        for fact in planned_facts(record):
            for counts in self._counts(fact["category"], fact["source"]):
                counts["asked"] += fact["source"] != "model"  # the model's: in its answers
                counts["planned"] += 1
                counts[fact["found"]] += 1
        for passage in planned_facts(record, NON_DISCLOSURES):
            self.non_disclosures["planned"] += 1
            self.non_disclosures[passage["found"]] += 1

    def _counts(self, category: str, source: str) -> tuple[Counter[str], Counter[str]]:
        return (
            self.by_category.setdefault(category, Counter()),
            self.by_source.setdefault(source, Counter()),
        )

    def total(self) -> Counter[str]:
        return sum(self.by_category.values(), Counter())

    def to_dict(self) -> dict[str, Any]:
        """{asked, planned, exact, fuzzy, missing, by_category: {...}, by_source: {...},
        non_disclosures: {...} when any}; {} when nothing was planned."""
        if not self.by_category and not self.non_disclosures:
            return {}
        total = self.total()
        counts = {
            **{key: total[key] for key in COUNTED},
            "by_category": _rows(self.by_category),
            "by_source": _rows(self.by_source),
        }
        if self.non_disclosures:
            counts[NON_DISCLOSURES] = {key: self.non_disclosures[key] for key in COUNTED[1:]}
        return counts


#: What FactCounts counts, per category and per source.
COUNTED = ("asked", "planned", EXACT, FUZZY, MISSING)


def _rows(counts: dict[str, Counter[str]]) -> dict[str, dict[str, int]]:
    return {name: {key: counts[name][key] for key in COUNTED} for name in sorted(counts)}
