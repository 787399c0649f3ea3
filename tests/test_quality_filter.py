"""`gen build` and the quality scores of `gen score`: joined to the documents as
`meta.quality`, and `--min-quality` removing the documents below it, each counted with its
reason."""

from __future__ import annotations

from pathlib import Path

import pytest
from build_fixtures import make_run
from click.testing import CliRunner

from gen.cli import main
from gen.core.errors import UsageError
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from gen.dataset.assemble import build_dataset
from gen.dataset.options import BuildOptions
from gen.quality.filter import MinQuality
from gen.quality.stored import scored_record

#: Documents whose `real` score is low, the one never scored and the one whose persona
#: answer failed.
LOW = ("doc-010", "doc-020", "doc-030")
UNSCORED = "doc-005"
FAILED = "doc-007"


def scored_run(root: Path) -> RunPaths:
    """The build fixtures' run, every generated document scored but UNSCORED."""
    paths = make_run(root)
    records = []
    for document in RecordTable(paths.labeled).read():
        if document.id == UNSCORED:
            continue
        scores = {"real": 0.2 if document.id in LOW else 0.9, "language": 0.95}
        failed = {"persona": "model_error"} if document.id == FAILED else {}
        if document.id != FAILED:
            scores["persona"] = 0.7
        records.append(scored_record(document, scores, failed, {"model": "judge.gguf"}))
    with RecordTable(paths.quality) as table:
        table.extend(records)
    return paths


def removed(paths: RunPaths) -> dict[str, tuple[str, str]]:
    return {
        r.id: (r.meta["reason"], r.meta["detail"])
        for r in RecordTable(paths.rejects("build")).read()
    }


@pytest.mark.parametrize(
    ("written", "thresholds"),
    [
        ("0.5", (("real", 0.5), ("language", 0.5), ("persona", 0.5), ("facts", 0.5))),
        ("real=0.5,facts=0.6", (("real", 0.5), ("facts", 0.6))),
        ("0.5,facts=0.7", (("real", 0.5), ("language", 0.5), ("persona", 0.5), ("facts", 0.7))),
    ],
)
def test_min_quality_is_one_value_for_all_or_name_value_pairs(written: str, thresholds) -> None:
    parsed = MinQuality.parse(written)
    assert parsed.thresholds == thresholds
    assert MinQuality.parse(str(parsed)) == parsed


def test_the_scores_join_the_dataset_and_nothing_is_removed_without_the_option(
    tmp_path: Path,
) -> None:
    paths = scored_run(tmp_path)
    report = build_dataset(tmp_path, BuildOptions())
    dataset = {r.id: r for r in RecordTable(paths.dataset).read()}
    assert dataset["doc-010"].meta["quality"] == {"real": 0.2, "language": 0.95, "persona": 0.7}
    assert dataset[FAILED].meta["quality_failed"] == {"persona": "model_error"}
    assert "quality" not in dataset[UNSCORED].meta
    assert not [r for r in dataset.values() if r.source != "llm" and "quality" in r.meta]
    assert report.removed == {"exact_duplicate": 1, "near_duplicate": 1}


def test_min_quality_removes_and_counts_every_document_below_it(tmp_path: Path) -> None:
    paths = scored_run(tmp_path)
    report = build_dataset(tmp_path, BuildOptions(min_quality=MinQuality.parse("real=0.5")))
    assert report.removed == {
        "exact_duplicate": 1,
        "near_duplicate": 1,
        "low_quality": 3,
        "unscored": 1,
    }
    reasons = removed(paths)
    assert reasons["doc-010"] == ("low_quality", "real 0.20 < 0.5")
    assert reasons[UNSCORED] == ("unscored", "no quality scores for this text in RUN/quality")
    assert FAILED not in reasons  # its persona answer failed, but persona was not named
    kept = RecordTable(paths.dataset).read()
    assert not {r.id for r in kept} & {*LOW, UNSCORED}
    # Wikipedia paragraphs and queries are no generated documents: never filtered
    assert {r.source for r in kept} == {"llm", "wikipedia", "faker"}

    report = build_dataset(tmp_path, BuildOptions(min_quality=MinQuality.parse("0.5")))
    assert report.removed["quality_failed"] == 1
    assert removed(paths)[FAILED] == ("quality_failed", "persona: model_error")


def test_a_score_of_another_text_under_the_same_id_does_not_count(tmp_path: Path) -> None:
    paths = scored_run(tmp_path)
    labeled = RecordTable(paths.labeled).read()
    changed = next(r for r in labeled if r.id == "doc-012")
    changed.text += " A line added later."
    RecordTable(paths.labeled).replace([changed if r.id == "doc-012" else r for r in labeled])
    build_dataset(tmp_path, BuildOptions(min_quality=MinQuality.parse("real=0.5")))
    assert removed(paths)["doc-012"][0] == "unscored"


def test_cli_prints_what_the_filter_removed(tmp_path: Path) -> None:
    scored_run(tmp_path)
    result = CliRunner().invoke(
        main, ["build", "--run", str(tmp_path), "--min-quality", "real=0.5"]
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert "quality filter real=0.5: 4 documents removed (low_quality 3, unscored 1)" in lines
    assert (
        "removed records: exact_duplicate 1, low_quality 3, near_duplicate 1, unscored 1" in lines
    )


@pytest.mark.parametrize(
    ("written", "scored", "message"),
    [
        (
            "realness=0.5",
            True,
            "error: --min-quality 'realness=0.5': 'realness' is no quality score; expected one "
            "of real, language, persona, facts",
        ),
        ("1.5", True, "error: --min-quality '1.5': 1.5 is not between 0 and 1"),
        ("real=x", True, "error: --min-quality 'real=x': 'x' is not a number; expected a score"),
        (
            "0.5",
            False,
            "error: --min-quality real=0.5,language=0.5,persona=0.5,facts=0.5: {run}/quality "
            "holds no quality scores; run `gen score --run {run}` first",
        ),
    ],
)
def test_cli_refuses_a_bad_min_quality_in_one_line(
    tmp_path: Path, written: str, scored: bool, message: str
) -> None:
    paths = scored_run(tmp_path) if scored else make_run(tmp_path)
    result = CliRunner().invoke(main, ["build", "--run", str(tmp_path), "--min-quality", written])
    assert result.exit_code == 2
    assert len(result.output.strip().splitlines()) == 1
    assert result.output.startswith(message.format(run=tmp_path)), result.output
    assert not paths.dataset.exists()


def test_a_bad_min_quality_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="two default values"):
        MinQuality.parse("0.5,0.6")
    with pytest.raises(UsageError, match="a repeated score name"):
        MinQuality.parse("real=0.5,real=0.6")
