"""The round trip against a real Label Studio server: push, review, pull, report."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest
from chromium import chromium
from click.testing import CliRunner
from labelstudio import label_studio
from review_data import ACCENTS, CJK, EMOJI, accents_record, make_run, records, region

from gen.cli import main
from gen.core.records import Record
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from gen.review.select import select_ids

pytestmark = pytest.mark.server

SCREENSHOT = Path(__file__).resolve().parents[1] / "docs" / "review-task.png"


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    with label_studio(tmp_path_factory.mktemp("label-studio")) as running:
        yield running


@pytest.fixture(scope="session")
def client(server):
    from label_studio_sdk import LabelStudio

    return LabelStudio(base_url=server.url, api_key=server.token)


def gen(server, *args: str, token: str | None = None):
    env = {"LABEL_STUDIO_API_KEY": token or server.token, "LABEL_STUDIO_URL": server.url}
    return CliRunner().invoke(main, ["review", *args], env=env)


def pushed_run(server, root: Path) -> tuple[Path, int]:
    run = make_run(root, [*records(), accents_record()])
    result = gen(server, "push", "--run", str(run))
    assert result.exit_code == 0, result.output
    assert "created project" in result.output and "3 tasks pushed" in result.output
    state = json.loads((RunPaths(run).review / "project.json").read_text())
    return run, state["project_id"]


def tasks_by_record(client, project_id: int) -> dict[str, int]:
    return {t.data["gen_id"]: t.id for t in client.tasks.list(project=project_id)}


def gold_spans(run: Path) -> dict[str, list[tuple[int, int, str, str]]]:
    return {
        r.id: [(s.start, s.end, s.label, r.text[s.start : s.end]) for s in r.spans]
        for r in RecordTable(RunPaths(run).gold).read()
    }


def expected(text: str, part: str, label: str) -> tuple[int, int, str, str]:
    start = text.index(part)
    return (start, start + len(part), label, part)


def test_push_review_pull_and_report(server, client, tmp_path: Path) -> None:
    run, project_id = pushed_run(server, tmp_path / "round-trip")
    again = gen(server, "push", "--run", str(run))
    assert again.exit_code == 0 and "0 tasks pushed, 3 already there" in again.output
    tasks = tasks_by_record(client, project_id)
    assert sorted(tasks) == ["doc-accents", "doc-cjk", "doc-emoji"]

    predictions = {p.model_version: p for p in client.predictions.list(task=tasks["doc-emoji"])}
    assert sorted(predictions) == ["faker", "llm_censor", "llm_sentences"]
    assert predictions["llm_censor"].score == pytest.approx(0.9)
    for prediction in predictions.values():
        for item in prediction.result:
            value = item["value"]
            assert EMOJI[value["start"] : value["end"]] == value["text"]

    # As a reviewer's browser stores them (Label Studio 1.23 counts code points),
    # except the CJK task, written as a JavaScript tool counts (UTF-16 units).
    client.annotations.create(id=tasks["doc-emoji"], lead_time=12.5, result=[
        region(EMOJI, "Anna Rossi", "PERSON"), region(EMOJI, "Zoë", "PERSON"),
        region(EMOJI, "diabetes", "health"),
    ])  # fmt: skip
    client.annotations.create(id=tasks["doc-cjk"], result=[
        region(CJK, "李小龍", "PERSON", utf16=True),
        region(CJK, "votes every year", "politic", utf16=True),
    ])  # fmt: skip
    client.annotations.create(id=tasks["doc-accents"], result=[
        region(ACCENTS, "Lucía Müller-Dupré", "PERSON"),
        region(ACCENTS, "è stata condannata per frode", "judicial"),
    ])  # fmt: skip

    pulled = gen(server, "pull", "--run", str(run))
    assert pulled.exit_code == 0, pulled.output
    assert "wrote 3 gold records" in pulled.output
    assert gold_spans(run) == {
        "doc-emoji": [expected(EMOJI, "Zoë", "PERSON"), expected(EMOJI, "Anna Rossi", "PERSON"),
                      expected(EMOJI, "diabetes", "health")],
        "doc-cjk": [expected(CJK, "李小龍", "PERSON"),
                    expected(CJK, "votes every year", "politic")],
        "doc-accents": [expected(ACCENTS, "Lucía Müller-Dupré", "PERSON"),
                        expected(ACCENTS, "è stata condannata per frode", "judicial")],
    }  # fmt: skip
    emoji = next(r for r in RecordTable(RunPaths(run).gold).read() if r.id == "doc-emoji")
    assert emoji.source == "gold" and {s.source for s in emoji.spans} == {"gold"}
    assert emoji.meta["annotator"] == server.email and emoji.meta["annotated_at"]
    assert emoji.meta["task_id"] == tasks["doc-emoji"] and emoji.meta["project_id"] == project_id
    assert emoji.meta["text_source"] == "llm"

    report = gen(server, "report", "--run", str(run), "--format", "json")
    assert report.exit_code == 0, report.output
    changes = json.loads(report.output)["changes"]
    # Kept: 3 faker names, llm_censor's "diabetes", the judicial sentence; edited:
    # "treated for diabetes"; deleted: the Green Party sentence; added: Zoë, "votes...".
    assert changes["all"] == {"kept": 5, "edited": 1, "deleted": 1, "added": 2}
    assert changes["llm_sentences"] == {"kept": 1, "edited": 1, "deleted": 1, "added": None}


def test_two_reviewers_are_kept_and_prefer_picks(server, client, tmp_path: Path) -> None:
    run, project_id = pushed_run(server, tmp_path / "two-reviewers")
    task_id = tasks_by_record(client, project_id)["doc-emoji"]
    second = client.users.create(username="second", email="second@example.org", password="pw-2nd-1")
    client.annotations.create(id=task_id, result=[region(EMOJI, "Anna Rossi", "PERSON")])
    time.sleep(0.01)
    client.annotations.create(
        id=task_id, completed_by=second.id, result=[region(EMOJI, "Milano", "PERSON")]
    )
    pulled = gen(server, "pull", "--run", str(run))
    assert pulled.exit_code == 0, pulled.output
    assert "reviewers disagree on doc-emoji" in pulled.output
    gold = RecordTable(RunPaths(run).gold).read()[0]
    assert gold.flags == ["review_disagreement"]
    assert sorted(a["annotator"] for a in gold.meta["annotations"]) == [
        server.email,
        "second@example.org",
    ]
    preferred = gen(server, "pull", "--run", str(run), "--prefer", server.email)
    assert preferred.exit_code == 0
    assert gold_spans(run)["doc-emoji"] == [expected(EMOJI, "Anna Rossi", "PERSON")]


def test_push_select_sends_the_selected_and_new_ones_each_round(server, client, tmp_path) -> None:
    items = [*records(), accents_record()]
    run = make_run(tmp_path / "select-rounds", items)
    with RecordTable(RunPaths(run).gold) as gold:  # reviewed already: never selected
        gold.extend(items[:1])
    select = ["push", "--run", str(run), "--select", "random", "--sample", "1", "--seed", "5"]
    first = gen(server, *select)
    assert first.exit_code == 0 and "1 tasks pushed" in first.output, first.output
    project_id = json.loads((RunPaths(run).review / "project.json").read_text())["project_id"]
    chosen = select_ids(items, "random", 1, seed=5, exclude={items[0].id}).ids
    assert sorted(tasks_by_record(client, project_id)) == chosen
    second = gen(server, *select)
    assert "1 tasks pushed" in second.output and "2 already pushed or reviewed" in second.output
    rest = {item.id for item in items[1:]}
    assert sorted(tasks_by_record(client, project_id)) == sorted(rest)
    last = gen(server, *select)
    assert last.exit_code == 0 and "0 tasks pushed, 0 already there (of 0 selected)" in last.output


def test_changed_text_other_project_bad_token_and_missing_labels(
    server, client, tmp_path: Path
) -> None:
    run, project_id = pushed_run(server, tmp_path / "changed")
    tasks = tasks_by_record(client, project_id)
    for record_id, text in (("doc-emoji", EMOJI), ("doc-cjk", CJK)):
        client.annotations.create(id=tasks[record_id], result=[region(text, "e", "health")])
    emoji, cjk = records()
    shutil.rmtree(RunPaths(run).labeled)
    edited = Record(cjk.id, cjk.text.replace("votes", "voted"), "politic", "note", "en", "llm")
    make_run(run, [emoji, edited, accents_record()])
    pulled = gen(server, "pull", "--run", str(run))
    assert pulled.exit_code == 1
    assert "the text of record doc-cjk changed since the push" in pulled.output
    assert list(gold_spans(run)) == ["doc-emoji"]
    assert [r.id for r in RecordTable(RunPaths(run).rejects("review")).read()] == ["doc-cjk"]

    # An export of another project is refused whole; RUN/gold stays as it was.
    other, other_id = pushed_run(server, tmp_path / "other")
    export = tmp_path / "export.json"
    export.write_bytes(b"".join(client.projects.exports.download_sync(project_id)))
    before = (RunPaths(run).gold / "part-00000.parquet").read_bytes()
    refused = CliRunner().invoke(main, ["review", "export", str(export), "--run", str(other)])
    assert refused.exit_code == 2, refused.output
    assert f"tasks of project {project_id}, but this run was pushed to project {other_id}" in (
        refused.output
    )
    assert not RunPaths(other).gold.exists()
    assert (RunPaths(run).gold / "part-00000.parquet").read_bytes() == before

    wrong = gen(server, "pull", "--run", str(run), token="not-the-token")
    assert wrong.exit_code == 2 and "refused the API key in LABEL_STUDIO_API_KEY" in wrong.output
    assert "not-the-token" not in wrong.output
    nowhere = gen(server, "push", "--run", str(run), "--url", f"{server.url}/not/label/studio")
    assert nowhere.exit_code == 2 and "answered 404" in nowhere.output, nowhere.output

    config = '<View><Labels name="l" toName="t"><Label value="health"/></Labels>{}</View>'
    client.projects.create(
        title="health only", label_config=config.format('<Text name="t" value="$text"/>')
    )
    lacking = gen(server, "push", "--run", str(other), "--project", "health only")
    assert lacking.exit_code == 2
    assert "lacks the labels PERSON, judicial, politic" in lacking.output
    unknown = gen(server, "push", "--run", str(other), "--project", "9999")
    assert unknown.exit_code == 2 and "there is no project 9999" in unknown.output


def test_an_export_of_a_project_gen_did_not_make_is_imported_as_gold(
    server, client, tmp_path: Path
) -> None:
    """A team's own project (its own data fields, control names and labels): a task and an
    annotation made through the API, exported as JSON and read by `gen import`."""
    config = (
        '<View><Header value="$title"/><Labels name="ner" toName="body">'
        '<Label value="Person"/><Label value="Diagnosis"/></Labels>'
        '<Text name="body" value="$body"/></View>'
    )
    project = client.projects.create(title="a team's own labels", label_config=config)
    client.projects.import_tasks(project.id, request=[{"title": "Referral", "body": EMOJI}])
    (task_id,) = [task.id for task in client.tasks.list(project=project.id)]
    on_body = {"from_name": "ner", "to_name": "body"}
    # One region as the browser stores it (code points), one as a JavaScript tool (UTF-16).
    client.annotations.create(id=task_id, result=[
        {**region(EMOJI, "Anna Rossi", "Person"), **on_body},
        {**region(EMOJI, "diabetes", "Diagnosis", utf16=True), **on_body},
    ])  # fmt: skip
    export = tmp_path / "team.json"
    export.write_bytes(
        b"".join(client.projects.exports.download_sync(project.id, export_type="JSON"))
    )
    label_map = tmp_path / "map.yaml"
    label_map.write_text("labels:\n  Person: PERSON\n  Diagnosis: health\n", encoding="utf-8")
    run = tmp_path / "team-run"
    args = ["import", str(export), "--run", str(run), "--as", "gold", "--label-map", str(label_map)]
    ambiguous = CliRunner().invoke(main, args)
    assert ambiguous.exit_code == 2 and "several: body, title" in ambiguous.output
    result = CliRunner().invoke(main, [*args, "--text-field", "body"])
    assert result.exit_code == 0, result.output
    assert "1 records added" in result.output
    (gold,) = RecordTable(RunPaths(run).gold).read()
    assert gold.id == f"team-{task_id}" and gold.text == EMOJI
    assert [(s.start, s.end, s.label, gold.text[s.start : s.end]) for s in gold.spans] == [
        expected(EMOJI, "Anna Rossi", "PERSON"),
        expected(EMOJI, "diabetes", "health"),
    ]
    assert gold.meta["task_id"] == task_id and gold.meta["project_id"] == project.id


@pytest.mark.browser
def test_the_pushed_task_shows_each_span_on_its_text(server, client, tmp_path: Path) -> None:
    """Label Studio's own frontend highlights the pushed predictions where they belong."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    _, project_id = pushed_run(server, tmp_path / "browser")
    task_id = tasks_by_record(client, project_id)["doc-emoji"]
    with chromium(tmp_path / "profile", size="1400,760") as browser:
        browser.get(f"{server.url}/user/login/")
        browser.find_element(By.NAME, "email").send_keys(server.email)
        browser.find_element(By.NAME, "password").send_keys(server.password)
        browser.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        WebDriverWait(browser, 60).until(lambda b: "/user/login" not in b.current_url)
        browser.get(f"{server.url}/projects/{project_id}/data?task={task_id}")
        # Read in one script: the editor re-renders its highlights while it loads.
        highlighted = WebDriverWait(browser, 120).until(
            lambda b: b.execute_script(
                "return Array.from(document.querySelectorAll('span.htx-highlight'), "
                "e => e.textContent)"
            )
        )
        # Label Studio prefills the annotation with the first prediction (llm_sentences).
        assert highlighted == ["treated for diabetes"]
        assert browser.save_screenshot(str(tmp_path / "task.png"))
        if os.environ.get("GEN_UPDATE_SCREENSHOT"):
            SCREENSHOT.parent.mkdir(exist_ok=True)
            browser.save_screenshot(str(SCREENSHOT))
