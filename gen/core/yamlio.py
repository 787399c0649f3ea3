"""Load a YAML file into a pydantic model, or fail with one message that names
the file, the key (and line) and what was expected.

Every YAML file gen reads goes through `read_yaml`, which refuses a key written twice in one
mapping: YAML loaders keep the last value silently, so `PER: PERSON` then `PER: LOCATION`
in a label map would turn every name into a place."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from gen.core.errors import ConfigError

ModelT = TypeVar("ModelT", bound=BaseModel)


class StrictModel(BaseModel):
    """Base for config models: unknown keys are errors, not silently ignored."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class _LineLoader(yaml.SafeLoader):
    """Records the line of every mapping key so errors can point at it."""


class _DuplicateKey(yaml.constructor.ConstructorError):
    """A key written twice in one mapping: `line`, the key, and the line it first was on."""

    def __init__(self, key: Any, line: int, first: int) -> None:
        super().__init__(problem=f"duplicate key {key!r}")
        self.key, self.line, self.first = key, line, first


def _refuse_duplicate_keys(loader: _LineLoader, node: yaml.MappingNode) -> None:
    """Keys merged in with `<<: *anchor` may be overridden (YAML's rule); written ones not."""
    seen: dict[Any, int] = {}
    for key_node, _ in node.value:
        if key_node.tag == "tag:yaml.org,2002:merge":
            continue
        key = loader.construct_object(key_node, deep=True)
        line = key_node.start_mark.line + 1
        try:
            if key in seen:
                raise _DuplicateKey(key, line, seen[key])
            seen[key] = line
        except TypeError:  # an unhashable key: construct_mapping names it
            continue


def _construct_mapping(loader: _LineLoader, node: yaml.MappingNode) -> dict[str, Any]:
    _refuse_duplicate_keys(loader, node)
    mapping = loader.construct_mapping(node, deep=True)
    lines = {str(key_node.value): key_node.start_mark.line + 1 for key_node, _ in node.value}
    mapping_with_lines = _LinedDict(mapping)
    mapping_with_lines.lines = lines
    return mapping_with_lines


class _LinedDict(dict):
    lines: dict[str, int]


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def read_yaml(path: Path) -> Any:
    """Parse a YAML file; syntax errors and duplicate keys name the file and line."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read ({exc})") from None
    try:
        return yaml.load(text, Loader=_LineLoader)
    except _DuplicateKey as exc:
        raise ConfigError(
            f"{path}: line {exc.line}: duplicate key {exc.key!r} (first on line {exc.first}); "
            "write each key once"
        ) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(f"{path}:{where}: invalid YAML ({problem})") from None


def _line_of(data: Any, loc: tuple[int | str, ...]) -> int | None:
    line = None
    node = data
    for key in loc:
        if isinstance(node, _LinedDict) and str(key) in node.lines:
            line = node.lines[str(key)]
        try:
            node = node[key]
        except (KeyError, IndexError, TypeError):
            break
    return line


#: Brackets a list value opens and closes.
_CLOSING = {"(": ")", "[": "]", "{": "}", "«": "»"}


def check_balanced(value: str) -> str:
    """`value` if its brackets and double quotes are balanced, else ValueError: YAML cuts an
    unquoted item of a `[a, b]` list at every comma, so `[Two (theft 2015, assault 2018)]`
    is two values, each with half a bracket, and each would become a span."""
    problem = _unbalanced(value)
    if problem:
        raise ValueError(
            f"the value {value!r} has {problem}; YAML cuts an unquoted list item at every "
            "comma: write the value in quotes"
        )
    return value


def _unbalanced(value: str) -> str | None:
    expected: list[str] = []
    for char in value:
        if char in _CLOSING:
            expected.append(_CLOSING[char])
        elif char in _CLOSING.values() and (not expected or expected.pop() != char):
            return f"a {char!r} that nothing opened"
    if expected:
        return f"a bracket left open (no {expected[-1]!r})"
    if value.count('"') % 2 or sum(value.count(quote) for quote in "„“”") % 2:
        return "an odd number of double quotes"
    return None


def validation_messages(path: Path, data: Any, exc: ValidationError) -> list[str]:
    """Every validation error, each as `file: line N: key a.b: what was expected`."""
    return [_message(path, data, error) for error in exc.errors()]


def _message(path: Path, data: Any, error: Any) -> str:
    kind = error["type"]
    if kind == "extra_forbidden":
        what = "unknown key"
    elif kind == "missing":
        what = "required key is missing"
    else:
        what = error["msg"].removeprefix("Value error, ")
    return _located(path, data, tuple(error["loc"]), what)


def _located(path: Path, data: Any, loc: tuple[int | str, ...], what: str) -> str:
    # pydantic ends the location of a refused mapping key with "[key]": the key names it
    key = ".".join(str(part) for part in loc if part != "[key]") or "(top level)"
    line = _line_of(data, loc)
    where = f" line {line}:" if line else ""
    return f"{path}:{where} {key}: {what}"


def located_message(path: Path, loc: tuple[int | str, ...], what: str) -> str:
    """`file: line N: key a.b: what` for a problem found after loading (a check across
    files): the key's line is read again from the file."""
    return _located(path, read_yaml(path), loc, what)


def validation_message(path: Path, data: Any, exc: ValidationError) -> str:
    """The first validation error, and how many more there are, on one line."""
    first, *others = validation_messages(path, data, exc)
    more = len(others)
    return first + (f" (and {more} more problem{'s' if more > 1 else ''})" if more else "")


def load_model(path: Path, model: type[ModelT], **context: Any) -> ModelT:
    """Read `path` and validate it as `model`; any problem is a ConfigError."""
    data = read_yaml(path)
    if data is None:
        raise ConfigError(f"{path}: file is empty, expected a mapping")
    try:
        return model.model_validate(data, context=context or None)
    except ValidationError as exc:
        raise ConfigError(
            validation_message(path, data, exc), validation_messages(path, data, exc)
        ) from None
