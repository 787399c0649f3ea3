"""No span starts or ends on an invisible character (a zero-width space, a byte order mark,
a bidirectional control, a bell): they are trimmed as whitespace is, in prediction (whole
words, units of the encoder detector) and in import (every tool's format, CoNLL, .spacy)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import ClassVar

import pytest
from import_data import brat_pair, jsonl, ls_task, read, spans

from gen.core.packs import load_language_pack
from gen.core.records import Record, Span, check_gold_spans
from gen.importing.annotated import TRIMMED, TRIMMED_INVISIBLE
from gen.predict.run import predict_records
from gen.text.units import split_units
from gen.text.words import is_invisible, snap_to_words, trim_invisible
from gen.train.encoder_detector import cut_around

ZWSP, BOM, POP, LRM, BEL, ZWJ = "\u200b", "\ufeff", "\u202c", "\u200e", "\x07", "\u200d"
TEXT = f"He has {ZWSP}bipolar disorder{POP} and {BOM}asthma{BEL}, and depression since {LRM}2019."
WANTED = ["bipolar disorder", "asthma", "2019"]


def _around(word: str) -> tuple[int, int]:
    """The range of `word` in TEXT with the invisible characters beside it."""
    start = TEXT.index(word)
    end = start + len(word)
    while start and is_invisible(TEXT[start - 1]) and TEXT[start - 1] != " ":
        start -= 1
    while end < len(TEXT) and is_invisible(TEXT[end]) and TEXT[end] != " ":
        end += 1
    return start, end


def test_invisible_characters_are_trimmed_and_cluster_joiners_kept() -> None:
    assert [TEXT[slice(*trim_invisible(TEXT, *_around(word)))] for word in WANTED] == WANTED
    assert trim_invisible(f" {ZWSP}{BEL}\t{BOM}", 0, 5) is None
    # ZWJ and the tag characters of a subdivision flag belong to the emoji before them.
    family = f"\U0001f468{ZWJ}\U0001f469{ZWJ}\U0001f467"
    england = "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f"
    for emoji in (family, england, f"Zoe{ZWJ}"):
        assert trim_invisible(f"{ZWSP}{emoji}{POP}", 0, len(emoji) + 2) == (1, len(emoji) + 1)


class FixedDetector:
    labels: ClassVar[list[str]] = ["health"]
    scored = True

    def __init__(self, spans: list[Span]) -> None:
        self.spans = spans

    def predict(self, texts: list[str]) -> list[list[Span]]:
        return [self.spans for _ in texts]


def test_predicted_spans_are_snapped_without_invisible_characters_at_their_edges() -> None:
    found = [Span(*_around(word), "health", "model", score=0.9) for word in WANTED]
    found.append(Span(TEXT.index(BEL), TEXT.index(BEL) + 1, "health", "model", score=0.9))
    record = Record("r", TEXT, "health", "note", "en", "import")
    (out,) = predict_records(FixedDetector(found), [record]).records
    assert [TEXT[s.start : s.end] for s in out.spans] == WANTED
    check_gold_spans(TEXT, out.spans)
    assert [TEXT[s.start : s.end] for s in snap_to_words(TEXT, found)] == WANTED


def test_units_and_the_encoder_detector_s_cut_pieces_start_and_end_on_visible_characters() -> None:
    text = f"Diagnosis: {ZWSP}bipolar disorder{POP}\n{BOM}He has asthma{BEL}; he sleeps badly{LRM}."
    rules = load_language_pack("en").units
    assert [text[a:b] for a, b in split_units(text, rules, "clause")] == [
        "bipolar disorder",
        "He has asthma",
        "he sleeps badly",
    ]
    name = text.index("He")
    unit = Span(name - 1, len(text), "health", "model")
    hole = Span(name, name + 2, "PERSON", "model")
    assert [text[s.start : s.end] for s in cut_around(text, [unit], [hole])] == [
        f"has asthma{BEL}; he sleeps badly"
    ]


# -- import ----------------------------------------------------------------------------------

#: A span over "bipolar disorder" with the invisible characters around it, and one over
#: "depression " (a double-click takes the space in).
_BIPOLAR = _around("bipolar disorder")
_DEPRESSION = (TEXT.index("depression"), TEXT.index("depression") + len("depression "))
NOTES = {TRIMMED_INVISIBLE: 1, TRIMMED: 1}
EXPECTED = [("bipolar disorder", "health"), ("depression", "health")]


def _doccano(folder: Path) -> Path:
    labels = [[*_BIPOLAR, "DIAGNOSIS"], [*_DEPRESSION, "DIAGNOSIS"]]
    return jsonl(folder / "d.jsonl", {"id": 1, "text": TEXT, "label": labels})


def _prodigy(folder: Path) -> Path:
    found = [{"start": a, "end": b, "label": "DIAGNOSIS"} for a, b in (_BIPOLAR, _DEPRESSION)]
    return jsonl(folder / "d.jsonl", {"text": TEXT, "_input_hash": 7, "_task_hash": 8,
                                      "spans": found, "answer": "accept"})  # fmt: skip


def _label_studio(folder: Path) -> Path:
    regions = [{"start": a, "end": b, "text": TEXT[a:b], "labels": ["DIAGNOSIS"]}
               for a, b in (_BIPOLAR, _DEPRESSION)]  # fmt: skip
    path = folder / "ls.json"
    path.write_text(json.dumps([ls_task(TEXT, *regions)]), encoding="utf-8")
    return path


def _brat(folder: Path) -> Path:
    lines = [
        f"T{n}\tDIAGNOSIS {a} {b}\t{TEXT[a:b]}" for n, (a, b) in enumerate([_BIPOLAR, _DEPRESSION])
    ]
    return brat_pair(folder, TEXT, "\n".join(lines) + "\n")


@pytest.mark.parametrize("write", [_doccano, _prodigy, _label_studio, _brat])
def test_tools_spans_are_trimmed_of_invisible_characters_and_counted(tmp_path: Path, write) -> None:
    records, notes = read(write(tmp_path))
    (record,) = records.values()
    assert spans(record) == EXPECTED
    assert {key: notes[key] for key in NOTES} == NOTES


def test_conll_tokens_that_start_or_end_with_invisible_characters_give_trimmed_spans(
    tmp_path: Path,
) -> None:
    path = tmp_path / "d.conll"
    path.write_text(
        f"He\tO\nhas\tO\n{ZWSP}bipolar\tB-health\ndisorder{POP}\tI-health\nand\tO\n"
        f"{BEL}\tB-health\ndepression\tI-health\n",
        encoding="utf-8",
    )
    records, notes = read(path, label_map=None)
    assert spans(next(iter(records.values()))) == EXPECTED
    assert notes[TRIMMED_INVISIBLE] == 2


def test_spacy_entities_are_trimmed_of_invisible_characters(tmp_path: Path) -> None:
    spacy = pytest.importorskip("spacy")
    from spacy.tokens import Doc, DocBin
    from spacy.tokens import Span as SpacySpan

    words = ["He", "has", f"{ZWSP}bipolar", f"disorder{POP}", "and", "depression"]
    doc = Doc(spacy.blank("en").vocab, words=words)
    doc.ents = [SpacySpan(doc, 2, 4, label="health"), SpacySpan(doc, 5, 6, label="health")]
    path = tmp_path / "d.spacy"
    DocBin(docs=[doc]).to_disk(path)
    records, notes = read(path, label_map=None)
    assert spans(next(iter(records.values()))) == EXPECTED
    assert notes[TRIMMED_INVISIBLE] == 1
