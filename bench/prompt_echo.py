"""How many stored documents hold an echo of their prompt (gen.generate.echo), by kind.

Runs the check of `gen documents` (no model) on the texts of record files or run folders
(their documents), with the pack of their language and every instruction it has (the
writer's, the facts' and the shapes'), and prints per file the documents that hold any
echo and how many hold each kind; `--show N` prints N passages of each kind. On a
hand-written gold set every count should be 0 (its records have no prompt: a placeholder
name counts there).

    PYTHONPATH=$PWD .venv/bin/python bench/prompt_echo.py bench/runs/*.parquet \
        bench/runs/qwen2.5-coder-1.5b-shapes-{en,it} bench/gold/gold-*.jsonl
"""

from __future__ import annotations

import argparse
from collections import Counter
from functools import cache
from pathlib import Path

from gen.core.packs import load_language_pack
from gen.core.record_files import read_record_file
from gen.generate.echo import KINDS, EchoCheck


@cache
def check_of(language: str) -> EchoCheck:
    return EchoCheck.of(load_language_pack(language), facts=True, shapes=True)


def measure(path: Path, show: int) -> None:
    records = read_record_file(path / "documents" if (path / "documents").is_dir() else path)
    holding = 0
    kinds: Counter[str] = Counter()
    shown: dict[str, list[str]] = {kind: [] for kind in KINDS}
    for record in records:
        found = check_of(record.language).find(record.text, record.prompt or "")
        holding += bool(found)
        kinds.update({echo.kind for echo in found})
        for echo in found:
            if len(shown[echo.kind]) < show:
                shown[echo.kind].append(f"{record.id}: {echo.text[:160]!r}")
    share = f"{holding / len(records):.0%}"
    counts = ", ".join(f"{kind} {kinds[kind]}" for kind in KINDS if kinds[kind]) or "none"
    print(f"{path}: {len(records)} documents, {holding} with an echo ({share}): {counts}")
    for kind, passages in shown.items():
        for passage in passages:
            print(f"  {kind}: {passage}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "files", nargs="+", type=Path, help="record files or run folders (their documents)"
    )
    parser.add_argument("--show", type=int, default=0, help="passages to print per kind")
    arguments = parser.parse_args()
    for path in arguments.files:
        measure(path, arguments.show)


if __name__ == "__main__":
    main()
