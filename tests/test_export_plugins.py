"""Export formats are plug-ins: a new one is one new module (or package) and its tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest
from build_fixtures import make_run
from click.testing import CliRunner

from gen.cli import main
from gen.core.errors import UsageError
from gen.core.runs import RunPaths
from gen.dataset.assemble import build_dataset
from gen.dataset.options import BuildOptions
from gen.export import registry
from gen.export.base import ExportFormat, ExportJob, FormatSettings, option
from gen.export.registry import export_format, export_formats, register, shared_options
from gen.export.run import ExportOptions, MalformedExportError, run

REPOSITORY = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> RunPaths:
    root = tmp_path_factory.mktemp("run")
    make_run(root)
    build_dataset(root, BuildOptions())
    return RunPaths(root)


@pytest.fixture
def own_registry(monkeypatch):
    """A copy of the registry, so a toy format does not outlive its test."""
    monkeypatch.setattr(registry, "_registry", dict(export_formats()))


@dataclass(frozen=True)
class ShoutSettings(FormatSettings):
    mark: str = option("!", "text after each record's id", choices=("!", "?"))
    repeat: int = option(1, "marks per line", minimum=1)


def write_shout(job: ExportJob) -> dict:
    for name in job.splits:
        lines = [f"{r.id}{job.settings.mark * job.settings.repeat}\n" for r in job.each(name)]
        (job.folder / f"{name}.txt").write_text("".join(lines))
    return {"files": {name: f"{name}.txt" for name in job.splits}}


def check_shout(job: ExportJob, details: dict) -> list[str]:
    return [
        f"{file}: too short"
        for name, file in details["files"].items()
        if len((job.folder / file).read_text().splitlines()) != len(job.splits[name])
    ]


SHOUT = ExportFormat(
    name="shout",
    settings=ShoutSettings,
    write=write_shout,
    check=check_shout,
    usage="one id per line, shouted (toy usage line 7341)",
)


def test_a_registered_toy_format_exports_with_its_options_and_card(built, own_registry):
    register(SHOUT)
    summary = run(built, ExportOptions("shout", settings={"mark": "?", "repeat": 3}))
    folder = built.export / "shout"
    assert summary.folder == folder
    train = (folder / "train.txt").read_text().splitlines()
    assert len(train) == summary.counts["train"] and all(line.endswith("???") for line in train)
    assert "toy usage line 7341" in (folder / "README.md").read_text()
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["options"] == {"mark": "?", "repeat": 3}
    assert "--mark" in [shared.spec.flag for shared in shared_options()]


def test_a_toy_format_settings_are_checked(built, own_registry):
    register(SHOUT)
    with pytest.raises(UsageError, match="--mark '#': expected one of !, \\?"):
        run(built, ExportOptions("shout", settings={"mark": "#"}))
    with pytest.raises(UsageError, match="--repeat must be at least 1"):
        run(built, ExportOptions("shout", settings={"repeat": 0}))
    with pytest.raises(UsageError, match="takes no option 'scheme'; it takes: mark, repeat"):
        run(built, ExportOptions("shout", settings={"scheme": "bio"}))


def test_a_format_whose_check_fails_replaces_nothing(built, own_registry):
    register(SHOUT)
    run(built, ExportOptions("shout"))
    before = (built.export / "shout" / "train.txt").read_text()

    def write_short(job: ExportJob) -> dict:
        details = write_shout(job)
        (job.folder / "train.txt").write_text("")
        return details

    registry._registry["shout"] = ExportFormat(
        "shout", write_short, "u", ShoutSettings, check_shout
    )
    with pytest.raises(MalformedExportError, match=r"shout export refused.*train.txt: too short"):
        run(built, ExportOptions("shout", settings={"mark": "?"}))
    assert (built.export / "shout" / "train.txt").read_text() == before
    assert not list(built.export.glob(".shout.*.tmp")) + list(built.export.glob(".shout.*.old"))


def test_formats_sharing_an_option_must_agree_on_its_type(own_registry):
    @dataclass(frozen=True)
    class OtherScheme(FormatSettings):
        scheme: str = option("io", "tag scheme", choices=("io", "bilou"))

    register(ExportFormat("other-scheme", lambda job: {}, "u", OtherScheme))
    with pytest.raises(ValueError, match="declare option --scheme differently"):
        shared_options()


def test_two_formats_cannot_take_one_name(own_registry):
    with pytest.raises(ValueError, match="two export formats are named 'conll'"):
        register(ExportFormat("conll", lambda job: {}, "u"))


def test_unknown_format_names_the_known_ones():
    with pytest.raises(UsageError, match="unknown export format 'xml'; expected one of conll"):
        export_format("xml")


def test_settings_fields_must_be_declared_with_option():
    @dataclass(frozen=True)
    class Bare(FormatSettings):
        width: int = 3

    with pytest.raises(TypeError, match=r"Bare.width: declare it with option"):
        ExportFormat("bare", lambda job: {}, "u", Bare).options()


def test_cli_notes_options_of_other_formats(built):
    result = CliRunner().invoke(
        main, ["export", "--run", str(built.root), "--format", "jsonl", "--length", "5"]
    )
    assert result.exit_code == 0, result.output
    assert "note: --length does not apply to --format jsonl; ignored" in result.output


def test_a_format_from_another_package_joins_the_cli(built, tmp_path):
    """An installed package naming a module under the `gen.export_formats` entry point
    gets its format and options into `gen export` without any change to gen."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "toy_lines.py").write_text(
        textwrap.dedent(
            """
            from dataclasses import dataclass
            from gen.export.base import ExportFormat, FormatSettings, option

            @dataclass(frozen=True)
            class Settings(FormatSettings):
                prefix: str = option(">", "text before each id")

            def write(job):
                for name in job.splits:
                    text = "".join(f"{job.settings.prefix}{r.id}\\n" for r in job.each(name))
                    (job.folder / f"{name}.lines").write_text(text)
                return {"files": {name: f"{name}.lines" for name in job.splits}}

            TOY = ExportFormat("toy-lines", write, "read it line by line (toy 9917)", Settings)
            """
        )
    )
    dist = site / "toy_lines-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-lines\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[gen.export_formats]\ntoy-lines = toy_lines\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPOSITORY), str(site)])}

    def gen(*args: str) -> subprocess.CompletedProcess:
        command = [sys.executable, "-c", "from gen.cli import main; main()", *args]
        return subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)

    help_text = gen("export", "--help")
    assert help_text.returncode == 0, help_text.stderr
    assert "toy-lines" in help_text.stdout
    assert "--prefix" in help_text.stdout and "toy-lines: text before each id" in help_text.stdout
    done = gen("export", "--run", str(built.root), "--format", "toy-lines", "--prefix", "#")
    assert done.returncode == 0, done.stderr
    folder = built.export / "toy-lines"
    assert (folder / "train.lines").read_text().startswith("#")
    assert "toy 9917" in (folder / "README.md").read_text()


