import json
from pathlib import Path

import pytest
from build_fixtures import make_run
from click.testing import CliRunner
from export_fixtures import trained_tokenizer
from hypothesis import given
from hypothesis import strategies as st

from gen.cli import main
from gen.core.errors import UsageError
from gen.core.record_files import read_record_file
from gen.core.records import Record, Span
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from gen.dataset.assemble import build_dataset
from gen.dataset.options import BuildOptions
from gen.dataset.splits import parse_ratios
from gen.export.base import ExportJob
from gen.export.formats.conll import read_conll
from gen.export.run import ExportOptions
from gen.export.run import run as export_run
from gen.text.words import spans_from_tags, tag_names, word_spans, word_tags, words_in

RATIOS = parse_ratios("0.7,0.15,0.15")


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("run")
    make_run(root)
    build_dataset(root, BuildOptions(scheme="categories+pii", sources=("llm_censor", "faker")))
    return root


def _dataset(run: Path) -> dict[str, Record]:
    return {r.id: r for r in RecordTable(RunPaths(run).dataset).read()}


def _export(run: Path, name: str, **settings) -> dict:
    export_run(RunPaths(run), ExportOptions(name, RATIOS, 0, settings=settings))
    folder = RunPaths(run).export / name
    return json.loads((folder / "manifest.json").read_text())


def _words_of(text: str, spans: list[Span]) -> list[str]:
    """The words each span covers, widened to whole words (what a word tagger can express)."""
    words = word_spans(text)
    return [
        " ".join(text[a:b] for a, b in words if a < s.end and b > s.start)
        for s in sorted(spans, key=lambda s: s.start)
    ]


# -- spans <-> tags ----------------------------------------------------------------


TEXT = "Dear Anna Rossi, your asthma test (12 May) was negative; Dr. Bo Li signed it."


def test_io_and_bio_round_trip_give_back_the_same_words():
    spans = [
        Span(5, 15, "PERSON", "faker"),
        Span(22, 33, "health", "llm_censor"),
        Span(TEXT.index("Bo"), TEXT.index("Li") + 2, "PERSON", "faker"),
    ]
    words = word_spans(TEXT)
    for scheme in ("io", "bio"):
        tags = word_tags(words, spans, scheme)
        back = spans_from_tags(words, tags)
        assert [TEXT[s.start : s.end] for s in back] == ["Anna Rossi", "asthma test", "Bo Li"]
        assert [s.label for s in back] == ["PERSON", "health", "PERSON"]
    assert word_tags(words, spans, "bio")[1:3] == ["B-PERSON", "I-PERSON"]


def test_bio_keeps_touching_spans_apart_and_io_merges_them():
    spans = [Span(0, 4, "PERSON", "faker"), Span(5, 10, "PERSON", "faker")]
    words = word_spans("Anna Rossi")
    assert len(spans_from_tags(words, word_tags(words, spans, "bio"))) == 2
    assert len(spans_from_tags(words, word_tags(words, spans, "io"))) == 1


def test_span_cutting_a_word_covers_the_whole_word():
    words = word_spans("unhealthy habits")
    back = spans_from_tags(words, word_tags(words, [Span(2, 9, "health")], "io"))
    assert [(s.start, s.end) for s in back] == [(0, 9)]


@given(
    st.lists(st.sampled_from(["ab", "c.d", "e-f", "!", "12", "x"]), min_size=1, max_size=25),
    st.data(),
)
def test_round_trip_on_random_word_spans(tokens, data):
    text = " ".join(tokens)
    words = word_spans(text)
    marks = data.draw(
        st.lists(st.sampled_from([None, "a", "b"]), min_size=len(words), max_size=len(words))
    )
    spans, index = [], 0
    while index < len(words):  # runs of one mark become one span; separated by a gap word
        if marks[index] is None:
            index += 1
            continue
        end = index
        while end + 1 < len(words) and marks[end + 1] == marks[index]:
            end += 1
        spans.append(Span(words[index][0], words[end][1], marks[index]))
        index = end + 2
    for scheme in ("io", "bio"):
        assert spans_from_tags(words, word_tags(words, spans, scheme)) == spans


# -- formats -----------------------------------------------------------------------


