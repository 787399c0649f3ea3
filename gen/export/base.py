"""What an export format is: a name, its settings, a writer, a checker and a card line.

A format module in `gen/export/formats/` (or any package naming it under the
`gen.export_formats` entry point) declares one `ExportFormat` per name. Its
settings are a frozen dataclass whose fields are made with `option(...)`: the
type comes from the annotation, and `gen export` turns each field into a
`--field-name` option with that default and help, so a new format needs no other
module edited. The writer gets an `ExportJob`, writes into `job.folder` and
returns what the manifest should record; the checker reads the written files
back and lists what is malformed, so a broken export is never swapped in.
"""

from __future__ import annotations

import importlib
import typing
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import MISSING, dataclass, field, fields
from functools import cached_property
from pathlib import Path
from types import UnionType
from typing import Any

from gen.core.errors import UsageError
from gen.core.packs import negative_labels
from gen.core.progress import ProgressReporter
from gen.core.records import Record
from gen.text.sentences import keep_spans_whole, pack_abbreviations, split_sentences

Splits = dict[str, list[Record]]


def option(
    default: Any,
    help: str,
    *,
    choices: Sequence[str] = (),
    minimum: int | None = None,
    must_exist: bool = False,
    unset: str = "",
) -> Any:
    """A settings field that `gen export` shows as an option (`must_exist`: for paths;
    `unset`: what a default of None means, shown as the default)."""
    metadata = {
        "help": help,
        "choices": tuple(choices),
        "minimum": minimum,
        "exists": must_exist,
        "unset": unset,
    }
    return field(default=default, metadata=metadata)


@dataclass(frozen=True)
class OptionSpec:
    """One declared option, as a command line needs it."""

    name: str
    type: type
    default: Any
    help: str
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    must_exist: bool = False
    unset: str = ""

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")


@dataclass(frozen=True)
class FormatSettings:
    """Base of a format's settings: checks the declared choices and minimums."""

    def __post_init__(self) -> None:
        for spec in option_specs(type(self)):
            value = getattr(self, spec.name)
            if value is None:
                continue
            if spec.choices and value not in spec.choices:
                raise UsageError(
                    f"{spec.flag} {value!r}: expected one of {', '.join(spec.choices)}"
                )
            if spec.minimum is not None and value < spec.minimum:
                raise UsageError(f"{spec.flag} must be at least {spec.minimum}, got {value}")


def _value_type(annotation: Any) -> type:
    """`int` from `int`, `Path` from `Path | None`."""
    if isinstance(annotation, UnionType) or typing.get_origin(annotation) is typing.Union:
        (annotation,) = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
    return annotation


def option_specs(settings: type[FormatSettings]) -> list[OptionSpec]:
    hints = typing.get_type_hints(settings)
    specs = []
    for item in fields(settings):
        if "help" not in item.metadata or item.default is MISSING:
            raise TypeError(f"{settings.__name__}.{item.name}: declare it with option(...)")
        specs.append(
            OptionSpec(
                name=item.name,
                type=_value_type(hints[item.name]),
                default=item.default,
                help=item.metadata["help"],
                choices=item.metadata["choices"],
                minimum=item.metadata["minimum"],
                must_exist=item.metadata["exists"],
                unset=item.metadata["unset"],
            )
        )
    return specs


@dataclass(frozen=True)
class NoSettings(FormatSettings):
    """For formats without options."""


@dataclass(frozen=True)
class ExportJob:
    """What a writer and a checker get: the split records, the folder and the settings."""

    splits: Splits
    folder: Path
    settings: Any
    #: Prompt packs whose `abbreviations` the sentence splitter honours (None: the default).
    prompts_dir: Path | None = None
    #: The export's progress bar, advanced by `each`.
    progress: ProgressReporter | None = None

    @cached_property
    def records(self) -> list[Record]:
        return [record for records in self.splits.values() for record in records]

    @cached_property
    def outside(self) -> str:
        """The label of text no span covers: the first non-sensitive category (`other`)."""
        return negative_labels(self.prompts_dir)[0]

    @cached_property
    def label_names(self) -> list[str]:
        return sorted({span.label for record in self.records for span in record.spans})

    def each(self, split: str) -> Iterator[Record]:
        """The records of one split, advancing the progress bar as they are written."""
        for record in self.splits[split]:
            yield record
            if self.progress is not None:
                self.progress.advance()

    def sentences(
        self, record: Record, words: Sequence[tuple[int, int]] = ()
    ) -> list[tuple[int, int]]:
        """Sentence ranges of `record` that never cut one of its spans (see gen.text.sentences)."""
        abbreviations = pack_abbreviations(record.language, self.prompts_dir)
        ranges = split_sentences(record.text, record.language, abbreviations=abbreviations)
        return keep_spans_whole(ranges, record.spans, words)


Writer = Callable[[ExportJob], dict[str, Any]]
#: Reads the written files back; returns one line per problem found (empty: well formed).
Checker = Callable[[ExportJob, dict[str, Any]], list[str]]


@dataclass(frozen=True)
class ExportFormat:
    """One export format: `gen export --format NAME`."""

    name: str
    #: Writes `job.folder/<split>.*`; returns what the manifest's `details` record.
    write: Writer
    #: How to load the files, one line for the dataset card.
    usage: str
    settings: type[FormatSettings] = NoSettings
    check: Checker | None = None

    def options(self) -> list[OptionSpec]:
        return option_specs(self.settings)

    def make_settings(self, values: Mapping[str, Any]) -> FormatSettings:
        """The settings from `values` by option name; the rest keep their defaults."""
        known = {spec.name for spec in self.options()}
        unknown = sorted(set(values) - known)
        if unknown:
            takes = ", ".join(sorted(known)) or "no options"
            raise UsageError(
                f"--format {self.name} takes no option {unknown[0]!r}; it takes: {takes}"
            )
        return self.settings(**values)


def require(module: str) -> Any:
    """Import an optional library, or say how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise UsageError(
            f"this export format needs the `{module}` package: pip install 'gen[export]'"
        ) from None
