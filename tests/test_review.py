"""gen review without a server: config, tasks, sampling, gold from exports, report, errors."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from click.testing import CliRunner
from review_data import CJK, EMOJI, make_run, records, region

from gen.cli import main
from gen.core.errors import ConfigError
from gen.core.records import Record, Span, check_gold_spans
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from gen.review.config import LabelTarget, label_target, labeling_config, review_labels
from gen.review.gold import DISAGREEMENT_FLAG, review_tasks
from gen.review.report import count_changes, review_report
from gen.review.sample import priority, sample_records
from gen.review.tasks import task

TARGET = LabelTarget("label", "text", ("health", "PERSON"))


def exported(record: Record, task_id: int, *annotations: dict, project: int = 7) -> dict:
    """A task as Label Studio's JSON export writes it."""
    payload = task(record, TARGET, "codepoint")
    return {"id": task_id, "project": project, "data": payload["data"],
            "annotations": list(annotations)}  # fmt: skip


def annotation(user: int, when: str, *regions: dict, cancelled: bool = False) -> dict:
    return {"id": user * 100, "completed_by": user, "updated_at": when,
            "was_cancelled": cancelled, "result": list(regions)}  # fmt: skip


# -- config and tasks ----------------------------------------------------------------------


def test_config_lists_categories_then_pii_with_inspect_colours_and_is_checked() -> None:
    labels = review_labels(["health", "politic"], {"PERSON", "health", "EMAIL"})
    assert labels == ["health", "politic", "EMAIL", "PERSON"]
    config = labeling_config(labels)
    assert '<Label value="health" background="#7aecec"' in config
    assert label_target(config, {"PERSON"}, project="1 'p'") == LabelTarget(
        "label", "text", tuple(labels)
    )
    with pytest.raises(ConfigError, match=r"project 1 'p': .* lacks the labels IBAN, sexuality"):
        label_target(config, {"IBAN", "sexuality", "health"}, project="1 'p'")
    with pytest.raises(ConfigError, match="no <Labels> control"):
        label_target('<View><Text name="t" value="$body"/></View>', {"health"}, project="2")


@pytest.mark.parametrize("unit", ["codepoint", "utf16"])
def test_one_prediction_per_source_with_scores_and_exact_offsets(unit: str) -> None:
    payload = task(records()[0], TARGET, unit)
    assert payload["data"]["gen_id"] == "doc-emoji" and payload["data"]["text"] == EMOJI
    assert payload["data"]["header"] == "doc-emoji · health · note"
    by_model = {p["model_version"]: p for p in payload["predictions"]}
    assert sorted(by_model) == ["faker", "llm_censor", "llm_sentences"]
    assert by_model["llm_censor"]["score"] == pytest.approx(0.9)
    assert "score" not in by_model["faker"]
    value = by_model["llm_sentences"]["result"][0]["value"]
    assert value["text"] == "treated for diabetes"
    units = EMOJI[: EMOJI.index("treated")]
    expected = len(units.encode("utf-16-le")) // 2 if unit == "utf16" else len(units)
    assert value["start"] == expected and value["end"] == expected + len("treated for diabetes")


def test_sample_covers_every_stratum_first_and_favours_doubt() -> None:
    def doc(i: int, category: str, **extra) -> Record:
        return Record(f"d{i}", "Some text here.", category, "note", "en", "llm", **extra)

    low = [Span(0, 4, "health", "llm_sentences", None, 0.1)]
    items = [doc(1, "health"), doc(2, "health", flags=["alignment_low"]), doc(3, "health"),
             doc(4, "judicial", spans=low), doc(5, "judicial"), doc(6, "politic")]  # fmt: skip
    assert priority(items[1]) == 1.0 and priority(items[3]) == pytest.approx(0.9)
    chosen = sample_records(items, 3, "category", seed=1)
    assert sorted(r.id for r in chosen) == ["d2", "d4", "d6"]
    assert sample_records(items, 3, "category", seed=1) == chosen  # same command, same sample
    assert len(sample_records(items, 50, "label")) == 6
    flagged_first = sample_records(items, 2, "flag")
    assert {r.id for r in flagged_first} >= {"d2"}


# -- gold from exported annotations ------------------------------------------------------


