"""How `gen inspect` copes with a large run: build time, page size, and (when Chromium
is installed) load and filter times in a headless browser.

    .venv/bin/python bench/inspect_page.py [DOCUMENTS]
"""

from __future__ import annotations

import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

from gen.core.records import Record, Span
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from gen.inspect import page as inspect_page

LABELS = ("health", "politic", "judicial", "philosophy", "sexuality", "ethnic", "other")
WORDS = [
    "the",
    "patient",
    "doctor",
    "court",
    "party",
    "vote",
    "prayer",
    "family",
    "clinic",
    "letter",
    "report",
    "visit",
]


def synthetic_record(index: int, rng: random.Random) -> Record:
    """About 1,200 characters and a dozen spans of two labelers, like a long labeled letter."""
    text = " ".join(rng.choice(WORDS) for _ in range(200))
    spans = []
    for source, count in (("llm_sentences", 8), ("llm_censor", 6)):
        cuts = sorted(rng.sample(range(len(text)), 2 * count))
        for start, end in zip(cuts[::2], cuts[1::2], strict=True):
            if text[start:end].strip():
                spans.append(Span(start, end, rng.choice(LABELS), source, "exact", 1.0))
    return Record(
        id=f"doc-{index:05d}",
        text=text,
        category=rng.choice(LABELS),
        doc_type=rng.choice(["email", "letter", "note"]),
        language="en",
        source="llm",
        spans=spans,
        flags=["alignment_low"] if index % 17 == 0 else [],
    )


def browser_timings(page: Path) -> tuple[float, float] | None:
    """Seconds to load and first render, and to apply a label filter; None without Chromium."""
    chromium, driver_path = shutil.which("chromium"), shutil.which("chromedriver")
    if not (chromium and driver_path):
        return None
    from selenium import webdriver
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(flag)
    with tempfile.TemporaryDirectory() as profile:
        options.add_argument(f"--user-data-dir={profile}")
        driver = webdriver.Chrome(
            service=webdriver.ChromeService(executable_path=driver_path), options=options
        )
        try:
            start = time.perf_counter()
            driver.get(page.as_uri())
            driver.find_element(By.CSS_SELECTOR, "#docs article")
            loaded = time.perf_counter() - start
            start = time.perf_counter()
            Select(driver.find_element(By.ID, "f-label")).select_by_value("health")
            driver.find_element(By.ID, "count").text  # noqa: B018 - waits for the render
            filtered = time.perf_counter() - start
        finally:
            driver.quit()
    return loaded, filtered


def main(documents: int = 5000) -> None:
    rng = random.Random(0)
    with tempfile.TemporaryDirectory() as folder:
        run = Path(folder) / "outputs"
        with RecordTable(RunPaths(run).labeled, part_rows=1000) as table:
            table.extend(synthetic_record(i, rng) for i in range(documents))
        start = time.perf_counter()
        page = inspect_page.run(RunPaths(run), inspect_page.PageOptions())
        built = time.perf_counter() - start
        print(f"documents: {documents}")
        print(f"build page (incl. stats chart): {built:.2f} s")
        print(f"page size: {page.stat().st_size / 1e6:.1f} MB")
        timings = browser_timings(page)
        if timings is None:
            print("browser: chromium not installed, skipped")
        else:
            print(f"browser load + first page: {timings[0]:.2f} s")
            print(f"browser label filter: {timings[1]:.3f} s")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5000)