def test_splits_manifest_is_disjoint_and_complete(run):
    manifest = _export(run, "parquet")
    ids = [i for members in manifest["splits"].values() for i in members]
    assert sorted(ids) == sorted(_dataset(run))
    assert sum(manifest["counts"].values()) == len(ids)


def test_parquet_loads_with_datasets_as_typed_dataset_dict(run):
    datasets = pytest.importorskip("datasets")
    _export(run, "parquet")
    folder = RunPaths(run).export / "parquet"
    loaded = datasets.load_dataset(
        "parquet", data_files={n: str(folder / f"{n}.parquet") for n in ("train", "dev", "test")}
    )
    assert isinstance(loaded, datasets.DatasetDict)
    assert set(loaded) == {"train", "dev", "test"}
    span_features = loaded["train"].features["spans"]
    span_type = span_features.feature if hasattr(span_features, "feature") else span_features[0]
    assert span_type["start"].dtype == "int32"
    assert span_type["label"].dtype == "string"
    row = loaded["train"][0]
    record = _dataset(run)[row["id"]]
    assert [(s["start"], s["end"], s["label"]) for s in row["spans"]] == [
        (s.start, s.end, s.label) for s in record.spans
    ]


def test_jsonl_round_trips_the_records(run):
    _export(run, "jsonl")
    folder = RunPaths(run).export / "jsonl"
    dataset = _dataset(run)
    for name in ("train", "dev", "test"):
        for record in read_record_file(folder / f"{name}.jsonl"):
            assert record == dataset[record.id]


@pytest.mark.parametrize("scheme", ["io", "bio"])
def test_conll_is_well_formed_and_round_trips(run, scheme):
    manifest = _export(run, "conll", scheme=scheme)
    folder = RunPaths(run).export / "conll"
    tags = set(manifest["details"]["tags"])
    assert tags == set(
        tag_names(["DATE", "PERSON", "health", "judicial", "politic", "sexuality"], scheme)
    )
    dataset = _dataset(run)
    for name, ids in manifest["splits"].items():
        raw = (folder / f"{name}.conll").read_text()
        documents = [line for line in raw.splitlines() if line.startswith("-DOCSTART-")]
        assert documents == [f'-DOCSTART-\tO\tid="{record_id}"\tO' for record_id in ids]
        for line in raw.splitlines():
            if line and line not in documents:
                word, tag = line.split("\t")
                assert word and not any(c.isspace() for c in word)
                assert tag in tags
        pairs = [pair for sentence in read_conll(raw) for pair in sentence]
        position = 0
        for record_id in ids:
            record = dataset[record_id]
            words = word_spans(record.text)
            chunk = pairs[position : position + len(words)]
            position += len(words)
            assert [w for w, _ in chunk] == [record.text[a:b] for a, b in words]
            back = spans_from_tags(words, [t for _, t in chunk])
            assert _words_of(record.text, back) == _words_of(record.text, record.spans)
        assert position == len(pairs)


def test_hf_tokens_windows_and_labels(run, tmp_path):
    import pyarrow.parquet as pq
    from tokenizers import Tokenizer

    dataset = _dataset(run)
    tokenizer_dir = trained_tokenizer(tmp_path / "tok", [r.text for r in dataset.values()])
    manifest = _export(run, "hf-tokens", tokenizer=tokenizer_dir, length=32, stride=8)
    id2label = {int(k): v for k, v in manifest["details"]["id2label"].items()}
    assert id2label[0] == "O"
    tokenizer = Tokenizer.from_file(str(tokenizer_dir / "tokenizer.json"))
    rows = pq.read_table(RunPaths(run).export / "hf-tokens" / "train.parquet").to_pylist()
    by_record: dict[str, list[dict]] = {}
    for row in rows:
        by_record.setdefault(row["record_id"], []).append(row)
        assert len(row["input_ids"]) == len(row["labels"]) <= 32
        assert row["labels"][0] == row["labels"][-1] == -100  # [CLS] and [SEP]
    _, windows = max(by_record.items(), key=lambda item: len(item[1]))
    assert len(windows) > 1
    first, second = windows[0]["input_ids"][1:-1], windows[1]["input_ids"][1:-1]
    assert first[-8:] == second[:8], "windows overlap by the stride"

    # Read back: in each window, the tokens that reach a word not reached before are
    # labeled (the rest -100) with the tag gen.text.words gives that word, the same in
    # every window (IO); a word goes unlabeled only when a token shared with an earlier
    # word reaches it first.
    tokenizer.enable_truncation(max_length=32, stride=8)
    labeled = 0
    for record_id, windows in by_record.items():
        record = dataset[record_id]
        words = word_spans(record.text)
        expected = word_tags(words, record.spans)
        first = tokenizer.encode(record.text)
        read: dict[int, set[str]] = {}
        crowded: set[int] = set()
        for row, window in zip(windows, [first, *first.overflowing], strict=True):
            reached: set[int] = set()
            for label, token in zip(row["labels"][1:-1], window.offsets[1:-1], strict=True):
                new = [word for word in words_in(words, *token) if word not in reached]
                reached.update(words_in(words, *token))
                assert (label == -100) == (not new)
                if new:
                    read.setdefault(new[0], set()).add(id2label[label])
                    crowded.update(new[1:])
                    labeled += 1
        assert {word: tags for word, tags in read.items() if tags != {expected[word]}} == {}
        assert set(range(len(words))) - set(read) <= crowded
    assert labeled > 100


