"""`gen queries`: exact spans, label quotas, negatives, resume, template validation."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner
from faker import Faker

from gen.cli import main
from gen.core.errors import ConfigError, UsageError
from gen.core.packs import default_prompts_dir
from gen.core.records import Record
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from scraping.queries.generate import generate_queries
from scraping.queries.templates import Filler, QueryTemplate, load_templates
from scraping.queries.values import LABELS

PROMPTS = default_prompts_dir()


def records(run: Path) -> dict[str, Record]:
    return {r.id: r for r in RecordTable(RunPaths(run).queries).read()}


@pytest.fixture(scope="module")
def thousand(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = tmp_path_factory.mktemp("queries")
    generate_queries(run, locale="it_IT", n=1000, seed=0, prompts_dir=PROMPTS)
    return run


def test_every_span_is_exactly_its_value(thousand: Path) -> None:
    stored = records(thousand)
    assert len(stored) == 1000
    for record in stored.values():
        assert record.meta["values"] == [record.text[s.start : s.end] for s in record.spans]
        assert all(span.source == "faker" and span.label in LABELS for span in record.spans)
        assert record.source == "faker" and record.category == "other"
        assert record.language == "it"


def test_labels_are_balanced_by_quota(thousand: Path) -> None:
    counts = Counter(s.label for r in records(thousand).values() for s in r.spans)
    assert set(counts) == set(LABELS)
    assert max(counts.values()) <= 1.2 * min(counts.values())


def test_negatives_have_no_identifier(thousand: Path) -> None:
    stored = records(thousand).values()
    negatives = [r for r in stored if not r.spans]
    assert len(negatives) == 100  # negative_share 0.1
    assert all(not r.meta["values"] for r in negatives)


def test_template_kinds_become_doc_types(thousand: Path) -> None:
    kinds = {r.doc_type for r in records(thousand).values()}
    shapes = {"chat", "email", "ticket", "log", "csv", "json", "form", "letter", "invoice", "cv"}
    assert shapes <= kinds


def test_readable_with_pandas(thousand: Path) -> None:
    frame = pd.read_parquet(RunPaths(thousand).queries)
    assert len(frame) == 1000 and frame["id"].is_unique


def test_same_seed_same_queries_and_resume_extends(tmp_path: Path, thousand: Path) -> None:
    generate_queries(tmp_path, locale="it_IT", n=300, seed=0, prompts_dir=PROMPTS)
    summary = generate_queries(tmp_path, locale="it_IT", n=1000, seed=0, prompts_dir=PROMPTS)
    assert (summary.already_done, summary.written) == (300, 700)
    resumed, whole = records(tmp_path), records(thousand)
    assert resumed.keys() == whole.keys()
    assert all(
        resumed[i].text == whole[i].text and resumed[i].spans == whole[i].spans for i in whole
    )
    again = generate_queries(tmp_path, locale="it_IT", n=1000, seed=0, prompts_dir=PROMPTS)
    assert again.written == 0 and len(records(tmp_path)) == 1000
    assert sum(again.label_counts.values()) == sum(summary.label_counts.values())


def test_other_seed_other_values(tmp_path: Path, thousand: Path) -> None:
    generate_queries(tmp_path, locale="it_IT", n=50, seed=1, prompts_dir=PROMPTS)
    texts = {r.text for r in records(tmp_path).values()}
    assert len(texts & {r.text for r in records(thousand).values()}) < 10


def test_offsets_count_characters_not_bytes() -> None:
    template = QueryTemplate(kind="message", text="È già {PERSON} → {EMAIL}…")
    fake = Faker("it_IT")
    fake.seed_instance(0)
    text, spans, values = Filler(load_templates(PROMPTS, "it_IT"), "it_IT").fill(template, fake)
    assert [text[s.start : s.end] for s in spans] == values
    assert text.startswith("È già ") and spans[0].start == len("È già ")


def test_english_templates_and_locales(tmp_path: Path) -> None:
    for locale in ("en_US", "en_GB"):
        generate_queries(tmp_path / locale, locale=locale, n=120, seed=0, prompts_dir=PROMPTS)
        stored = records(tmp_path / locale).values()
        assert {r.language for r in stored} == {"en"}
        assert all(r.text[s.start : s.end].strip() for r in stored for s in r.spans)


def test_unsupported_locale(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="unsupported locale 'xx_XX'"):
        generate_queries(tmp_path, locale="xx_XX", n=10, seed=0, prompts_dir=PROMPTS)


def _prompts_with(tmp_path: Path, yaml_text: str) -> Path:
    (tmp_path / "prompts" / "queries").mkdir(parents=True)
    (tmp_path / "prompts" / "queries" / "it.yaml").write_text(yaml_text, encoding="utf-8")
    return tmp_path / "prompts"


@pytest.mark.parametrize(
    ("yaml_text", "message"),
    [
        (
            "language: it\ntemplates:\n  - {kind: form, text: 'Nome: {PERSON}'}\n"
            "  - {kind: form, text: 'Città: {CITY}'}\n",
            r"it\.yaml: line 4: templates\.1\.text: .*unknown placeholder \{CITY\}",
        ),
        (
            "language: it\nnegative_share: 0\ntemplates:\n  - {kind: form, text: '{PERSON!r}'}\n",
            r"templates\.0\.text: .*takes no format",
        ),
        (
            "language: it\ntemplates:\n  - {kind: form, text: 'Nome: {PERSON}'}\n",
            r"needs templates without identifier placeholders",
        ),
        (
            "language: it\ntemplates:\n  - {kind: form, text: x, txt: y}\n",
            r"templates\.0\.txt: unknown key",
        ),
        ("language: it\ntemplates: [\n", r"invalid YAML"),
    ],
)
def test_bad_templates_name_file_and_template(tmp_path: Path, yaml_text: str, message: str) -> None:
    prompts = _prompts_with(tmp_path, yaml_text)
    with pytest.raises(ConfigError, match=message):
        load_templates(prompts, "it_IT")


def test_cli_prints_the_label_table(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main, ["queries", "--run", str(tmp_path), "--n", "240", "--locale", "it_IT"]
    )
    assert result.exit_code == 0, result.output
    for label in LABELS:
        assert re.search(rf"^{label}\s+\d+\s+\d+\.\d%$", result.output, re.MULTILINE)
    assert re.search(r"^\(no identifier\)\s+24\s+queries$", result.output, re.MULTILINE)
    assert len(records(tmp_path)) == 240


def test_cli_rejects_bad_options(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["queries", "--run", str(tmp_path), "--n", "0"])
    assert result.exit_code == 2
    result = CliRunner().invoke(main, ["queries", "--run", str(tmp_path), "--locale", "xx_XX"])
    assert result.exit_code == 2 and "unsupported locale 'xx_XX'" in result.output
    empty = tmp_path / "prompts"
    (empty / "queries").mkdir(parents=True)
    result = CliRunner().invoke(
        main, ["queries", "--run", str(tmp_path), "--locale", "fr_FR", "--prompts", str(empty)]
    )
    assert result.exit_code == 2 and "no query templates for locale 'fr_FR'" in result.output


def test_query_negatives_survive_the_build(tmp_path: Path) -> None:
    """Negatives vary (templates x fillers), so dedup keeps the share `gen queries` promised."""
    runner = CliRunner()
    made = runner.invoke(main, ["queries", "--run", str(tmp_path), "--n", "3000"])
    assert made.exit_code == 0, made.output
    assert re.search(r"^\(no identifier\)\s+300\s+queries$", made.output, re.MULTILINE)
    built = runner.invoke(main, ["build", "--run", str(tmp_path)])
    assert built.exit_code == 0, built.output
    found = re.search(
        r"^queries: (\d+) kept, (\d+) without any span \((\d+\.\d)%\)$", built.output, re.M
    )
    assert found, built.output
    kept, negatives, share = int(found[1]), int(found[2]), float(found[3])
    assert kept > 2950 and abs(share - 10.0) <= 1.0
    manifest = json.loads(RunPaths(tmp_path).manifest("build").read_text())
    assert (manifest["queries"], manifest["queries_without_spans"]) == (kept, negatives)


def test_fillers_make_words_without_spans(tmp_path: Path) -> None:
    prompts = _prompts_with(
        tmp_path,
        "language: it\nfillers: {PRODUCT: [la stampante]}\ntemplates:\n"
        "  - {kind: form, text: 'Nome: {PERSON}'}\n"
        "  - {kind: form, text: 'Reso ({PRODUCT}) alle {TIME}: {AMOUNT}'}\n",
    )
    config = load_templates(prompts, "it_IT")
    fake = Faker("it_IT")
    fake.seed_instance(3)
    text, spans, values = Filler(config, "it_IT").fill(config.templates[1], fake)
    assert spans == [] and values == []
    assert re.fullmatch(r"Reso \(la stampante\) alle \d\d:\d\d: [\d.]+,\d\d €", text), text
    assert config.labels(config.templates[1]) == [] and config.labels(config.templates[0]) == [
        "PERSON"
    ]


@pytest.mark.parametrize(
    ("fillers", "message"),
    [("{PERSON: [x]}", r"fillers: .*other than the labels"), ("{PRODUCT: []}", "non-empty")],
)
def test_bad_fillers_are_named(tmp_path: Path, fillers: str, message: str) -> None:
    prompts = _prompts_with(
        tmp_path,
        f"language: it\nfillers: {fillers}\nnegative_share: 0\n"
        "templates:\n  - {kind: form, text: 'Nome: {PERSON}'}\n",
    )
    with pytest.raises(ConfigError, match=message):
        load_templates(prompts, "it_IT")


def test_a_plan_beyond_the_bound_is_refused_before_any_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_planning(*args: object, **kwargs: object) -> list[int]:
        raise AssertionError("planned before the bound was checked")

    monkeypatch.setattr("scraping.queries.generate.plan", no_planning)
    result = CliRunner().invoke(main, ["queries", "--run", str(tmp_path), "--n", "100000000000"])
    assert result.exit_code == 2, result.output
    assert "--n 100000000000" in result.output and "at most 1000000" in result.output
    assert "Traceback" not in result.output and not (tmp_path / "queries").exists()


def test_records_are_written_from_the_start_and_ctrl_c_says_how_many(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plan of a million queries stores its first batch at once, not after planning all of
    them; Ctrl-C then says how many records it kept."""
    import time

    from scraping.queries import generate

    made = generate._query
    started = time.monotonic()
    first: list[float] = []

    def interrupt_at_250(*args: object, **kwargs: object) -> Record:
        first.append(time.monotonic() - started)
        if len(first) == 250:
            raise KeyboardInterrupt
        return made(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(generate, "_query", interrupt_at_250)
    result = CliRunner().invoke(main, ["queries", "--run", str(tmp_path), "--n", "1000000"])
    assert result.exit_code == 130
    assert first[0] < 10, f"first query after {first[0]:.0f} s"
    assert len(records(tmp_path)) == 200  # two batches of 100
    assert "interrupted: 200 new records saved" in result.output
    assert f"{tmp_path / 'queries'}" in result.output
    assert "finished records are saved" not in result.output


def test_ctrl_c_before_any_record_says_none_was_saved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupt(*args: object, **kwargs: object) -> Record:
        raise KeyboardInterrupt

    monkeypatch.setattr("scraping.queries.generate._query", interrupt)
    result = CliRunner().invoke(main, ["queries", "--run", str(tmp_path), "--n", "10"])
    assert result.exit_code == 130
    assert "interrupted: no new record was saved" in result.output
