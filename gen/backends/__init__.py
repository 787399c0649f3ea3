"""The registry of backends: found, not listed.

Every module of this package that defines `BACKEND = BackendSpec(...)` is a backend,
and so is every `gen.backends` entry point of an installed package (a plug-in);
`register_backend` adds one at run time. Adding a backend is one new module: the
`--backend` choices, the command-line options (`gen.cli.options`), `make_backend` and
`gen bench` all come from the specs. A plug-in that fails to load is skipped with a
warning, so it cannot break the commands that do not use it.
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
from importlib.metadata import entry_points
from typing import Any

from gen.backends.base import Backend, RawEngine
from gen.backends.models import embedded_model_path, file_sha256
from gen.backends.spec import CLI, BackendOptions, BackendSpec, cli_fields
from gen.core.errors import UsageError, warn

__all__ = [
    "BackendOptions",
    "BackendSpec",
    "backend_specs",
    "default_backend_options",
    "embedded_model_path",
    "file_sha256",
    "make_backend",
    "raw_engine",
    "register_backend",
    "spec_for",
]

DEFAULT_BACKEND = "llama.cpp"
ENTRY_POINT_GROUP = "gen.backends"

_specs: dict[str, BackendSpec[Any]] = {}
_discovered = False


def _declaration(option_field: dataclasses.Field[Any]) -> tuple[object, ...]:
    return (option_field.metadata[CLI], option_field.default, str(option_field.type))


def _check(spec: BackendSpec[Any]) -> None:
    """A spec's options must not clash with another backend's: one field name, one flag,
    one declaration (fields inherited from a shared base class are the same)."""
    if spec.name in _specs:
        raise ValueError(f"backend {spec.name!r} is registered twice")
    options = spec.options
    if not (dataclasses.is_dataclass(options) and issubclass(options, BackendOptions)):
        raise TypeError(f"backend {spec.name!r}: options must be a BackendOptions dataclass")
    if options is BackendOptions:
        raise TypeError(f"backend {spec.name!r}: declare its own subclass of BackendOptions")
    if any(other.options is spec.options for other in _specs.values()):
        raise TypeError(f"backend {spec.name!r} reuses the options class of another backend")
    known = {f.name: f for other in _specs.values() for f in cli_fields(other.options)}
    flags = {f.metadata[CLI].flag: f.name for f in known.values()}
    for new in cli_fields(spec.options):
        flag = new.metadata[CLI].flag
        if flags.get(flag, new.name) != new.name:
            raise ValueError(f"backend {spec.name!r}: {flag} is already the flag of {flags[flag]}")
        if new.name in known and _declaration(known[new.name]) != _declaration(new):
            raise ValueError(
                f"backend {spec.name!r}: option {new.name} is declared differently by another "
                "backend; share the declaration through a common base class"
            )


def register_backend(spec: BackendSpec[Any]) -> BackendSpec[Any]:
    """Add a backend; a clash with a known one is a ValueError/TypeError naming it."""
    _discover()
    _check(spec)
    _specs[spec.name] = spec
    return spec


def _package_specs() -> list[BackendSpec[Any]]:
    found = []
    for module in pkgutil.iter_modules(__path__, f"{__name__}."):
        spec = getattr(importlib.import_module(module.name), "BACKEND", None)
        if isinstance(spec, BackendSpec):
            found.append(spec)
    return found


def _discover() -> None:
    global _discovered
    if _discovered:
        return
    _discovered = True
    for spec in _package_specs():
        _check(spec)
        _specs[spec.name] = spec
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        try:
            spec = entry.load()
            if not isinstance(spec, BackendSpec):
                raise TypeError(f"expected a BackendSpec, got {type(spec).__name__}")
            _check(spec)
        except Exception as exc:  # a broken plug-in must not break the other backends
            warn(f"backend plug-in {entry.name} ({entry.value}) skipped: {exc}")
            continue
        _specs[spec.name] = spec


def backend_specs() -> dict[str, BackendSpec[Any]]:
    """Every known backend by name, in `rank` order."""
    _discover()
    return dict(sorted(_specs.items(), key=lambda item: (item[1].rank, item[0])))


def spec_for(name: str) -> BackendSpec[Any]:
    specs = backend_specs()
    if name not in specs:
        raise UsageError(f"unknown backend {name!r}; expected one of {', '.join(specs)}")
    return specs[name]


def _spec_of(options: BackendOptions) -> BackendSpec[Any]:
    for spec in backend_specs().values():
        if type(options) is spec.options:
            return spec
    raise UsageError(f"{type(options).__name__} is not the options class of any backend")


def default_backend_options() -> BackendOptions:
    """The options of the default backend, with its defaults."""
    options: BackendOptions = spec_for(DEFAULT_BACKEND).options()
    return options


def make_backend(options: BackendOptions) -> Backend:
    """A ready backend: the one whose options class `options` is."""
    return _spec_of(options).create(options)


def raw_engine(backend: Backend) -> RawEngine | None:
    """The bare engine loop of `gen bench` for `backend`, if its module declares one."""
    spec = backend_specs().get(backend.name)
    return spec.raw_engine(backend) if spec and spec.raw_engine else None
