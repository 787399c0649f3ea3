"""Share of span-free queries after `gen queries --n N && gen build`, per locale.

`gen queries` promises `negative_share` (10%) of queries without any identifier; dedup in
`gen build` must not eat them. Run by hand: `.venv/bin/python bench/query_negatives.py [N]`
(default 20000); prints the promised and the kept share and what dedup removed.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from gen.core.packs import default_prompts_dir
from gen.dataset.assemble import build_dataset
from gen.dataset.options import BuildOptions
from scraping.queries.generate import generate_queries
from scraping.queries.templates import load_templates


def main(n: int) -> None:
    for locale in ("en_US", "en_GB", "it_IT"):
        with tempfile.TemporaryDirectory() as folder:
            run = Path(folder)
            started = time.perf_counter()
            made = generate_queries(
                run, locale=locale, n=n, seed=0, prompts_dir=default_prompts_dir()
            )
            report = build_dataset(run, BuildOptions())
            seconds = time.perf_counter() - started
            promised = load_templates(default_prompts_dir(), locale).negative_share
            kept = report.queries_without_spans / report.queries
            print(
                f"{locale}: {made.negatives}/{n} queries without identifiers "
                f"(promised {promised:.1%}); after build {report.queries_without_spans}/"
                f"{report.queries} = {kept:.2%} (off by {abs(kept - promised) * 100:.2f} "
                f"points); removed {report.removed or 'none'}; {seconds:.0f}s"
            )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20000)
