"""The one rule by which gen reads a file meant to be UTF-8 text: a `.txt` document, a JSONL
record file, a CoNLL file, an annotation tool's export (every reader of `gen import`, and
`gen predict`).

A file saved again in UTF-16 or UTF-32 (PowerShell's `>`, Notepad's "Unicode") is refused
naming its encoding, told by its byte order mark or, without one, by its NUL bytes: a
character of the Latin script takes a NUL byte beside it in UTF-16 (three in UTF-32). Read
as UTF-8, such a file is valid and wrong, a NUL after every character, in which a detector
finds nothing and says nothing. A NUL byte in any other pattern is refused too, since no
text holds one. A UTF-8 byte order mark is kept, as a character, for the caller to drop.
"""

from __future__ import annotations

import codecs
from pathlib import Path

from gen.core.errors import UsageError

#: Byte order marks of the encodings other than UTF-8: (mark, name, codec), UTF-32 first
#: (its little-endian mark begins with UTF-16's).
MARKS = (
    (codecs.BOM_UTF32_LE, "UTF-32 LE", "utf-32"),
    (codecs.BOM_UTF32_BE, "UTF-32 BE", "utf-32"),
    (codecs.BOM_UTF16_LE, "UTF-16 LE", "utf-16"),
    (codecs.BOM_UTF16_BE, "UTF-16 BE", "utf-16"),
)
#: Encodings told by where their NUL bytes are, without a mark: (name, codec, width, the
#: bytes of each unit that are NUL in Latin-script text, the high byte first). The high
#: byte of a UTF-32 unit is always NUL.
UNMARKED = (
    ("UTF-32 LE", "utf-32-le", 4, (3, 2, 1)),
    ("UTF-32 BE", "utf-32-be", 4, (0, 1, 2)),
    ("UTF-16 LE", "utf-16-le", 2, (1,)),
    ("UTF-16 BE", "utf-16-be", 2, (0,)),
)
#: How much of a file the NUL bytes are counted in.
SAMPLE = 1 << 16
#: The share of a file's NUL bytes that must fall on its units' NUL places.
ON_PLACE = 0.9
#: The share of a UTF-16 file's high bytes that must be NUL: a text with a few NUL bytes
#: (Chinese, with a U+xx00 character here and there) tells nothing of its byte order.
MIN_HIGH = 0.25


def other_encoding(data: bytes) -> tuple[str, str, bool] | None:
    """(name, Python codec, whether a byte order mark says so) of text in UTF-16 or UTF-32;
    None for anything else (UTF-8 among it)."""
    for mark, name, codec in MARKS:
        if data.startswith(mark):
            return name, codec, True
    sample = data[:SAMPLE]
    nuls = sample.count(0)
    if not nuls:
        return None
    whole = len(data) <= SAMPLE
    for name, codec, width, places in UNMARKED:
        if len(sample) < width:
            continue
        lanes = [sample[place::width] for place in places]
        # UTF-32's high byte is never anything but NUL.
        high = len(lanes[0]) * (1 if width == 4 else MIN_HIGH)
        if lanes[0].count(0) < high or sum(lane.count(0) for lane in lanes) < ON_PLACE * nuls:
            continue
        try:  # a sample may end inside a unit: decoded as a stream that goes on
            codecs.getincrementaldecoder(codec)("strict").decode(sample, final=whole)
        except UnicodeDecodeError:
            continue
        return name, codec, False
    return None


def decode_utf8(data: bytes, where: str, kind: str) -> str:
    """`data` as UTF-8 text (a byte order mark kept), or one UsageError starting with
    `where` (the file) that names the encoding found, or the first byte that is not
    UTF-8 text, and says that `kind` ("a .txt document") is UTF-8."""
    found = other_encoding(data)
    if found is not None:
        name, _, marked = found
        how = "with a byte order mark" if marked else "without a byte order mark"
        # iconv reads the byte order mark itself, and needs the byte order without one.
        source = name.split()[0] if marked else name.replace(" ", "")
        raise UsageError(
            f"{where}: {name} text ({how}); {kind} is UTF-8: save it as UTF-8 (e.g. iconv "
            f"-f {source} -t UTF-8) and use that"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{where}: not UTF-8 text (byte {exc.start}); {kind} is UTF-8") from None
    if "\0" in text:
        raise UsageError(
            f"{where}: byte {data.index(0)} is a NUL byte, which no text holds; {kind} is "
            "UTF-8 text"
        )
    return text


def read_utf8(path: Path, kind: str, where: str | None = None) -> str:
    """The UTF-8 text of the file `path` (see `decode_utf8`; `where` names it, default its
    path), or one UsageError."""
    where = str(path) if where is None else where
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {where}: {exc.strerror or exc}") from None
    return decode_utf8(data, where, kind)