def test_export_does_not_import_labeling():
    code = (
        "import sys; from gen.export.registry import export_formats; import gen.export.run; "
        "export_formats(); print(sorted(m for m in sys.modules if m.split('.')[0] == 'labeling'))"
    )
    env = {**os.environ, "PYTHONPATH": str(REPOSITORY)}
    result = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_cli_help_and_defaults_come_from_the_formats(built):
    runner = CliRunner()
    help_text = " ".join(runner.invoke(main, ["export", "--help"]).output.split())
    assert (
        "hf-tokens: token overlap between windows (default 20, at least 0); "
        "sentences-context: words between chunk starts (default 6, at least 1)." in help_text
    )
    assert "conll, hf-tokens: word tag scheme" in help_text
    result = runner.invoke(
        main, ["export", "--run", str(built.root), "--format", "sentences-context"]
    )
    assert result.exit_code == 0, result.output
    manifest = json.loads((built.export / "sentences-context" / "manifest.json").read_text())
    assert manifest["options"] == {
        "stride": 6,
        "chunk_width": 7,
        "context_width": 15,
        "separator": "[SEP]",
    }
    too_small = runner.invoke(
        main, ["export", "--run", str(built.root), "--format", "conll", "--length", "0"]
    )
    assert too_small.exit_code == 2 and "--length" in too_small.output


def test_a_chunk_stride_of_zero_is_refused_and_nothing_is_written(built):
    """hf-tokens takes a stride of 0 (no overlap); sentences-context needs a step of 1."""
    manifest = built.export / "sentences-context" / "manifest.json"
    before = manifest.read_bytes() if manifest.exists() else None
    result = CliRunner().invoke(
        main, ["export", "--run", str(built.root), "--format", "sentences-context", "--stride", "0"]
    )
    assert result.exit_code == 2, result.output
    assert "--stride must be at least 1, got 0" in result.output
    assert (manifest.read_bytes() if manifest.exists() else None) == before


def test_formats_may_share_an_option_with_different_minimums(own_registry):
    """Each format checks its own minimum; the help names both."""
    (stride,) = [shared for shared in shared_options() if shared.spec.flag == "--stride"]
    assert "at least 1" in stride.help and "at least 0" in stride.help
    with pytest.raises(UsageError, match="--stride must be at least 1"):
        export_format("sentences-context").make_settings({"stride": 0})
    export_format("hf-tokens").settings(stride=0)
