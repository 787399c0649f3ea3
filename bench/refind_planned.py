"""Finds the planned facts of stored documents again with today's finder, and compares with
what the finder of their run found (`meta.disclosures.planned`): counts per language, and
the spans in their sentence for a check by hand. No model is needed.

    .venv/bin/python bench/refind_planned.py bench/runs/qwen2.5-coder-1.5b-planned-en.parquet \
        bench/runs/qwen2.5-coder-1.5b-planned-it.parquet [--show fuzzy|exact|changed] \
        [--prompts DIR]

Documents written in placeholder style are left out: their facts are placed, not found.
With `--show`, every fact of that outcome (or whose span changed) is printed as `[[span]]`
in its line, with the fact and both outcomes; with `--sample N` only N of them per
language, drawn with `--seed` (bench/finder_check.md checks such a sample by hand).
"""

from __future__ import annotations

import argparse
import random
from collections import Counter
from pathlib import Path

from gen.core.packs import load_language_pack
from gen.core.record_files import read_record_file
from labeling.planned import EXACT, FUZZY, META_KEY, MISSING, FactFinder, Found

OUTCOMES = (EXACT, FUZZY, MISSING)


def in_context(text: str, start: int, end: int, width: int = 160) -> str:
    """`text[start:end]` as `[[...]]` in its line, at most `width` characters each side."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    before = text[max(line_start, start - width) : start]
    after = text[end : min(line_end, end + width)]
    return f"{before}[[{text[start:end]}]]{after}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("records", type=Path, nargs="+", help="documents (Parquet or JSONL)")
    parser.add_argument("--show", choices=(EXACT, FUZZY, "changed"), default=None)
    parser.add_argument("--sample", type=int, default=None, help="facts shown per language")
    parser.add_argument("--seed", type=int, default=0, help="seed of the sample")
    parser.add_argument("--prompts", type=Path, default=None, help="prompts folder")
    args = parser.parse_args()

    before: dict[str, Counter[str]] = {}
    after: dict[str, Counter[str]] = {}
    finders: dict[str, FactFinder] = {}
    shown: dict[str, list[str]] = {}
    for path in args.records:
        for record in read_record_file(path, "records"):
            planned = (record.meta or {}).get(META_KEY, {})
            if planned.get("style") != "inline" or not planned.get("planned"):
                continue
            language = record.language
            if language not in finders:
                pack = load_language_pack(language, args.prompts)
                finders[language] = FactFinder(pack.facts.finder, language)
            facts = planned["planned"]
            found = finders[language].find(record.text, [fact["text"] for fact in facts])
            for fact, now in zip(facts, found, strict=True):
                outcome = now.quality if now else MISSING
                before.setdefault(language, Counter())[fact["found"]] += 1
                after.setdefault(language, Counter())[outcome] += 1
                if args.show and (text := shown_fact(record.id, record.text, fact, now, args)):
                    shown.setdefault(language, []).append(text)
    for language in sorted(shown):
        texts = shown[language]
        if args.sample is not None and args.sample < len(texts):
            picked = set(random.Random(args.seed).sample(range(len(texts)), args.sample))
            texts = [text for number, text in enumerate(texts) if number in picked]
        print("\n".join(texts))
    for language in sorted(after):
        old = " ".join(f"{o} {before[language][o]}" for o in OUTCOMES)
        new = " ".join(f"{o} {after[language][o]}" for o in OUTCOMES)
        print(f"{language}: {sum(after[language].values())} facts; run: {old}; now: {new}")


def shown_fact(
    record_id: str, text: str, fact: dict, now: Found | None, args: argparse.Namespace
) -> str | None:
    """The lines that show one fact, if it is of the outcome `--show` asks for."""
    outcome = now.quality if now else MISSING
    then = (fact["found"], fact.get("start"), fact.get("end"))
    changed = then != (outcome, now and now.start, now and now.end)
    if outcome != args.show and not (args.show == "changed" and changed):
        return None
    lines = [f"--- {record_id} [{fact['category']}] run: {fact['found']}, now: {outcome}"]
    lines.append(f"fact: {fact['text']}")
    if fact["found"] != MISSING:
        lines.append(f"run:  {in_context(text, fact['start'], fact['end'])}")
    if now is not None:
        lines.append(f"now:  {in_context(text, now.start, now.end)} ({now.score})")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
