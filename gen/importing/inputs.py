"""What `gen import` reads: the files and folders given, `@LIST` files of paths, and the
reader of each file.

Folders are read recursively: each file goes to the reader that claims it, files no
reader takes (a README, a `.DS_Store`) are skipped and listed, and a record table folder
is read as one input.

`@LIST` stands for the paths a list file holds, one a line (`gen import
@bench/runs/best.txt --as records`): blank lines and lines starting with `#` are left out,
and a relative path is relative to the list file's folder, so a list kept beside its files
names them by their names and works from any working directory.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from gen.core.encodings import read_utf8
from gen.core.errors import UsageError
from gen.core.record_files import BOM, listed
from gen.core.store import RecordTable
from gen.importing import (
    Reader,
    claiming_reader,
    companion_of,
    named_reader,
    reader_for,
    readers,
)

#: What marks a command-line argument as a list file of paths.
LIST_MARK = "@"


@dataclass(frozen=True)
class Input:
    """One file (or record table folder) to read, the reader for it, and the folder given
    on the command line that holds it (None: given itself)."""

    path: Path
    reader: Reader
    folder: Path | None = None


def expand_lists(arguments: Sequence[str | Path]) -> list[Path]:
    """The paths of the command line, each `@LIST` replaced by the paths its file holds
    (see the module doc); UsageError naming the list (and line) that is missing, names no
    path, or names a path that does not exist."""
    paths: list[Path] = []
    for argument in map(str, arguments):
        if not argument.startswith(LIST_MARK):
            paths.append(Path(argument))
            continue
        listing = Path(argument[len(LIST_MARK) :])
        if not listing.exists():
            raise UsageError(f"list file {listing} not found ({argument})")
        text = read_utf8(listing, "a list file", f"list file {listing}")
        lines = text.removeprefix(BOM).split("\n")
        found = 0
        for number, line in enumerate(lines, start=1):
            name = line.strip()
            if not name or name.startswith("#"):
                continue
            path = listing.parent / name
            if not path.exists():
                raise UsageError(f"list file {listing} line {number}: {path} not found")
            paths.append(path)
            found += 1
        if not found:
            raise UsageError(
                f"list file {listing} names no path (one path a line; # starts a comment)"
            )
    return paths


def find_inputs(
    paths: Sequence[Path],
    format_name: str | None = None,
    among: Sequence[Reader] | None = None,
) -> tuple[list[Input], list[Path]]:
    """(what to read, files skipped). A file given by name must have a reader (or be read
    with `--format`); inside a folder, files no reader takes are skipped, and a record
    table folder (`part-*.parquet`, e.g. another run's `labeled/`) is one input. `among`:
    the readers to choose from (default: all, or the one of `format_name`)."""
    if among is not None:
        chosen = list(among)
    else:
        chosen = [named_reader(format_name)] if format_name else readers()
    inputs: list[Input] = []
    skipped: list[Path] = []
    for path in map(Path, paths):
        if not path.exists():
            raise UsageError(f"input {path} not found")
        if not path.is_dir():
            reader = reader_for(path, format_name) if among is None else _claimed(path, chosen)
            inputs.append(Input(path, reader))
            continue
        for found in walk(path):
            reader = _table_reader(chosen) if found.is_dir() else claiming_reader(found, chosen)
            if reader is None:
                skipped.append(found)
            else:
                inputs.append(Input(found, reader, path))
    # A file another reader reads along (BRAT's .txt beside its .ann) is not read alone.
    companions = {companion_of(item.reader, item.path) for item in inputs} - {None}
    inputs = [item for item in inputs if item.path not in companions]
    skipped = [path for path in skipped if path not in companions]
    if not inputs:
        found_only = f" (only files no reader takes: {listed(skipped)})" if skipped else ""
        raise UsageError(f"no input files{found_only}")
    return inputs, skipped


def _claimed(path: Path, chosen: Sequence[Reader]) -> Reader:
    reader = claiming_reader(path, list(chosen))
    if reader is None:
        known = ", ".join(s for r in chosen for s in r.suffixes)
        raise UsageError(f"{path}: expected one of {known}")
    return reader


def walk(folder: Path) -> Iterator[Path]:
    """The files of `folder`, recursively and in order; a record table is one entry."""
    if RecordTable(folder).exists():
        yield folder
        return
    for path in sorted(folder.iterdir()):
        if path.is_dir():
            yield from walk(path)
        elif path.is_file():
            yield path


def _table_reader(chosen: list[Reader]) -> Reader | None:
    return next((reader for reader in chosen if ".parquet" in reader.suffixes), None)
