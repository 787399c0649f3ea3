"""`gen inspect`: page content, escaping, run-folder handling, and a real browser."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from chromium import chromium
from click.testing import CliRunner

from gen.cli import main
from gen.core.records import Record, Span
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from gen.inspect import page as inspect_page
from gen.inspect.page import (
    NEGATIVE_COLOR,
    PAGE_SIZE,
    PageOptions,
    collect_documents,
    document_entry,
    label_colors,
)
from gen.quality.stored import reject_record, scored_record

HOSTILE = "</script><script>window.pwned = 1</script><img src=x onerror=alert(1)>"

SENTENCES = {
    "health": ("Anna Colombo was treated for asthma at the city clinic.", "treated for asthma"),
    "politic": (
        "Luca Ferri handed out leaflets for the Labour list.",
        "leaflets for the Labour list",
    ),
    "judicial": ("Marta Bruni was fined for driving without a licence.", "fined for driving"),
    "philosophy": (
        "Piero Sala fasts every year during Ramadan.",
        "fasts every year during Ramadan",
    ),
    "sexuality": ("Elena Riva lives with her wife in a small flat.", "lives with her wife"),
    "ethnic": ("Omar Haddad grew up in a Berber village.", "grew up in a Berber village"),
}
FILLER = "The meeting was moved to Thursday afternoon."


def demo_record(index: int, category: str) -> Record:
    """A short fictional document: one sensitive sentence labeled by two labelers."""
    sentence, fragment = SENTENCES[category]
    text = f"{sentence} {FILLER}"
    start = text.index(fragment)
    name_end = text.index(" ", text.index(" ") + 1)
    quality = "fuzzy" if index % 5 == 0 else "exact"
    spans = [
        Span(0, len(sentence), category, "llm_sentences"),
        Span(
            start,
            start + len(fragment),
            category,
            "llm_censor",
            quality,
            0.8 if quality == "fuzzy" else 1.0,
        ),
        Span(0, name_end, "person", "faker"),
        Span(len(sentence) + 1, len(text), "other", "llm_sentences"),
    ]
    return Record(
        id=f"doc-{index:04d}",
        text=text,
        category=category,
        doc_type="clinical note" if category == "health" else "email",
        language="en",
        source="llm",
        spans=spans,
        model="SmolLM2-135M-Instruct",
        flags=["alignment_low"] if quality == "fuzzy" else [],
    )


def make_demo_run(root: Path, documents: int = 12) -> Path:
    """A run folder with labeled documents, a negative, a hostile text and two rejects."""
    paths = RunPaths(root)
    categories = list(SENTENCES)
    with RecordTable(paths.labeled) as table:
        table.extend(demo_record(i, categories[i % len(categories)]) for i in range(documents))
        table.append(
            Record(
                "doc-hostile",
                HOSTILE,
                "health",
                "email",
                "en",
                "llm",
                [Span(0, 9, "health", "llm_censor")],
            )
        )
    with RecordTable(paths.wikipedia) as table:
        table.append(
            Record(
                "wiki-0001",
                "The river floods the valley every spring.",
                "other",
                "paragraph",
                "en",
                "wikipedia",
            )
        )
    with RecordTable(paths.rejects("label")) as table:
        table.append(
            Record(
                "doc-bad-1", "Unfinished answer", "health", "email", "en", "llm",
                meta={"reason": "censored copy not found in the text", "raw": "<b>raw</b> output"},
            )
        )  # fmt: skip
    with RecordTable(paths.rejects("documents")) as table:
        table.append(
            Record(
                "doc-bad-2", "", "politic", "email", "en", "llm", meta={"reason": "empty output"}
            )
        )
    return root


def write_inspect_page(run: Path, **options) -> Path:
    return inspect_page.run(RunPaths(run), PageOptions(**options))


def page_data(html: str) -> dict:
    match = re.search(r'<script type="application/json" id="data">(.*?)</script>', html, re.S)
    assert match is not None
    return json.loads(match.group(1))


@pytest.fixture
def demo_page(tmp_path: Path) -> Path:
    run = make_demo_run(tmp_path / "run")
    return write_inspect_page(run)


def test_page_embeds_every_document_with_status_and_reason(demo_page: Path) -> None:
    assert demo_page.name == "inspect.html"
    data = page_data(demo_page.read_text(encoding="utf-8"))
    by_id = {doc["id"]: doc for doc in data["documents"]}
    assert len(by_id) == 12 + 1 + 1 + 2
    assert by_id["doc-0000"]["status"] == "flagged"
    assert by_id["doc-0000"]["reasons"] == ["flag: alignment_low"]
    assert by_id["doc-0001"]["status"] == "ok"
    assert by_id["doc-bad-1"]["status"] == "rejected"
    assert by_id["doc-bad-1"]["reasons"] == [
        "rejected by label: censored copy not found in the text"
    ]
    assert by_id["doc-bad-1"]["raw"] == "<b>raw</b> output"
    assert by_id["doc-bad-2"]["table"] == "rejects/documents"
    assert by_id["wiki-0001"]["table"] == "wikipedia"
    assert data["page_size"] == PAGE_SIZE
    (censor,) = [span for span in by_id["doc-0000"]["spans"] if span[3] == "llm_censor"]
    assert censor[2:] == ["health", "llm_censor", "fuzzy", pytest.approx(0.8)]


def test_hostile_text_cannot_break_out_of_the_data(demo_page: Path) -> None:
    html = demo_page.read_text(encoding="utf-8")
    assert "window.pwned" in html  # the text is there...
    assert "<script>window.pwned" not in html  # ...but never as markup
    assert html.count("</script>") == 2  # the data element and the page script
    assert "<b>raw</b>" not in html
    texts = {doc["id"]: doc["text"] for doc in page_data(html)["documents"]}
    assert texts["doc-hostile"] == HOSTILE


def test_page_is_self_contained(demo_page: Path) -> None:
    html = demo_page.read_text(encoding="utf-8")
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html)
    assert "innerHTML" not in html


def test_charts_of_gen_stats_are_embedded(demo_page: Path) -> None:
    html = demo_page.read_text(encoding="utf-8")
    assert 'src="data:image/png;base64,iVBOR' in html


def test_without_labeled_records_the_page_explains_missing_charts(tmp_path: Path) -> None:
    run = tmp_path / "run"
    with RecordTable(RunPaths(run).documents) as table:
        table.append(Record("d1", "Plain text.", "other", "email", "en", "llm"))
    html = write_inspect_page(run).read_text(encoding="utf-8")
    assert "No statistics charts" in html
    assert [doc["table"] for doc in page_data(html)["documents"]] == ["documents"]


def test_table_option_and_errors(tmp_path: Path) -> None:
    run = make_demo_run(tmp_path / "run")
    only_wiki = collect_documents(RunPaths(run), ["wikipedia"])
    assert {doc["table"] for doc in only_wiki} == {
        "wikipedia",
        "rejects/label",
        "rejects/documents",
    }
    runner = CliRunner()
    missing = runner.invoke(main, ["inspect", "--run", str(run), "--table", "dataset"])
    assert missing.exit_code == 2
    assert f"no records in {run / 'dataset'}" in missing.stderr
    no_run = runner.invoke(main, ["inspect", "--run", str(tmp_path / "nowhere")])
    assert no_run.exit_code == 2
    assert "run folder" in no_run.stderr and "Traceback" not in no_run.output


def test_cli_writes_out_file(tmp_path: Path) -> None:
    run = make_demo_run(tmp_path / "run")
    out = tmp_path / "review" / "page.html"
    result = CliRunner().invoke(main, ["inspect", "--run", str(run), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert f"wrote {out}" in result.stdout
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_label_colors_stable_and_distinct() -> None:
    colors = label_colors(["person", "health", "email", "health"])
    assert colors["health"] == "#7aecec"
    assert colors["email"] != colors["person"]
    assert label_colors(["email", "person"]) == {k: colors[k] for k in ("email", "person")}


def test_negative_labels_come_from_the_options_not_the_code(tmp_path: Path) -> None:
    assert label_colors(["other", "health"], ["other"])["other"] == NEGATIVE_COLOR
    assert label_colors(["other", "none"], ["none"]) == {
        "none": NEGATIVE_COLOR,
        "other": label_colors(["other"])["other"],
    }
    run = make_demo_run(tmp_path / "run")
    colors = page_data(write_inspect_page(run).read_text(encoding="utf-8"))["colors"]
    assert colors["other"] == NEGATIVE_COLOR  # categories.yaml: other is not sensitive
    colors = page_data(
        write_inspect_page(run, negative_labels=("person",)).read_text(encoding="utf-8")
    )["colors"]
    assert colors["person"] == NEGATIVE_COLOR and colors["other"] != NEGATIVE_COLOR


def test_score_that_is_not_a_number_becomes_no_score() -> None:
    record = Record("d", "Some text", "health", "email", "en", "llm",
                    [Span(0, 4, "health", "llm_censor", "fuzzy", float("nan"))])  # fmt: skip
    assert document_entry(record, "labeled")["spans"] == [
        [0, 4, "health", "llm_censor", "fuzzy", None]
    ]


# -- real browser ----------------------------------------------------------------------

SCREENSHOT = Path(__file__).resolve().parents[1] / "docs" / "inspect.png"


@pytest.fixture
def browser(tmp_path: Path):
    with chromium(tmp_path / "profile") as driver:
        yield driver


@pytest.mark.browser
def test_browser_filters_paginates_and_shows_spans(browser, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    run = make_demo_run(tmp_path / "outputs", documents=120)
    page = write_inspect_page(run)
    browser.get(page.as_uri())
    assert browser.execute_script("return window.pwned") is None

    docs = browser.find_elements(By.CSS_SELECTOR, "#docs article")
    assert len(docs) == PAGE_SIZE
    assert browser.find_element(By.ID, "position").text == "page 1 of 3"
    browser.find_element(By.ID, "next").click()
    assert browser.find_element(By.ID, "position").text == "page 2 of 3"

    Select(browser.find_element(By.ID, "f-label")).select_by_value("judicial")
    shown = browser.find_elements(By.CSS_SELECTOR, "#docs article")
    assert len(shown) == 20  # every sixth of 120 documents
    assert browser.find_element(By.ID, "count").text == "20 of 124 documents"
    marks = shown[0].find_elements(By.CSS_SELECTOR, "mark.ent")
    assert marks and all("judicial" in m.get_attribute("data-labels") for m in marks)
    hover = marks[0].get_attribute("title")
    assert "source llm_sentences" in hover and "alignment" in hover

    Select(browser.find_element(By.ID, "f-label")).select_by_value("")
    Select(browser.find_element(By.ID, "f-status")).select_by_value("rejected")
    reasons = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#docs .reason")]
    assert reasons == [
        "rejected by documents: empty output",
        "rejected by label: censored copy not found in the text",
    ]

    Select(browser.find_element(By.ID, "f-status")).select_by_value("")
    search = browser.find_element(By.ID, "f-search")
    search.send_keys("doc-hostile")
    hostile = browser.find_element(By.CSS_SELECTOR, "#docs article .text")
    assert hostile.text.replace("HEALTH", "").replace("health", "").strip() == HOSTILE
    search.clear()

    browser.find_element(By.ID, "problems-summary").click()
    # The problem list is built on the (asynchronous) toggle event of its <details>.
    WebDriverWait(browser, 10).until(lambda b: b.find_elements(By.LINK_TEXT, "doc-bad-1"))
    browser.find_element(By.LINK_TEXT, "doc-bad-1").click()
    assert [
        a.get_attribute("data-id") for a in browser.find_elements(By.CSS_SELECTOR, "#docs article")
    ] == ["doc-bad-1"]
    search.clear()

    Select(browser.find_element(By.ID, "f-category")).select_by_value("health")
    Select(browser.find_element(By.ID, "f-span_source")).select_by_value("llm_censor")
    shot = tmp_path / "inspect.png"
    assert browser.save_screenshot(str(shot))
    assert shot.read_bytes().startswith(b"\x89PNG")
    if os.environ.get("GEN_UPDATE_SCREENSHOT"):  # the README's picture: a fresh page
        browser.get(page.as_uri())
        Select(browser.find_element(By.ID, "f-category")).select_by_value("health")
        SCREENSHOT.parent.mkdir(exist_ok=True)
        browser.save_screenshot(str(SCREENSHOT))


def scored_demo_run(root: Path) -> Path:
    """The demo run with the quality scores of its first document, one answer failed."""
    run = make_demo_run(root)
    paths = RunPaths(run)
    first = RecordTable(paths.labeled).read()[0]
    scores = {"real": 0.31, "language": 0.97}
    with RecordTable(paths.quality) as table:
        table.append(scored_record(first, scores, {"persona": "model_error"}, {"model": "j.gguf"}))
    with RecordTable(paths.rejects("score")) as table:
        table.append(reject_record(first, "persona", "model_error", "the server went away"))
    return run


def test_quality_scores_are_shown_with_their_document(tmp_path: Path) -> None:
    data = page_data(write_inspect_page(scored_demo_run(tmp_path / "run")).read_text())
    by_id = {doc["id"]: doc for doc in data["documents"]}
    assert by_id["doc-0000"]["quality"] == [
        ["real", 0.31, None],
        ["language", 0.97, None],
        ["persona", None, "model_error"],
    ]
    assert by_id["doc-0001"]["quality"] == []  # never scored
    failed = by_id["doc-0000:persona"]
    assert failed["status"] == "rejected"
    assert failed["reasons"] == ["rejected by score: model_error"]


@pytest.mark.browser
def test_browser_shows_quality_scores_low_ones_in_red(browser, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    page = write_inspect_page(scored_demo_run(tmp_path / "run"))
    browser.get(page.as_uri())
    card = browser.find_element(By.CSS_SELECTOR, '#docs article[data-id="doc-0000"]')
    line = card.find_element(By.CSS_SELECTOR, ".quality")
    assert line.text == "quality: real 0.31 language 0.97 persona failed (model_error)"
    red = [span.text for span in line.find_elements(By.CSS_SELECTOR, ".low, .failed")]
    assert red == ["real 0.31", "persona failed (model_error)"]
    other = browser.find_element(By.CSS_SELECTOR, '#docs article[data-id="doc-0001"]')
    assert not other.find_elements(By.CSS_SELECTOR, ".quality")
