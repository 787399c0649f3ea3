"""A real Label Studio server on loopback for the tests, from its own virtual environment.

Label Studio pins many dependencies of its own, so it lives in `.venv-ls` beside
gen's `.venv` (`make label-studio` installs it; GEN_LABEL_STUDIO may name another
`label-studio` executable). The server gets a throwaway data folder, a user and
a legacy API token made for the test run, no version check, no analytics and no
error reports. The data folder starts from the migrated empty database that
`make label-studio` leaves in `.venv-ls/template`, when there is one: migrating
a new database takes about a minute of CPU.
Without the executable the tests are skipped on a developer's machine and fail
in CI, where `.ci/run` must have installed it.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[1]
EMAIL = "reviewer@example.org"
PASSWORD = "review-test-password"
TOKEN = "0123456789abcdef0123456789abcdef01234567"
DATABASE = "label_studio.sqlite3"
#: A fresh database migrates for about a minute on two idle cores; much longer when busy.
START_TIMEOUT = 420.0


@dataclass(frozen=True)
class LabelStudioServer:
    url: str
    email: str
    password: str
    token: str
    log: Path


def executable() -> Path | None:
    configured = os.environ.get("GEN_LABEL_STUDIO")
    path = Path(configured) if configured else ROOT / ".venv-ls" / "bin" / "label-studio"
    return path if path.exists() else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _tail(log: Path, lines: int = 25) -> str:
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


@contextmanager
def label_studio(data_dir: Path) -> Iterator[LabelStudioServer]:
    program = executable()
    if program is None:
        message = (
            "label-studio is not installed in .venv-ls: run `make label-studio` "
            "(or set GEN_LABEL_STUDIO to a label-studio executable)"
        )
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    data_dir.mkdir(parents=True, exist_ok=True)
    template = program.parents[1] / "template" / DATABASE
    if template.exists():
        shutil.copyfile(template, data_dir / DATABASE)
    port = _free_port()
    env = {
        **os.environ,
        "LABEL_STUDIO_BASE_DATA_DIR": str(data_dir),
        "LATEST_VERSION_CHECK": "false",
        "COLLECT_ANALYTICS": "false",
        "SENTRY_DSN": "",
        "FRONTEND_SENTRY_DSN": "",
    }
    log = data_dir / "server.log"
    command = [
        str(program), "start", "--no-browser", "--data-dir", str(data_dir),
        "--internal-host", "127.0.0.1", "--port", str(port), "--username", EMAIL,
        "--password", PASSWORD, "--user-token", TOKEN, "--enable-legacy-api-token",
    ]  # fmt: skip
    with open(log, "wb") as output:
        process = subprocess.Popen(
            command, cwd=data_dir, env=env, stdout=output, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if process.poll() is not None:
                pytest.fail(f"label-studio exited with {process.returncode}:\n{_tail(log)}")
            try:
                if httpx.get(f"{url}/health", timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"label-studio did not start in {START_TIMEOUT:.0f} s:\n{_tail(log)}")
            time.sleep(1)
        yield LabelStudioServer(url, EMAIL, PASSWORD, TOKEN, log)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
