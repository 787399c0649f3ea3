"""Headless Chromium through Selenium, for the tests that look at a page as a person does."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


@contextmanager
def chromium(profile: Path, *, size: str = "1280,1000") -> Iterator[Any]:
    """A headless Chromium driver with its own profile folder; skips without Chromium."""
    if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
        pytest.skip("chromium not installed: run `sudo make browser`, then pytest -m browser")
    webdriver = pytest.importorskip("selenium.webdriver")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        f"--window-size={size}", f"--user-data-dir={profile}",
    ):  # fmt: skip
        options.add_argument(flag)
    # An explicit driver path keeps Selenium Manager from downloading anything.
    driver = webdriver.Chrome(
        service=webdriver.ChromeService(executable_path=CHROMEDRIVER), options=options
    )
    try:
        yield driver
    finally:
        driver.quit()
