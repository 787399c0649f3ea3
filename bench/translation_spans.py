"""What `gen translate` carried over: the share of source spans carried per language and how,
the seconds per document, and a sample of carried spans to check by hand.

    .venv/bin/python bench/translation_spans.py RUN [--language it] [--sample 30] [--seed 0]
        [--labels special|all]

RUN is a run folder of `gen translate` (its `translated/` table). For each target language:
records, source spans, carried (by tag, found again, copied) and dropped (per reason), the
tags that carried nothing, records rejected, and the model's seconds per document (median
and mean). With `--sample N`, N carried spans drawn at random (`--seed`) are printed as
Markdown rows, source passage beside translated passage with a little context, for a verdict
by hand (bench/translation_check.md holds the verdicts).
"""

from __future__ import annotations

import argparse
import random
import statistics
from collections import Counter
from pathlib import Path

from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from gen.translate.carry import CARRIED
from gen.translate.stored import META_KEY, STAGE

SPECIAL = {"health", "politic", "sexuality", "judicial", "philosophy", "ethnic"}
_CONTEXT = 40


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ⏎ ")


def summary(records: list, rejected: list) -> dict:
    spans, fates, extra, problems = 0, Counter(), Counter(), Counter()
    seconds = []
    for record in records:
        info = record.meta[META_KEY]
        spans += info["spans"]
        fates.update(info["fates"])
        extra.update(info["extra"])
        problems.update(info["tag_problems"])
        seconds.append(info["seconds"])
    carried = sum(fates[f] for f in CARRIED)
    return {
        "records": len(records),
        "rejected": dict(Counter(r.meta.get("reason") for r in rejected)),
        "spans": spans,
        "carried": carried,
        "share": round(carried / spans, 4) if spans else None,
        "fates": dict(fates),
        "extra": dict(extra),
        "tag_problems": dict(problems),
        "seconds_median": round(statistics.median(seconds), 1) if seconds else None,
        "seconds_mean": round(statistics.mean(seconds), 1) if seconds else None,
    }


def sample_rows(records: list, n: int, seed: int, labels: str) -> list[str]:
    pool = []
    for record in records:
        info = record.meta[META_KEY]
        for span, (start, end) in zip(record.spans, info["origins"], strict=True):
            if labels == "special" and span.label not in SPECIAL:
                continue
            pool.append((record, span, start, end))
    chosen = random.Random(seed).sample(pool, min(n, len(pool)))
    rows = [
        "| # | record | label | how | source passage | translated passage (in context) | verdict |",
        "| ---: | --- | --- | --- | --- | --- | --- |",
    ]
    for number, (record, span, start, end) in enumerate(chosen, 1):
        source = record.meta[META_KEY]["text"][start:end]
        text = record.text
        before = text[max(0, span.start - _CONTEXT) : span.start]
        after = text[span.end : span.end + _CONTEXT]
        shown = f"…{before}**[{text[span.start : span.end]}]**{after}…"
        rows.append(
            f"| {number} | {record.id} | {span.label} | {span.quality} | {_cell(source)} | "
            f"{_cell(shown)} | |"
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("--language", default=None)
    parser.add_argument("--sample", type=int, default=0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--labels", choices=("special", "all"), default="all")
    args = parser.parse_args()
    paths = RunPaths(args.run)
    translated = RecordTable(paths.translated).read()
    rejects = RecordTable(paths.rejects(STAGE))
    rejected = rejects.read() if rejects.exists() else []
    languages = sorted({r.language for r in translated})
    for language in [args.language] if args.language else languages:
        mine = sorted((r for r in translated if r.language == language), key=lambda r: r.id)
        theirs = [r for r in rejected if r.meta.get("language") == language]
        print(f"## {language}\n")
        print(summary(mine, theirs))
        if args.sample:
            print()
            print("\n".join(sample_rows(mine, args.sample, args.seed, args.labels)))
        print()


if __name__ == "__main__":
    main()
