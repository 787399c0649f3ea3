"""The tokens the censor aligner compares: words, single CJK characters, punctuation.

Models change the case, the quote and dash styles and the whitespace of a text they copy
without meaning to; folding those away here makes such changes free for the aligner, while
each original token keeps its match, so spans map back to exact character offsets.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
#: A CJK character, a run of other word characters, or one punctuation/symbol character.
_TOKEN = re.compile(rf"[{_CJK}]|[^\W{_CJK}]+|[^\w\s]")
_FOLD = str.maketrans(
    {
        **dict.fromkeys("‘’‚‛`´‹›", "'"),
        **dict.fromkeys("“”„‟«»", '"'),
        **dict.fromkeys("‐‑‒–—―−", "-"),
    }
)


def normalise_tokens(text: str) -> list[str]:
    """The text's tokens with what models change without meaning to folded away: case,
    quote and dash styles. Whitespace is not a token, so reflowing it changes nothing."""
    folded = _fold(text)
    if len(folded) == len(text):  # folding kept every character in place: one C-level pass
        return _TOKEN.findall(folded)
    return [_fold(token) for token in _TOKEN.findall(text)]


def _fold(text: str) -> str:
    return text.translate(_FOLD).casefold()


def normalise_text(text: str) -> str:
    """Tokens joined by single spaces: the text as the aligner compares it."""
    return " ".join(normalise_tokens(text))


def is_word(norm: str) -> bool:
    return norm[0].isalnum()


@dataclass(frozen=True, slots=True)
class SourceTokens:
    """The original's tokens: normalised for comparison, matches for character offsets."""

    text: str
    matches: list[re.Match[str]]
    norms: list[str]

    @classmethod
    def of(cls, text: str) -> SourceTokens:
        matches = list(_TOKEN.finditer(text))
        norms = normalise_tokens(text)
        if len(norms) != len(matches):  # folding moved a token boundary: fold token by token
            norms = [_fold(match.group()) for match in matches]
        return cls(text, matches, norms)
