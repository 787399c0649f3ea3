"""`{name}` placeholders in the templates of the prompt YAMLs, checked on load.

Generation prompts, labeling prompts, raw chat formats and query templates are
all `str.format` templates; each place allows its own names. One validator
checks them all, so a typo fails at start-up with the same message everywhere
(the YAML loader adds the file, line and key).
"""

from __future__ import annotations

import string
from collections.abc import Collection, Set

#: (literal text, placeholder name or None) pairs, in template order.
Pieces = list[tuple[str, str | None]]


def template_pieces(template: str) -> Pieces:
    """The template cut at its placeholders; ValueError when it is not a valid template
    or a placeholder is more than a bare name (`{name!r}`, `{name:>3}`)."""
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise ValueError(
            f"not a valid template ({exc}); write literal braces as {{{{ }}}}"
        ) from None
    pieces: Pieces = []
    for literal, name, spec, conversion in parsed:
        if name is not None and (spec or conversion):
            raise ValueError(f"placeholder {{{name}}} takes no format or conversion")
        pieces.append((literal, name))
    return pieces


def placeholders(template: str) -> set[str]:
    """Names used as `{name}` in `template`."""
    return {name for _, name in template_pieces(template) if name is not None}


def check_placeholders(
    template: str, allowed: Collection[str], *, required: str | None = None
) -> str:
    """`template` if it uses only `allowed` names (and `required`, when given), else
    ValueError listing the allowed names: in their order, or sorted when a set."""
    for _, name in template_pieces(template):
        if name is not None and name not in allowed:
            listed = sorted(allowed) if isinstance(allowed, Set) else allowed
            raise ValueError(
                f"unknown placeholder {{{name}}}; allowed: "
                + ", ".join(f"{{{option}}}" for option in listed)
            )
    if required is not None and required not in placeholders(template):
        raise ValueError(f"the template must contain {{{required}}}")
    return template
