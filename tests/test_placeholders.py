"""One validator for the `{name}` placeholders of every prompt and query template."""

from __future__ import annotations

import pytest

from gen.core.placeholders import check_placeholders, placeholders, template_pieces


def test_pieces_in_order() -> None:
    assert template_pieces("Hi {name}, {age} years") == [("Hi ", "name"), (", ", "age"),
                                                         (" years", None)]  # fmt: skip
    assert placeholders("{a}{b}{a} {{literal}}") == {"a", "b"}


def test_unknown_name_lists_the_allowed_ones() -> None:
    with pytest.raises(ValueError, match=r"unknown placeholder \{persona\}; allowed: \{a\}, \{b\}"):
        check_placeholders("x {persona}", {"b", "a"})  # a set: listed sorted
    with pytest.raises(ValueError, match=r"allowed: \{PERSON\}, \{CITY\}$"):
        check_placeholders("{ZIP}", ("PERSON", "CITY"))  # a sequence: listed in its order


def test_required_name_and_bare_names_only() -> None:
    assert check_placeholders("{sentences}", {"sentences"}, required="sentences") == "{sentences}"
    with pytest.raises(ValueError, match=r"must contain \{sentences\}"):
        check_placeholders("no list", {"sentences"}, required="sentences")
    with pytest.raises(ValueError, match=r"placeholder \{name\} takes no format or conversion"):
        check_placeholders("{name!r}", {"name"})
    with pytest.raises(ValueError, match=r"placeholder \{age\} takes no format"):
        check_placeholders("{age:>3}", {"age"})


def test_broken_braces_say_how_to_write_literal_ones() -> None:
    with pytest.raises(
        ValueError, match=r"not a valid template .*write literal braces as \{\{ \}\}"
    ):
        check_placeholders("{unclosed", {"unclosed"})
