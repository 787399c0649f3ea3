"""Seeds derived from names and numbers, so that every stage draws reproducibly."""

from __future__ import annotations

import hashlib


def derive_seed(*parts: object) -> int:
    """A 31-bit seed from any parts; stable across Python versions and processes."""
    digest = hashlib.sha256(":".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF
