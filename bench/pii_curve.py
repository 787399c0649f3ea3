"""Learning curve of a spaCy detector trained on `gen queries` alone, scored on a PII gold set.

    .venv/bin/python bench/pii_curve.py OUT --gold bench/gold/pii-dev.jsonl
        [--sizes 1000,3000,6000] [--en en_US,en_GB,en_IE,en_CA,en_AU] [--it it_IT,it_CH]
        [--seed 1]

For each size N: N queries (half English, half Italian, shared equally by the locales of each
language; all English with `--it ''`; seed 1 unless `--seed`) in `OUT/run-N`, `gen build`,
`gen train` (spaCy `ner`, default settings: the export splits 80/10/10, so 0.8 N queries
train), `gen predict` on the gold file and `gen eval`; the scores go to
`OUT/run-N.<gold name>.json` and a table of token micro F1, SemEval strict F1 and per-label
token/strict F1 is printed. A size whose model exists is not trained again. No gold text is
ever used for training. Run it niced: it keeps the two cores busy for tens of minutes (about
7 CPU-minutes for 6000 queries).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

GEN = [sys.executable, "-c", "from gen.cli import main; main()"]


def _gen(*args: str) -> str:
    return subprocess.run([*GEN, *args], check=True, capture_output=True, text=True).stdout


def train(run: Path, size: int, languages: list[list[str]], seed: int) -> Path:
    model = run / "models" / "spacy"
    if (model / "detector.json").exists():
        return model
    for locales in languages:
        for locale in locales:
            n = str(size // len(languages) // len(locales))
            _gen("queries", "--run", str(run), "--n", n, "--locale", locale, "--seed", str(seed))
    _gen("build", "--run", str(run))
    _gen("train", "--run", str(run))
    return model


def score(model: Path, gold: Path, out: Path) -> dict:
    predicted = out.with_suffix(".pred.jsonl")
    _gen("predict", "--model", str(model), str(gold), "--out", str(predicted))
    out.write_text(_gen("eval", str(gold), str(predicted), "--format", "json"))
    return json.loads(out.read_text())["groups"]["all"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--gold", type=Path, required=True)
    parser.add_argument("--sizes", default="1000,3000,6000")
    parser.add_argument("--en", default="en_US,en_GB,en_IE,en_CA,en_AU")
    parser.add_argument("--it", default="it_IT,it_CH", help="'' for English queries only")
    parser.add_argument("--seed", type=int, default=1, help="the seed of gen queries")
    args = parser.parse_args()
    languages = [value.split(",") for value in (args.en, args.it) if value]
    results = {}
    for size in map(int, args.sizes.split(",")):
        model = train(args.out / f"run-{size}", size, languages, args.seed)
        results[size] = score(model, args.gold, args.out / f"run-{size}.{args.gold.stem}.json")
    print("queries | token micro F1 | strict F1")
    for size, report in results.items():
        strict = report["entities"]["strict"]["overall"]["f1"]
        print(f"{size} | {report['token_scores']['micro']['f1']:.3f} | {strict:.3f}")
    last = results[max(results)]
    print("\nlabel | token F1 | strict F1 (largest size)")
    for label, scores in sorted(last["token_scores"]["per_label"].items()):
        strict = last["entities"]["strict"]["per_label"].get(label, {}).get("f1", 0.0)
        print(f"{label} | {scores['f1']:.2f} | {strict:.2f}")


if __name__ == "__main__":
    main()
