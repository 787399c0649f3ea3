"""Exact character offsets of a tokenizer's tokens from their pieces (the bytes of each).

A tokenizer that gives no offsets (llama.cpp) still gives each token's piece; laid end to
end, the pieces usually spell the text again, and each token's range follows. Where they
do not (a tokenizer that adds a space before the first word, collapses a run of spaces,
turns a no-break space into a space, or drops a control character), the pieces are
aligned to the text byte by byte (gen.text.byte_alignment): common stretches are matched
exactly, and between two matched stretches the differing bytes of the pieces stand for
the differing bytes of the text. So every token gets the range of the text it was made
from:

- text bytes no piece spells (a dropped run of spaces) join the token before them (the
  first token, at the start of the text);
- piece bytes the text lacks (an added space) give their token an empty range when the
  whole piece is added;
- a piece that differs from the text (a normalized character) covers the text it replaced.

Ranges follow each other without gap or overlap and cover the whole text; a range that
ends inside a character (byte-level BPE splits emoji and accents) widens to hold it. Only
pieces that share no stretch with the text over thousands of bytes cannot be aligned:
`TextNotMapped`, for that one text.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from gen.core.errors import GenError
from gen.text.byte_alignment import Block, Unaligned, matching_blocks


class TextNotMapped(GenError):
    """The pieces of a text's tokens differ from the text too much to be aligned to it."""


def token_offsets(pieces: Sequence[bytes], text: str) -> np.ndarray:
    """(tokens, 2) character ranges of `text`, one per piece; see the module docstring."""
    data = text.encode("utf-8")
    starts, ends = byte_ranges(pieces, data)
    return char_ranges(data, starts, ends)


def byte_ranges(pieces: Sequence[bytes], data: bytes) -> tuple[np.ndarray, np.ndarray]:
    """Each piece's byte range in `data`: consecutive, covering `data` (module docstring)."""
    cuts = np.concatenate([[0], np.cumsum([len(p) for p in pieces], dtype=np.int64)])
    joined = b"".join(pieces)
    if joined != data:
        try:
            blocks = matching_blocks(joined, data)
        except Unaligned as exc:
            character = len(data[: exc.position].decode("utf-8", "ignore"))
            raise TextNotMapped(
                f"the tokens' pieces and the text differ too much from character {character} "
                "on to align them; no token offsets"
            ) from None
        cuts = _map_positions(cuts, blocks, data)
    return cuts[:-1], cuts[1:]


def char_ranges(data: bytes, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Byte ranges -> character ranges; a range that cuts a character widens to hold it (its
    start rounds down, its end up), an empty range stays empty."""
    # char_of_byte[b]: the character that byte b belongs to; one past the end for len(data).
    lead = np.frombuffer(data, np.uint8) & 0xC0 != 0x80
    char_of_byte = np.concatenate([np.cumsum(lead) - 1, [int(lead.sum())]]).astype(np.int64)
    char_starts = char_of_byte[starts]
    last_bytes = np.maximum(ends - 1, starts)
    char_ends = np.where(ends > starts, char_of_byte[last_bytes] + 1, char_starts)
    return np.stack([char_starts, char_ends], axis=1).astype(np.int32)


def _map_positions(cuts: np.ndarray, blocks: list[Block], data: bytes) -> np.ndarray:
    """Positions in the joined pieces -> positions in the text (module docstring)."""
    mapped = np.empty_like(cuts)
    last = -1  # the last block that starts at or before the cut
    for index, cut in enumerate(cuts.tolist()):
        while last + 1 < len(blocks) and blocks[last + 1][0] <= cut:
            last += 1
        i, j, size = blocks[last] if last >= 0 else (0, 0, 0)
        if cut <= i + size:
            # In a matched block; at the start of one, the text bytes skipped before it
            # (spelled by no piece) went to the token before.
            mapped[index] = j + cut - i
        else:  # between two matched blocks: the differing stretches stand for each other
            next_i, next_j, _ = blocks[last + 1]
            share = (cut - i - size) / (next_i - i - size)
            position = j + size + round(share * (next_j - j - size))
            while 0 < position < len(data) and data[position] & 0xC0 == 0x80:
                position -= 1  # to the start of a character: the stretch is cut between two
            mapped[index] = max(position, j + size)
    mapped[0], mapped[-1] = 0, len(data)
    return mapped