def test_gold_is_reanchored_and_every_reviewer_is_kept() -> None:
    emoji, cjk = records()
    tasks = [
        exported(emoji, 1,
                 annotation(1, "2026-01-01T10:00:00Z", region(EMOJI, "Anna Rossi", "PERSON"),
                            region(EMOJI, "diabetes", "health")),
                 annotation(2, "2026-01-02T10:00:00Z", region(EMOJI, "Anna Rossi", "PERSON"))),
        exported(cjk, 2, annotation(1, "2026-01-01T11:00:00Z",
                                    region(CJK, "votes every year", "politic", utf16=True))),
    ]  # fmt: skip
    users = {1: "ann@example.org", 2: "bob@example.org"}
    runs = {r.id: r for r in (emoji, cjk)}
    result = review_tasks(tasks, runs, users=users)
    assert not result.rejected and result.disagreements == ["doc-emoji"]
    gold = {r.id: r for r in result.gold}
    latest = gold["doc-emoji"]
    assert latest.meta["annotator"] == "bob@example.org"  # --prefer latest
    assert [(EMOJI[s.start : s.end], s.label, s.source) for s in latest.spans] == [
        ("Anna Rossi", "PERSON", "gold")
    ]
    assert DISAGREEMENT_FLAG in latest.flags and len(latest.meta["annotations"]) == 2
    assert [CJK[s.start : s.end] for s in gold["doc-cjk"].spans] == ["votes every year"]
    preferred = review_tasks(tasks, runs, users=users, prefer="ann@example.org").gold[0]
    assert [EMOJI[s.start : s.end] for s in preferred.spans] == ["Anna Rossi", "diabetes"]
    assert review_tasks(tasks, runs, prefer="earliest").gold[0].meta["annotator"] == "user 1"


def test_a_selection_that_took_in_spaces_becomes_a_gold_span_on_the_words() -> None:
    emoji, _ = records()
    tasks = [exported(emoji, 1, annotation(1, "t", region(EMOJI, " Anna Rossi ", "PERSON")))]
    (gold,) = review_tasks(tasks, {emoji.id: emoji}).gold
    assert [EMOJI[s.start : s.end] for s in gold.spans] == ["Anna Rossi"]
    check_gold_spans(gold.text, gold.spans)


def test_tasks_that_cannot_be_gold_are_refused_with_their_reason() -> None:
    emoji, cjk = records()
    changed = Record(cjk.id, cjk.text + " Edited.", "politic", "note", "en", "llm")
    tasks = [
        exported(emoji, 1, annotation(1, "t", region(EMOJI, "diabetes", "health", shift=1))),
        exported(cjk, 2, annotation(1, "t", region(CJK, "votes", "politic"))),
        exported(emoji, 3, annotation(1, "t", cancelled=True)),
        exported(emoji, 4),
        exported(emoji, 5, annotation(1, "t", region(EMOJI, "diabetes", "health"),
                                      region(EMOJI, "treated for diabetes", "health"))),
    ]  # fmt: skip
    result = review_tasks(tasks, {emoji.id: emoji, cjk.id: changed})
    reasons = [r.meta["reason"] for r in result.rejected]
    assert reasons[0].startswith("task 1 (record doc-emoji): span ")
    assert "'diabetes' cannot be re-anchored" in reasons[0]
    assert (
        reasons[1] == "task 2 (record doc-cjk): the text of record doc-cjk changed since the push"
    )
    assert "overlap" in reasons[2] and reasons[2].startswith("task 5 ")
    assert result.gold == [] and result.unannotated == 2
    assert json.loads(result.rejected[0].meta["raw"])[0]["result"][0]["value"]["text"] == "diabetes"


# -- the commands ---------------------------------------------------------------------------


