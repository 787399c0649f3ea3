"""Layout documents with the embedded model: their field facts are the program's, so even a
model too small to write a planned fact leaves them with exact planned spans."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from gen.cli import main
from gen.core.store import RecordTable

pytestmark = pytest.mark.model


def test_the_embedded_model_s_layout_documents_carry_their_field_facts(tmp_path: Path) -> None:
    args = ["documents", "--run", str(tmp_path), "--category", "judicial", "--doc-type",
            "Criminal record", "--disclosures", "planned", "--layout-share", "1", "--n", "2",
            "--seed", "4"]  # fmt: skip
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "new documents by shape: layout 2" in result.output
    records = RecordTable(tmp_path / "documents").read()
    assert len(records) == 2
    for record in records:
        assert record.meta["shape"] == "layout" and record.text.startswith(
            ("BASIC DISCLOSURE CERTIFICATE", "Police National Computer")
        )
        fields = [
            fact for fact in record.meta["disclosures"]["planned"] if fact.get("form") == "field"
        ]
        assert fields, record.meta["disclosures"]
        for fact in fields:
            assert record.text[fact["start"] : fact["end"]] == fact["text"]
            assert any(
                (s.start, s.end, s.label, s.source) == (fact["start"], fact["end"], "judicial",
                                                        "planned")
                for s in record.spans
            )  # fmt: skip
        assert record.meta["max_tokens"] < 200  # the notes' budget, not the certificate's
