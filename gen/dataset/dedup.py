"""Exact and near-duplicate detection over the whole dataset (MinHash LSH).

Near-duplicates above `threshold` are removed; texts that are merely similar
(above a lower threshold) are clustered, so that `gen export` keeps them in
one split and a test set never holds a paraphrase of a training document.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Sequence
from types import ModuleType
from typing import TYPE_CHECKING

from gen.text.nfc import nfc
from gen.text.words import alphanumeric_words

if TYPE_CHECKING:  # datasketch pulls in scipy: imported where used, not at CLI start-up
    from datasketch import MinHash, MinHashLSH

NUM_PERM = 128
#: Chance that a pair exactly at the threshold is found when datasketch picks no bands.
CANDIDATE_RECALL = 0.99
SHINGLE_WORDS = 3


def normalized(text: str) -> str:
    """Text reduced to its lowercase words (gen.text.words, punctuation left out, each
    Chinese character a word) with the hyphens, apostrophes and periods inside them
    dropped, so case, punctuation, spacing, quote style ("l’anno") and Unicode
    normalization (NFC: a decomposed "José" is the same word) don't hide a copy."""
    text = nfc(text).lower()
    return " ".join(
        "".join(filter(str.isalnum, text[start:end])) for start, end in alphanumeric_words(text)
    )


def _shingles(text: str) -> set[bytes]:
    words = normalized(text).split()
    if len(words) < SHINGLE_WORDS:
        return {" ".join(words).encode()}
    return {" ".join(words[i : i + SHINGLE_WORDS]).encode() for i in range(len(words) - 2)}


def _datasketch() -> ModuleType:
    """datasketch, imported where used. Its import runs numpy.f2py, which (numpy 2.2)
    shrinks the `re` module's pattern cache to 50 for the whole process; pysbd then
    recompiles its patterns at every call and sentence splitting in the same process
    (exports after a build, tests) runs about 8 times slower. The cache size is put back."""
    size = re._MAXCACHE
    import datasketch

    re._MAXCACHE = max(re._MAXCACHE, size)
    return datasketch


def minhashes(texts: Sequence[str]) -> list[MinHash]:
    return _datasketch().MinHash.bulk(
        [list(_shingles(t)) for t in texts], num_perm=NUM_PERM, seed=1
    )


def exact_duplicates(texts: Sequence[str]) -> dict[int, int]:
    """index -> index of the first text with the same normalized content."""
    first: dict[str, int] = {}
    duplicates: dict[int, int] = {}
    for index, text in enumerate(texts):
        key = hashlib.sha1(normalized(text).encode()).hexdigest()
        if key in first:
            duplicates[index] = first[key]
        else:
            first[key] = index
    return duplicates


@functools.lru_cache
def lsh_bands(threshold: float) -> tuple[int, int]:
    """(bands, rows) of the LSH index for `threshold`: datasketch's optimal choice, or
    where that has fewer than 2 bands, which datasketch refuses (0.99 and up with 128
    permutations), the longest bands (fewest false candidates) that still make a pair at
    the threshold a candidate with probability >= 0.99: candidates are confirmed by
    their estimated similarity anyway, so a miss costs more than a false candidate."""
    try:
        lsh = _datasketch().MinHashLSH(threshold=threshold, num_perm=NUM_PERM)
        return lsh.b, lsh.r
    except ValueError:
        pass
    for rows in range(NUM_PERM // 2, 0, -1):
        bands = NUM_PERM // rows
        if 1 - (1 - threshold**rows) ** bands >= CANDIDATE_RECALL:
            return bands, rows
    return NUM_PERM, 1


def _lsh(threshold: float) -> MinHashLSH:
    return _datasketch().MinHashLSH(
        threshold=threshold, num_perm=NUM_PERM, params=lsh_bands(threshold)
    )


def _matches(
    lsh: MinHashLSH, hashes: Sequence[MinHash], minhash: MinHash, threshold: float
) -> list[int]:
    """LSH candidates confirmed by their estimated similarity (LSH alone lets some through)."""
    return [
        int(key) for key in lsh.query(minhash) if minhash.jaccard(hashes[int(key)]) >= threshold
    ]


def near_duplicates(
    hashes: Sequence[MinHash], threshold: float, skip: set[int] = frozenset()
) -> dict[int, int]:
    """index -> index of an earlier kept text whose estimated Jaccard similarity is >= threshold."""
    lsh = _lsh(threshold)
    duplicates: dict[int, int] = {}
    for index, minhash in enumerate(hashes):
        if index in skip:
            continue
        matches = _matches(lsh, hashes, minhash, threshold)
        if matches:
            duplicates[index] = min(matches)
        else:
            lsh.insert(str(index), minhash)
    return duplicates


def similar_pairs(hashes: Sequence[MinHash], threshold: float) -> list[tuple[int, int]]:
    """Pairs of texts whose estimated Jaccard similarity is >= threshold."""
    lsh = _lsh(threshold)
    pairs = []
    for index, minhash in enumerate(hashes):
        pairs.extend((match, index) for match in _matches(lsh, hashes, minhash, threshold))
        lsh.insert(str(index), minhash)
    return pairs
