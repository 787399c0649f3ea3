"""The dataset card (`README.md` in an export folder): what is inside, where it came from,
under which licences, and how to load it."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from gen.core.records import Record
from gen.core.runs import RunPaths
from gen.inspect.stats import compute_stats, split_table, stats_markdown


def licences(records: Sequence[Record]) -> list[str]:
    """One line per kind of source, with the licences found in the records' provenance."""
    by_source = Counter(r.source for r in records)
    lines = []
    if by_source["llm"]:
        models = ", ".join(sorted({r.model for r in records if r.source == "llm" and r.model}))
        lines.append(
            f"{by_source['llm']} fictional documents written by {models or 'a local LLM'} "
            "(persons, events and identifiers are invented; see the model's licence)"
        )
    if by_source["wikipedia"]:
        found = ", ".join(
            sorted({str(r.meta["license"]) for r in records if r.meta.get("license")})
        )
        lines.append(
            f"{by_source['wikipedia']} Wikipedia paragraphs under {found or 'CC BY-SA'} "
            "(titles and revisions in each record's `meta`, for attribution)"
        )
    if by_source["faker"]:
        lines.append(f"{by_source['faker']} queries filled with invented values by Faker")
    return lines


def dataset_card(paths: RunPaths, records: Sequence[Record], manifest: dict, usage: str) -> str:
    """The card of one export; `usage` is the format's own line on how to load it."""
    stats = compute_stats(paths.root)
    stats = replace(
        stats, splits=split_table(records, manifest["splits"]), export_format=manifest["format"]
    )
    build_path = paths.manifest("build")
    build = json.loads(build_path.read_text(encoding="utf-8")) if build_path.exists() else {}
    options = build.get("options", {})
    counts = ", ".join(f"{name}: {count}" for name, count in manifest["counts"].items())
    held_out = ", ".join(manifest["holdout_doc_types"]) or "none"
    sources = "\n".join(f"- {line}" for line in licences(records))
    return f"""# Dataset card: {manifest["format"]} export

Synthetic documents with character-exact labels of sensitive personal data
(GDPR Art. 9 categories, and PII types when the label scheme keeps them).
All persons are fictional.

- Records: {len(records)} ({counts}).
- Splits: grouped (no document, persona or near-duplicate cluster in two splits),
  stratified by category and document type, seed {manifest["seed"]};
  document types held out for test: {held_out}.
- Label scheme: {options.get("scheme", "?")}; span sources: {", ".join(options.get("sources", []))};
  cleaning: {"on" if options.get("clean") else "off"}.
- Models: {", ".join(stats.models) or "unknown"}.
- Load: {usage}

## Sources and licences

{sources}

## Statistics

{stats_markdown(stats)}"""