def test_hf_tokens_needs_a_tokenizer(run, tmp_path):
    with pytest.raises(UsageError, match="--tokenizer"):
        _export(run, "hf-tokens")
    with pytest.raises(UsageError, match="not found"):
        _export(run, "hf-tokens", tokenizer=tmp_path)


def test_sentences_and_sentences_context(run):
    import pyarrow.parquet as pq

    manifest = _export(run, "sentences")
    folder = RunPaths(run).export / "sentences"
    rows = pq.read_table(folder / "train.parquet").to_pylist()
    assert {row["label"] for row in rows} <= set(manifest["details"]["labels"])
    health = [row["text"] for row in rows if row["label"] == "health"]
    assert health and all("\n" not in text for text in health)
    assert sum(manifest["details"]["rows"].values()) > len(_dataset(run))

    manifest = _export(run, "sentences-context", chunk_width=7, context_width=15, stride=6)
    rows = pq.read_table(RunPaths(run).export / "sentences-context" / "train.parquet").to_pylist()
    for row in rows:
        chunk, context = row["text"].split(" [SEP] ")
        assert len(chunk.split()) <= 7
        assert chunk in context
        assert len(context.split()) <= 15


def test_sentences_context_follows_the_thesis_layout():
    from gen.export.formats.sentences import ChunkSettings, chunk_rows

    text = " ".join(f"w{i}" for i in range(20))
    record = Record(
        "r",
        text,
        "health",
        "email",
        "en",
        "llm",
        [Span(text.index("w8"), text.index("w9") + 2, "health", "llm_censor")],
    )
    job = ExportJob({}, Path(), ChunkSettings(chunk_width=7, context_width=15, stride=6))
    rows = list(chunk_rows(job, record))
    assert rows[0] == (
        "w0 w1 w2 w3 w4 w5 w6 [SEP] w0 w1 w2 w3 w4 w5 w6 w7 w8 w9 w10 w11 w12 w13 w14",
        "other",
    )
    assert rows[1][0].startswith("w6 w7 w8 w9 w10 w11 w12 [SEP] w2 w3")
    assert rows[-1][0].startswith("w18 w19 [SEP] w5 ")
    assert [label for _, label in rows] == ["other", "health", "other", "other"]


def test_spacy_docbin_reads_back_with_every_span(run):
    spacy = pytest.importorskip("spacy")
    from spacy.tokens import DocBin

    manifest = _export(run, "spacy")
    assert manifest["details"]["unaligned_spans"] == {"train": 0, "dev": 0, "test": 0}
    dataset = _dataset(run)
    nlp = spacy.blank("en")
    docs = list(
        DocBin().from_disk(RunPaths(run).export / "spacy" / "dev.spacy").get_docs(nlp.vocab)
    )
    assert [doc.user_data["id"] for doc in docs] == manifest["splits"]["dev"]
    for doc in docs:
        record = dataset[doc.user_data["id"]]
        assert doc.text == record.text
        assert [(e.start_char, e.end_char, e.label_) for e in doc.ents] == [
            (s.start, s.end, s.label) for s in record.spans
        ]
        assert doc.cats[record.category] == 1.0