def run_cli(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(main, list(args), env=env, catch_exceptions=False)


def test_export_file_round_trip_report_and_bad_files(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run")
    emoji, cjk = records()
    export = tmp_path / "export.json"
    export.write_text(json.dumps([
        exported(emoji, 1, annotation(1, "t", region(EMOJI, "Anna Rossi", "PERSON"),
                                      region(EMOJI, "treated for diabetes", "health"))),
        exported(cjk, 2),
    ]), encoding="utf-8")  # fmt: skip
    result = run_cli("review", "export", str(export), "--run", str(run))
    assert result.exit_code == 0, result.output
    assert "wrote 1 gold records" in result.output and "1 tasks without" in result.output
    gold = RecordTable(run / "gold").read()
    assert [(g.id, [EMOJI[s.start : s.end] for s in g.spans]) for g in gold] == [
        ("doc-emoji", ["Anna Rossi", "treated for diabetes"])
    ]
    report = review_report(run)
    assert report.changes["all"].kept == 2 and report.changes["llm_censor"].edited == 1
    assert report.changes["all"].added == 0
    shown = run_cli("review", "report", "--run", str(run))
    assert shown.exit_code == 0 and "llm_sentences" in shown.output and "kept" in shown.output

    before = (run / "gold" / "part-00000.parquet").read_bytes()
    for content, message in (
        ("{not json", "not a Label Studio JSON export"),
        (json.dumps({"tasks": []}), "expected Label Studio's JSON export (a list of tasks)"),
        (json.dumps([{"id": 1, "data": {"text": "x"}}]), "no task has a 'gen_id'"),
        (
            json.dumps([{"id": 1, "data": {"text": "x", "gen_id": "elsewhere"}}]),
            "none of its 1 tasks is a record of this run (e.g. elsewhere)",
        ),
    ):
        export.write_text(content, encoding="utf-8")
        bad = run_cli("review", "export", str(export), "--run", str(run))
        assert bad.exit_code == 2 and message in bad.output and "Traceback" not in bad.output
    assert (run / "gold" / "part-00000.parquet").read_bytes() == before


def test_export_with_a_refused_task_writes_the_rest_and_exits_1(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run")
    emoji, cjk = records()
    export = tmp_path / "export.json"
    export.write_text(json.dumps([
        exported(emoji, 1, annotation(1, "t", region(EMOJI, "Zoë", "PERSON", shift=1))),
        exported(cjk, 2, annotation(1, "t", region(CJK, "李小龍", "PERSON"))),
    ]), encoding="utf-8")  # fmt: skip
    result = CliRunner().invoke(main, ["review", "export", str(export), "--run", str(run)])
    assert result.exit_code == 1
    assert "refused: task 1 (record doc-emoji): span " in result.output
    assert [g.id for g in RecordTable(run / "gold").read()] == ["doc-cjk"]
    rejected = RecordTable(RunPaths(run).rejects("review")).read()
    assert [r.id for r in rejected] == ["doc-emoji"] and "re-anchored" in rejected[0].meta["reason"]


def test_count_changes() -> None:
    gold = [Span(0, 4, "PERSON"), Span(10, 20, "health"), Span(30, 35, "judicial")]
    predicted = [Span(0, 4, "PERSON", "faker"), Span(12, 20, "health", "llm_censor"),
                 Span(40, 45, "health", "llm_censor")]  # fmt: skip
    changes = count_changes(gold, predicted)
    assert (changes.kept, changes.edited, changes.deleted, changes.added) == (1, 1, 1, 1)


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_connection_problems_are_one_line_and_never_show_the_key(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run")
    secret = "s3cr3t-token-value"
    key = {"LABEL_STUDIO_API_KEY": secret}
    cases = [
        (["--url", f"http://127.0.0.1:{closed_port()}", "--retries", "0"], key, 1,
         "cannot connect to Label Studio at http://127.0.0.1:"),
        (["--url", "localhost:8080"], key, 2, "is not a server address"),
        (["--url", "http://127.0.0.1:9"], {"LABEL_STUDIO_API_KEY": ""}, 2,
         "set the environment variable LABEL_STUDIO_API_KEY"),
        (["--url", "http://127.0.0.1:9", "--ca-bundle", str(tmp_path / "none.pem")], key, 2,
         "--ca-bundle"),
    ]  # fmt: skip
    for options, env, code, message in cases:
        result = CliRunner().invoke(main, ["review", "push", "--run", str(run), *options], env=env)
        assert result.exit_code == code, result.output
        assert message in result.output and secret not in result.output
        assert result.output.count("\n") == 1 and "Traceback" not in result.output
    assert not (run / "review").exists()
    pull = CliRunner().invoke(main, ["review", "pull", "--run", str(run)], env=key)
    assert pull.exit_code == 2 and "was never pushed" in pull.output


@pytest.fixture
def https_server(tmp_path: Path):
    """A loopback HTTPS server whose certificate a private authority signed; it answers
    every request with 404, as a web server that is not Label Studio does."""
    import http.server
    import ssl
    import threading

    trustme = pytest.importorskip("trustme")
    authority = trustme.CA()
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("127.0.0.1").configure_cert(context)

    class NotFound(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_error(404)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), NotFound)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    ca_file = tmp_path / "ca.pem"
    authority.cert_pem.write_to_path(str(ca_file))
    yield f"https://127.0.0.1:{server.server_address[1]}", ca_file
    server.shutdown()
    server.server_close()


def test_tls_is_verified_and_a_private_authority_can_be_trusted(https_server, tmp_path) -> None:
    url, ca_file = https_server
    run = make_run(tmp_path / "run")
    env = {"LABEL_STUDIO_API_KEY": "token"}
    untrusted = CliRunner().invoke(
        main, ["review", "push", "--run", str(run), "--url", url], env=env
    )
    assert untrusted.exit_code == 1 and "TLS certificate of" in untrusted.output
    assert "--ca-bundle" in untrusted.output
    trusted = CliRunner().invoke(
        main,
        ["review", "push", "--run", str(run), "--url", url, "--ca-bundle", str(ca_file)],
        env=env,
    )
    # Past TLS, the server is no Label Studio: a 404 is a wrong --url.
    assert trusted.exit_code == 2 and "answered 404" in trusted.output, trusted.output
