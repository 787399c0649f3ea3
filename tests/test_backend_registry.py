"""Backends describe themselves: a plug-in in one file gets its `--backend` choice, its
options on the command line, `gen documents` and `gen bench`, and no other module changes."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pandas as pd
import pytest
import toy_backend
from click.testing import CliRunner

import gen.backends
from gen.backends import BackendSpec, make_backend, register_backend
from gen.backends.llama_cpp import LlamaCppOptions
from gen.backends.spec import BackendOptions, cli
from gen.bench.run import BenchOptions, run
from gen.cli import main
from gen.core.runs import RunPaths

TESTS = Path(__file__).parent
REPO = TESTS.parent


def install_plugin(site: Path) -> None:
    """What `pip install` of a package declaring the toy as a `gen.backends` entry point
    leaves behind, plus an entry point whose object does not exist."""
    info = site / "toy_gen_backend-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-gen-backend\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[gen.backends]\ntoy = toy_backend:BACKEND\nbroken = toy_backend:NO_SUCH_SPEC\n"
    )


def gen_command(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(TESTS), str(REPO)])}
    return subprocess.run(
        [sys.executable, "-c", "from gen.cli import main; main()", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_an_installed_plugin_runs_gen_documents_through_the_cli(tmp_path: Path) -> None:
    site = tmp_path / "site"
    install_plugin(site)
    help_text = gen_command(site, "documents", "--help")
    assert help_text.returncode == 0, help_text.stderr
    assert "[llama.cpp|transformers|openai|toy]" in help_text.stdout
    assert "--toy-style [formal|casual]" in help_text.stdout
    assert "How the toy writes (toy)." in help_text.stdout
    assert "backend plug-in broken (toy_backend:NO_SUCH_SPEC) skipped" in help_text.stderr

    run_dir = tmp_path / "run"
    result = gen_command(
        site,
        "documents", "--run", str(run_dir), "--backend", "toy", "--toy-style", "casual",
        "--n", "3", "--category", "health", "--prompt-format", "plain",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "3/3 documents for plan en-health-all-s0 (3 new" in result.stdout
    frame = pd.read_parquet(run_dir / "documents")
    assert len(frame) == 3 and set(frame["model"]) == {"toy-casual"}
    assert frame["text"].str.startswith("Hi there!").all()
    manifest = json.loads((run_dir / "manifests" / "documents.json").read_text())
    call = manifest["plans"]["en-health-all-s0"]["runs"][-1]
    assert call["backend"] == {"backend": "toy", "style": "casual"}

    foreign = gen_command(site, "documents", "--run", str(run_dir), "--toy-style", "formal")
    assert foreign.returncode == 2
    assert foreign.stderr.strip().splitlines()[-1] == (
        "error: --toy-style is an option of the toy backend, not of llama.cpp"
    )


@pytest.fixture
def registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Registrations made by a test are forgotten after it."""
    gen.backends.backend_specs()
    monkeypatch.setattr(gen.backends, "_specs", dict(gen.backends._specs))


def test_gen_bench_takes_the_raw_engine_loop_from_the_backend(
    tmp_path: Path, registry: None
) -> None:
    register_backend(toy_backend.BACKEND)
    options = BenchOptions(
        n=2, max_tokens=64, prompt_format="plain", backend=toy_backend.ToyOptions()
    )
    report = run(RunPaths(tmp_path), options)
    rows = {row.label: row for row in report.rows}
    assert rows["raw engine"].documents == 4  # timed before and after the pipeline
    assert rows["raw engine"].completion_tokens > 0
    assert report.figures["toy_requests"] == 2.0
    assert report.figures["pipeline_to_engine_ratio"] > 0
    assert report.notes == []
    assert json.loads(report.path.read_text())["backend"] == {"backend": "toy", "style": "formal"}


def test_make_backend_builds_the_backend_of_the_options_class(registry: None) -> None:
    register_backend(toy_backend.BACKEND)
    backend = make_backend(toy_backend.ToyOptions(toy_style="casual"))
    assert backend.model_id == "toy-casual"


