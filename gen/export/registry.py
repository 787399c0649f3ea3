"""Which export formats exist: every `ExportFormat` declared at the top level of a module
in `gen/export/formats/`, plus those other packages name under the `gen.export_formats`
entry point (`my_format = "my_package.module"` or `"my_package.module:FORMAT"`).

Discovery imports those modules once, on first use; a format keeps its heavy
libraries inside its writer, so listing the formats (as `gen --help` does) stays cheap.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable
from dataclasses import dataclass
from importlib.metadata import entry_points
from types import ModuleType
from typing import Any

from gen.core.errors import UsageError
from gen.export import formats
from gen.export.base import ExportFormat, OptionSpec

ENTRY_POINT_GROUP = "gen.export_formats"

_registry: dict[str, ExportFormat] | None = None


def _declared(module: ModuleType) -> list[ExportFormat]:
    return [value for value in vars(module).values() if isinstance(value, ExportFormat)]


def _discover() -> Iterable[ExportFormat]:
    for info in pkgutil.iter_modules(formats.__path__, f"{formats.__name__}."):
        yield from _declared(importlib.import_module(info.name))
    for point in entry_points(group=ENTRY_POINT_GROUP):
        loaded: Any = point.load()
        yield from _declared(loaded) if isinstance(loaded, ModuleType) else [loaded]


def register(export_format: ExportFormat) -> None:
    """Add a format (discovery does this for the built-in ones); a name is taken once."""
    if not isinstance(export_format, ExportFormat):
        raise TypeError(f"{export_format!r} is not an ExportFormat")
    registry = export_formats()
    known = registry.get(export_format.name)
    if known is not None and known is not export_format:
        raise ValueError(f"two export formats are named {export_format.name!r}")
    registry[export_format.name] = export_format


def export_formats() -> dict[str, ExportFormat]:
    """Every known format by name."""
    global _registry
    if _registry is None:
        _registry = {}
        for found in _discover():
            register(found)
    return _registry


def export_format(name: str) -> ExportFormat:
    found = export_formats().get(name)
    if found is None:
        known = ", ".join(sorted(export_formats()))
        raise UsageError(f"unknown export format {name!r}; expected one of {known}")
    return found


@dataclass(frozen=True)
class SharedOption:
    """An option name as the command line shows it, with every format that takes it."""

    spec: OptionSpec
    #: format name -> that format's declaration (defaults and help may differ).
    takers: dict[str, OptionSpec]

    @property
    def agreed(self) -> bool:
        """Whether every format taking the option has the same default."""
        return len({repr(spec.default) for spec in self.takers.values()}) == 1

    @property
    def default(self) -> Any:
        """The common default, or None when formats differ (each then applies its own)."""
        return self.spec.default if self.agreed else None

    @property
    def show_default(self) -> bool | str:
        """What `--help` shows as the default: the common value, or what an unset value
        means (formats that differ name theirs in the help)."""
        return self.default is not None or (self.agreed and self.spec.unset)

    @property
    def minimum(self) -> int | None:
        """The smallest minimum of the formats taking the option (each checks its own)."""
        minimums = [spec.minimum for spec in self.takers.values()]
        return None if None in minimums else min(m for m in minimums if m is not None)

    @property
    def help(self) -> str:
        own_minimum = len({spec.minimum for spec in self.takers.values()}) > 1
        parts: dict[str, list[str]] = {}
        for name, spec in self.takers.items():
            notes = [] if self.agreed else [f"default {spec.default}"]
            if own_minimum and spec.minimum is not None:
                notes.append(f"at least {spec.minimum}")
            text = f"{spec.help} ({', '.join(notes)})" if notes else spec.help
            parts.setdefault(text, []).append(name)
        return "; ".join(f"{', '.join(names)}: {text}" for text, names in parts.items()) + "."


def shared_options() -> list[SharedOption]:
    """Every option of every format, once per name, in declaration order.

    Formats may share a name (`--scheme`, `--stride`) as long as they agree on
    its type and choices; the command line keeps one option for it. Minimums may
    differ (a stride of 0 is no overlap for hf-tokens, no progress for
    sentences-context): each format's settings check their own.
    """
    merged: dict[str, SharedOption] = {}
    for format_name, export in export_formats().items():
        for spec in export.options():
            shared = merged.setdefault(spec.name, SharedOption(spec, {}))
            first = shared.spec
            if (first.type, first.choices, first.must_exist) != (
                spec.type,
                spec.choices,
                spec.must_exist,
            ):
                other = next(iter(shared.takers))
                raise ValueError(
                    f"export formats {other!r} and {format_name!r} declare option "
                    f"{spec.flag} differently (type or choices)"
                )
            shared.takers[format_name] = spec
    return list(merged.values())
