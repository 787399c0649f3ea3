"""Options written as one threshold for every name and `name=threshold` pairs: `0.8`,
`0.8,sexuality=0.4`, `real=0.5,facts=0.6`. One reader for `gen label --min-score` and
`gen build --min-quality`, so both accept and refuse the same way."""

from __future__ import annotations

from collections.abc import Sequence

from gen.core.errors import UsageError


def parse_thresholds(
    text: str,
    option: str,
    expected: str,
    names: Sequence[str] | None = None,
    *,
    kind: str = "label",
    unknown: str = "no known name",
) -> tuple[float | None, dict[str, float]]:
    """(the value for every name, None when not written; the `name=value` pairs) of `text`.
    A usage error names `option` and what is wrong, a name that is none of `names` (when
    given) first of all: `'x' is {unknown}`; `expected` says how to write it."""
    default: float | None = None
    by_name: dict[str, float] = {}
    for item in (piece.strip() for piece in str(text).split(",")):
        name, equals, value = item.partition("=")
        if not equals:
            number = probability(text, item, option, expected)
            if default is not None:
                raise UsageError(f"{option} {text!r} has two default values; expected {expected}")
            default = number
            continue
        name = name.strip()
        if names is not None and name and name not in names:
            raise UsageError(
                f"{option} {text!r}: {name!r} is {unknown}; expected one of {', '.join(names)}"
            )
        if not name or name in by_name:
            raise UsageError(
                f"{option} {text!r}: {'a repeated' if name else 'an empty'} {kind} in "
                f"{item!r}; expected {expected}"
            )
        by_name[name] = probability(text, value, option, expected)
    return default, by_name


def probability(text: str, value: str | float, option: str, expected: str) -> float:
    """`value` as a number from 0 to 1, or a usage error naming `option` as written."""
    try:
        number = float(value)
    except ValueError:
        raise UsageError(
            f"{option} {text!r}: {value!r} is not a number; expected {expected}"
        ) from None
    if not 0.0 <= number <= 1.0:
        raise UsageError(f"{option} {text!r}: {value} is not between 0 and 1")
    return number
