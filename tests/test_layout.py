"""The layout of the code: dependencies between modules point one way.

An import circle (`a` imports `b`, which imports `a`) means neither module can be read,
tested or replaced without the other; a protocol or registry belongs below the modules
that use it. Imports only for type annotations (`if TYPE_CHECKING:`) and imports inside
functions count too: they are the same dependency, merely postponed.
"""

from __future__ import annotations

import ast
import graphlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("gen", "labeling", "scraping")


def module_names(root: Path, packages: tuple[str, ...]) -> dict[str, Path]:
    """Dotted module name -> file, for every module of `packages` under `root`."""
    found = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def imported_modules(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The modules of `modules` that the module `name` imports anywhere in its file."""

    def known(dotted: str) -> str | None:
        while dotted and dotted not in modules:
            dotted = dotted.rpartition(".")[0]
        return dotted or None

    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str | None] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(known(alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, *([node.module] if node.module else [])])
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                found.add(submodule if submodule in modules else known(base))
    return {module for module in found if module and module != name}


def import_graph(root: Path, packages: tuple[str, ...]) -> dict[str, set[str]]:
    modules = module_names(root, packages)
    return {name: imported_modules(name, path, modules) for name, path in modules.items()}


def import_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle of `graph` (its first module repeated at the end), or None."""
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as exc:
        return list(exc.args[1])
    return None


def test_no_module_imports_itself_through_others() -> None:
    graph = import_graph(ROOT, PACKAGES)
    assert "gen.core.records" in graph["gen.core.store"]  # the walk sees real imports
    assert "labeling.strategies" in graph["labeling.strategies.censor"]
    cycle = import_cycle(graph)
    if cycle:
        pytest.fail("import circle: " + " -> ".join(reversed(cycle)))


def reached(graph: dict[str, set[str]], start: str) -> set[str]:
    """Every module `start` imports, directly or through others."""
    seen, todo = set(), [start]
    while todo:
        for module in graph[todo.pop()] - seen:
            seen.add(module)
            todo.append(module)
    return seen


def test_detectors_load_from_below_the_stage_that_trains_them() -> None:
    """Labeling, prediction and review use trained detectors; none of them depends on
    `gen.train` (a stage above them): gen.predict.loader imports the trainer that made a
    folder by name, on use."""
    graph = import_graph(ROOT, PACKAGES)
    users = [m for m in graph if m.startswith(("labeling", "gen.predict", "gen.review"))]
    assert "labeling.strategies.detector" in users and "gen.predict.loader" in users
    for module in users:
        above = sorted(m for m in reached(graph, module) if m.startswith("gen.train"))
        assert not above, f"{module} imports {', '.join(above)}"


def test_the_check_finds_circles_through_annotations_and_relative_imports(
    tmp_path: Path,
) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "protocol.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.sub.plugin import P\n"
    )
    (package / "sub" / "plugin.py").write_text("from ..protocol import *\n")
    graph = import_graph(tmp_path, ("pkg",))
    assert graph["pkg.sub.plugin"] == {"pkg.protocol"}
    assert set(import_cycle(graph) or ()) == {"pkg.protocol", "pkg.sub.plugin"}
    (package / "protocol.py").write_text("")
    assert import_cycle(import_graph(tmp_path, ("pkg",))) is None
