"""How much labeling gains from sending documents grouped by category.

The few-shot part of a labeling prompt is the same for every document of a category;
llama.cpp keeps the previous prompt's KV cache and evaluates only what follows the
common prefix. This labels the same documents twice with one model, each time
with a fresh model: grouped by category (as `gen label` does) and interleaved (every
document's category differs from the previous one), and prints both times and the gain.

    .venv/bin/python bench/bench_prefix_reuse.py [--per-category 3] [--strategy sentences]
        [--answers generated|scored] [--model FILE.gguf] [--threads N]
"""

from __future__ import annotations

import argparse
import time
from itertools import chain, zip_longest
from pathlib import Path

from gen.backends import make_backend
from gen.backends.llama_cpp import LlamaCppOptions
from gen.core.packs import load_language_pack
from gen.core.records import Record
from labeling.options import LabelOptions
from labeling.strategies import LabelerSetup, load_labeling, strategy

#: Short invented documents, a few per category; the text is not what is measured.
TEXTS = {
    "health": [
        "Ada Moss was seen on Monday. She has had asthma since childhood. She sleeps well.",
        "Ben Fry reports knee pain after running. An X-ray is booked. He works nights.",
        "Cleo Hart takes insulin for diabetes. Her sugar levels are stable. She swims.",
        "Dan Reed was treated for a broken wrist. The cast comes off in May. He is a chef.",
    ],
    "judicial": [
        "Eve Lamb was fined for speeding in 2022. She paid on time. She teaches music.",
        "Finn Cole is charged with shoplifting. The hearing is in June. He is a student.",
        "Gina Shaw was convicted of fraud in 2018. She was released last year. She paints.",
        "Hugo Nash was arrested after a fight at a bar. He denies it. He drives a taxi.",
    ],
    "philosophy": [
        "Iris Dale is a practising Quaker. She attends meetings each Sunday. She knits.",
        "Jack Orr became a Buddhist monk in 2015. He lives in a temple. He gardens.",
        "Kim Lowe calls herself an atheist. She debates at the local club. She runs.",
        "Leo Park was baptised a Catholic. He sings in the church choir. He bakes bread.",
    ],
}


def documents(per_category: int) -> dict[str, list[Record]]:
    return {
        category: [
            Record(
                id=f"{category}-{i}",
                text=text,
                category=category,
                doc_type="Email",
                language="en",
                source="llm",
            )
            for i, text in enumerate(texts[:per_category])
        ]
        for category, texts in TEXTS.items()
    }


def label_all(
    order: list[Record], name: str, answers: str, model: LlamaCppOptions
) -> tuple[float, int, int]:
    """Seconds, prompt tokens and completion tokens to label `order` with a fresh model."""
    backend = make_backend(model)
    pack = load_language_pack("en")
    options = LabelOptions(
        strategy=name, context_tokens=model.n_ctx, answers=answers, backend=backend
    )
    setup = LabelerSetup(pack, load_labeling(pack, needed=(name,)), options)
    labeler = strategy(name).build(setup)
    prompt_tokens = completion_tokens = 0
    started = time.perf_counter()
    for document in order:
        outcome = labeler.label(document)
        prompt_tokens += outcome.prompt_tokens
        completion_tokens += outcome.completion_tokens
    return time.perf_counter() - started, prompt_tokens, completion_tokens


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-category", type=int, default=3, choices=range(1, 5))
    parser.add_argument("--strategy", choices=("sentences", "censor"), default="sentences")
    parser.add_argument("--answers", choices=("scored", "generated"), default="generated")
    parser.add_argument("--ctx", type=int, default=2048)
    parser.add_argument("--model", type=Path, default=None, help="GGUF (default: embedded)")
    parser.add_argument("--threads", type=int, default=None, help="llama.cpp threads")
    args = parser.parse_args()
    model = LlamaCppOptions(model=args.model, n_ctx=args.ctx, threads=args.threads)
    by_category = documents(args.per_category)
    grouped = list(chain.from_iterable(by_category.values()))
    interleaved = [d for row in zip_longest(*by_category.values()) for d in row if d]
    total = len(grouped)
    print(f"{total} documents, {len(by_category)} categories, strategy {args.strategy}")
    results = {}
    for name, order in (("interleaved", interleaved), ("grouped", grouped)):
        seconds, prompt, completion = label_all(order, args.strategy, args.answers, model)
        results[name] = seconds
        print(
            f"{name:<12} {seconds:7.1f} s  {seconds / total:5.2f} s/doc  "
            f"prompt tokens {prompt}  completion tokens {completion}"
        )
    gain = results["interleaved"] / results["grouped"] if results["grouped"] else float("nan")
    saved = 1 - results["grouped"] / results["interleaved"] if results["interleaved"] else 0.0
    print(f"grouped by category: {gain:.2f}x faster ({saved:.0%} less time)")


if __name__ == "__main__":
    main()
