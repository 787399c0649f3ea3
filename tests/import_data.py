"""Fixtures and helpers for the tests of `gen import` with annotation tools' exports.

The fixtures under tests/fixtures/import/ follow each tool's documented export shape (see
the docstring of each reader in gen/importing/formats/). Their texts hold emoji (two UTF-16
units each), a precomposed (ü) and a combining (e + U+0308) accent and CRLF line ends, so
every expected span in the tests is found by searching the text, never by copying an offset.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from click.testing import CliRunner

from gen.cli import main
from gen.core.records import Record
from gen.importing import RecordDefaults
from gen.importing.labels import LabelRules
from gen.importing.run import read_files

FIXTURES = Path(__file__).parent / "fixtures" / "import"
LABEL_MAP = FIXTURES / "label_map.yaml"
#: The text of the Label Studio task 11, the doccano line 1 and BRAT's doc1.
T1 = (
    "Patient: Anna Müller 😀😀 saw Dr. Zoe\u0308 Ñúñez in Milano.\r\n"
    "Diagnosis: type 2 diabetes 🏥, treated since 2019.\r\n"
    "E-mail: anna.mueller@example.org"
)
ZOE = "Zoe\u0308 Ñúñez"
T1_SPANS = [
    ("Anna Müller", "PERSON"),
    (ZOE, "PERSON"),
    ("Milano", "LOCATION"),
    ("type 2 diabetes", "health"),
    ("anna.mueller@example.org", "EMAIL"),
]


def read(
    path: Path,
    *,
    target: str = "gold",
    format_name: str | None = None,
    label_map: Path | None = LABEL_MAP,
    drop_unmapped: bool = False,
    allow_unknown: bool = False,
    overlaps: str = "refuse",
    refused: list[Record] | None = None,
    **defaults: str,
) -> tuple[dict[str, Record], Counter[str]]:
    notes: Counter[str] = Counter()
    rules = LabelRules.of(
        label_map=label_map, drop_unmapped=drop_unmapped, allow_unknown=allow_unknown
    )
    records = read_files([path], target, RecordDefaults(**defaults), format_name, rules=rules,
                         notes=notes, overlaps=overlaps, refused=refused)  # fmt: skip
    return {record.id: record for record in records}, notes


def spans(record: Record) -> list[tuple[str, str]]:
    return [(record.text[s.start : s.end], s.label) for s in record.spans]


def located(record: Record) -> list[tuple[int, int, str]]:
    return [(s.start, s.end, s.label) for s in record.spans]


def expected(text: str, pairs: list[tuple[str, str]]) -> list[tuple[int, int, str]]:
    return [(text.index(part), text.index(part) + len(part), label) for part, label in pairs]


def gen_import(*args: object):
    return CliRunner().invoke(main, ["import", *map(str, args)])


def one_line_error(result, message: str) -> None:
    assert result.exit_code == 2, result.output
    assert message in result.output, result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1


def jsonl(path: Path, *rows: dict) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


def ls_task(text: str, *regions: dict, **data: object) -> dict:
    """Task 1 of a Label Studio JSON export, one annotation with `regions` as values."""
    return {"id": 1, "data": {"text": text, **data}, "annotations": [
        {"id": 1, "completed_by": 1, "was_cancelled": False, "updated_at": "2024-01-01",
         "result": [{"from_name": "label", "to_name": "text", "type": "labels", "value": r}
                    for r in regions]}]}  # fmt: skip


def brat_pair(folder: Path, text: str, ann: str) -> Path:
    """`d.txt` and `d.ann` in `folder`; the path of the `.ann`."""
    (folder / "d.txt").write_text(text, encoding="utf-8")
    (folder / "d.ann").write_text(ann, encoding="utf-8")
    return folder / "d.ann"