@dataclasses.dataclass(frozen=True)
class ClashingOptions(BackendOptions):
    gpu: int = dataclasses.field(default=0, metadata=cli("--n-gpu-layers", "Another meaning."))


@dataclasses.dataclass(frozen=True)
class RedeclaredOptions(BackendOptions):
    concurrency: int = dataclasses.field(default=8, metadata=cli("--concurrency", "More."))


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (BackendSpec("llama.cpp", ClashingOptions, create=print), "registered twice"),
        (BackendSpec("clash", ClashingOptions, create=print), "--n-gpu-layers is already"),
        (BackendSpec("redeclared", RedeclaredOptions, create=print), "declared differently"),
        (BackendSpec("plain", BackendOptions, create=print), "its own subclass"),
        (BackendSpec("copy", LlamaCppOptions, create=print), "reuses the options class"),
    ],
)
def test_a_backend_that_clashes_with_another_is_refused(
    spec: BackendSpec, message: str, registry: None
) -> None:
    with pytest.raises((ValueError, TypeError), match=message):
        register_backend(spec)


#: Every backend flag: (flag, type name, choices or minimum, default, what --help shows as the
#: default (True: the value), help).
FLAGS = [
    ("--backend", "choice", ("llama.cpp", "transformers", "openai"), "llama.cpp", True,
     "Engine that runs the model: llama.cpp in this process, transformers, or an "
     "OpenAI-compatible server (docs/backends.md)."),
    ("--model", "path", None, None, "the embedded SmolLM2-135M-Instruct",
     "GGUF file (llama.cpp, transformers) or model folder (transformers)."),
    ("--ctx", "integer range", 256, 4096, True, "Context window in tokens (llama.cpp)."),
    ("--n-gpu-layers", "integer", None, 0, True,
     "Layers to offload to the GPU (llama.cpp; -1 = all)."),
    ("--device", "choice", ("auto", "cpu", "cuda"), "auto", True, "Device (transformers)."),
    ("--dtype", "text", None, "auto", True,
     "Weights dtype: auto, float32, float16, bfloat16 (transformers)."),
    ("--base-url", "text", None, None, "none; --backend openai needs one",
     "OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 (openai)."),
    ("--api-model", "text", None, None, "the one model the server serves",
     "Model name the server expects (openai)."),
    ("--api-key-env", "text", None, "OPENAI_API_KEY", True,
     "Environment variable holding the API key (openai); never stored."),
    ("--server-kind", "choice", ("auto", "llamacpp", "vllm", "generic"), "auto", True,
     "How to pass grammars to the server (openai): llama.cpp's `grammar`, vLLM's structured "
     "outputs, or none (generic); auto asks the server."),
    ("--timeout", "float range", 1, 300.0, True, "Seconds to wait for one answer (openai)."),
    ("--concurrency", "integer range", 1, 4, True, "Requests in flight (openai)."),
]  # fmt: skip


def limits(param_type: click.ParamType) -> object:
    if isinstance(param_type, click.Choice):
        return tuple(param_type.choices)
    return getattr(param_type, "min", None)


@pytest.mark.parametrize("command", ["documents", "label", "bench"])
def test_backend_flags_defaults_and_help_are_unchanged(command: str) -> None:
    params = {
        param.opts[0]: param for param in main.get_command(click.Context(main), command).params
    }
    for flag, type_name, bound, default, shown, help_text in FLAGS:
        param = params[flag]
        found = (param.type.name, limits(param.type), param.default, param.help)
        assert found == (type_name, bound, default, help_text), flag
        assert param.show_default == shown, flag


def test_an_option_of_another_backend_is_refused_before_any_model_loads(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main, ["documents", "--run", str(tmp_path), "--backend", "openai", "--n-gpu-layers", "9"]
    )
    assert result.exit_code == 2
    assert "--n-gpu-layers is an option of the llama.cpp backend, not of openai" in result.output
    model = CliRunner().invoke(main, ["documents", "--backend", "openai", "--model", "m.gguf"])
    assert "--model is an option of the llama.cpp and transformers backends" in model.output
    assert not tmp_path.exists() or not any(tmp_path.iterdir())
