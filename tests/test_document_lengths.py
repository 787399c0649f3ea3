"""bench/document_lengths.py: median lengths per language and document type, and the
ratio of two sets of records for the types they share."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from gen.core.records import Record

SCRIPT = Path(__file__).resolve().parents[1] / "bench" / "document_lengths.py"
spec = importlib.util.spec_from_file_location("document_lengths", SCRIPT)
assert spec and spec.loader
lengths = importlib.util.module_from_spec(spec)
spec.loader.exec_module(lengths)


def write(path: Path, documents: list[tuple[str, str, int]], asked: int | None = None) -> Path:
    """One record per (doc_type, language, words), its text that many words."""
    with path.open("w", encoding="utf-8") as out:
        for number, (doc_type, language, words) in enumerate(documents):
            meta = {"doc_kind": "mention", "doc_words": asked} if asked else {}
            record = Record(
                id=f"{path.stem}-{number}",
                text=" ".join(["word"] * words),
                category="health",
                doc_type=doc_type,
                language=language,
                source="gold",
                meta=meta,
            )
            out.write(json.dumps(record.to_row()) + "\n")
    return path


def test_medians_per_language_and_type_with_the_length_asked(tmp_path: Path) -> None:
    planned = write(
        tmp_path / "planned.jsonl",
        [("Email", "en", 100), ("Email", "en", 300), ("Email", "en", 200), ("Chat", "it", 50)],
        asked=220,
    )
    rows = lengths.table([planned], "doc_type")
    assert rows[2].split() == ["en", "all", "3", "999", "200", "220"]
    assert rows[3].split() == ["en", "email", "3", "999", "200", "220"]
    assert rows[4].split()[:2] == ["it", "all"]
    by_kind = lengths.table([planned], "kind")
    assert by_kind[3].split() == ["en", "mention", "3", "999", "200", "220"]


def test_two_sets_compare_on_the_types_they_share_whatever_the_case(tmp_path: Path) -> None:
    planned = write(tmp_path / "a.jsonl", [("Email", "en", 180), ("Letter", "en", 100)])
    free = write(tmp_path / "b.jsonl", [("email", "en", 200), ("Letter", "en", 200)])
    gold = write(tmp_path / "c.jsonl", [("Report", "en", 400)])
    rows = lengths.comparison([planned], [free, gold], "doc_type", 0.25)
    assert rows[2].split() == ["en", "all", "2", "3", "140", "200", "0.70"]
    assert rows[3].split() == ["en", "email", "1", "1", "180", "200", "0.90", "ok"]
    assert rows[4].split() == ["en", "letter", "1", "1", "100", "200", "0.50"]
    assert rows[-1] == "  1 of 2 shared groups within 25%"
