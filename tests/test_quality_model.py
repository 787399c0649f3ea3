"""The real embedded model through llama.cpp: `gen score` on two short documents."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from quality_fakes import documents_run, generated_documents

from gen.cli import main
from gen.core.packs import load_language_pack
from gen.core.store import RecordTable
from gen.quality.questions import asked

pytestmark = pytest.mark.model


def test_the_embedded_model_scores_a_planned_and_a_free_document(tmp_path: Path) -> None:
    documents = generated_documents()[:2]
    paths = documents_run(tmp_path, documents)
    result = CliRunner().invoke(main, ["score", "--run", str(tmp_path), "--ctx", "1024"])
    assert result.exit_code == 0, result.output
    print(result.output)  # the figures the docs quote come from this output (pytest -s)

    pack = load_language_pack("en")
    stored = {record.id: record for record in RecordTable(paths.quality).read()}
    assert sorted(stored) == ["d-health", "d-judicial"]
    for document in documents:
        meta = stored[document.id].meta
        scores, failed = meta["quality"], meta.get("quality_failed", {})
        assert sorted([*scores, *failed]) == sorted(asked(document, pack))
        assert all(0 <= score <= 1 for score in scores.values())
    manifest = json.loads(paths.manifest("score").read_text())
    assert manifest["backend"]["backend"] == "llama.cpp"
    assert manifest["failed_answers"] == len(RecordTable(paths.rejects("score")).ids())