def test_spacy_counts_spans_it_cannot_align(tmp_path):
    pytest.importorskip("spacy")
    from gen.export.formats.spacy_docbin import DocBinSettings, write_spacy

    record = Record(
        "r",
        "unhealthy habits",
        "health",
        "email",
        "en",
        "llm",
        [Span(2, 9, "health", "llm_censor")],
    )
    strict = write_spacy(ExportJob({"train": [record]}, tmp_path / "a", DocBinSettings("strict")))
    assert strict["unaligned_spans"] == {"train": 1}
    assert strict["unaligned_examples"][0]["record"] == "r"
    expand = write_spacy(ExportJob({"train": [record]}, tmp_path / "b", DocBinSettings("expand")))
    assert expand["unaligned_spans"] == {"train": 0}


def test_spacy_expansion_never_swallows_another_span(tmp_path):
    pytest.importorskip("spacy")
    from spacy.tokens import DocBin

    from gen.export.formats.spacy_docbin import DocBinSettings, blank_pipeline, write_spacy

    # spaCy's multi-language tokenizer keeps this unspaced clause as one token.
    text = "患者王小明住在北京市患有糖尿病。"
    spans = [
        Span(2, 5, "PERSON", "faker"),
        Span(7, 10, "LOCATION", "faker"),
        Span(12, 15, "health", "llm_sentences"),
    ]
    record = Record("cjk", text, "health", "note", "xx", "llm", spans)
    tokens = ["health shared", "records"]
    shared = Record(
        "shared",
        " ".join(tokens),
        "health",
        "note",
        "en",
        "llm",
        [Span(0, 9, "health", "llm_sentences"), Span(10, 11, "PERSON", "faker")],
    )
    details = write_spacy(ExportJob({"train": [record, shared]}, tmp_path, DocBinSettings()))
    vocab = blank_pipeline("xx").vocab
    docs = list(DocBin().from_disk(tmp_path / "train.spacy").get_docs(vocab))
    for doc, original in zip(docs, (record, shared), strict=True):
        for ent in doc.ents:  # an entity holds no character of another span
            others = [s for s in original.spans if s.label != ent.label_]
            assert not any(s.overlap(ent.start_char, ent.end_char) for s in others)
    dropped = {
        (e["record"], e["start"], e["end"], e["label"]) for e in details["unaligned_examples"]
    }
    assert {("cjk", s.start, s.end, s.label) for s in spans} <= dropped
    assert details["unaligned_spans"]["train"] == len(details["unaligned_examples"])
    assert all(
        (e["start"], e["end"], e["label"])
        in {(s.start, s.end, s.label) for r in (record, shared) for s in r.spans}
        for e in details["unaligned_examples"]
    )


def test_dataset_card(run):
    _export(run, "conll")
    card = (RunPaths(run).export / "conll" / "README.md").read_text()
    assert "CC BY-SA 4.0" in card
    assert "SmolLM2-135M-Instruct" in card
    assert "Share of characters and words per label" in card
    assert "| train | health |" in card


def test_export_replaces_previous_files(run):
    _export(run, "jsonl")
    export_run(RunPaths(run), ExportOptions("jsonl", parse_ratios("0.8,0.2")))
    names = sorted(p.name for p in (RunPaths(run).export / "jsonl").iterdir())
    assert names == ["README.md", "manifest.json", "test.jsonl", "train.jsonl"]


def test_cli_export(run, tmp_path):
    runner = CliRunner()
    result = runner.invoke(
        main,
        [
            "export",
            "--run",
            str(run),
            "--format",
            "conll",
            "--scheme",
            "bio",
            "--holdout-doc-types",
            "invoice",
        ],
    )
    assert result.exit_code == 0, result.output
    manifest = json.loads((RunPaths(run).export / "conll" / "manifest.json").read_text())
    dataset = _dataset(run)
    invoices = {i for i, r in dataset.items() if r.doc_type == "invoice"}
    assert invoices and invoices <= set(manifest["splits"]["test"])
    missing = runner.invoke(main, ["export", "--run", str(tmp_path), "--format", "jsonl"])
    assert missing.exit_code == 2 and "gen build" in missing.output
    bad_split = runner.invoke(
        main, ["export", "--run", str(run), "--format", "jsonl", "--split", "0.5,0.6"]
    )
    assert bad_split.exit_code == 2 and "--split" in bad_split.output
