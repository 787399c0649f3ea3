"""The spaCy export and the spaCy detector cut identifiers out of their surroundings
("ip=10.0.0.1:443", "@anna", "mailto:", CSV cells), so that every query span is whole
tokens (spaCy's default rules left 73 of 762 spans inside longer tokens)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gen.core.packs import default_prompts_dir
from gen.core.runs import RunPaths
from gen.core.store import RecordTable
from scraping.queries.generate import generate_queries

spacy = pytest.importorskip("spacy")
from gen.export.formats.spacy_docbin import blank_pipeline, split_identifiers  # noqa: E402

CASES = {
    "src=10.0.0.1:443 user=jdoe": ["src", "=", "10.0.0.1", ":", "443", "user", "=", "jdoe"],
    "thx @jdoe !": ["thx", "@", "jdoe", "!"],
    "mailto:anna@x.it": ["mailto:", "anna@x.it"],
    "user=a.b@c.com": ["user", "=", "a.b@c.com"],
    "12;Anna Rossi;3/4/1990": ["12", ";", "Anna", "Rossi", ";", "3/4/1990"],
    "peer=[2001:db8::1]:443": ["peer", "=[", "2001:db8::1", "]", ":", "443"],
    "CF BNSCRN57H30F518X. Next": ["CF", "BNSCRN57H30F518X", ".", "Next"],
    "Tel:+44 20 7946": ["Tel", ":", "+44", "20", "7946"],
    "Ada Byron:mailto:ada@x.it": ["Ada", "Byron", ":mailto:", "ada@x.it"],
    "BYRON;ADA;;ada@x.it": ["BYRON", ";", "ADA", ";", ";", "ada@x.it"],
    "adab(uid 1001)": ["adab", "(", "uid", "1001", ")"],
    "mac dc:a6:32:71:0b:9e, 00-1A-2B-3C-4D-5E": [
        "mac",
        "dc:a6:32:71:0b:9e",
        ",",
        "00-1A-2B-3C-4D-5E",
    ],
    "v6 2001:db8:0:0:ff00:42:8329.": ["v6", "2001:db8:0:0:ff00:42:8329", "."],
    "08:00,phone,dc:a6:32:71:0b:9e,fd12:3456:789a:1::21,10.0.3.88": [
        "08:00",
        ",",
        "phone",
        ",",
        "dc:a6:32:71:0b:9e",
        ",",
        "fd12:3456:789a:1::21",
        ",",
        "10.0.3.88",
    ],
    "https://x.it/a?b=c&d=e U.S. Dr. Rossi": ["https://x.it/a?b=c&d=e", "U.S.", "Dr.", "Rossi"],
    # spaCy's URL rule took a public IPv4 address with its port for one URL token
    "at 198.51.100.7:8443, then": ["at", "198.51.100.7", ":", "8443", ",", "then"],
    "(8.8.8.8:53)": ["(", "8.8.8.8", ":", "53", ")"],
    "x.it:8080 203.0.113.9:80/api": ["x.it:8080", "203.0.113.9:80/api"],
    # ... and nothing else with a colon: times, ratios, log dates and URLs with a port
    "at 10:30, ratio 1:2 until 09:59:08": ["at", "10:30", ",", "ratio", "1:2", "until", "09:59:08"],
    "[5/27/2025:05:00:14 +0000] https://x.it:8443/a": [
        "[",
        "5/27/2025:05:00:14",
        "+0000",
        "]",
        "https://x.it:8443/a",
    ],
}


@pytest.mark.parametrize(("text", "tokens"), CASES.items())
def test_identifiers_are_tokens_of_their_own(text: str, tokens: list[str]) -> None:
    assert [t.text for t in blank_pipeline("en")(text)] == tokens


def test_the_rules_are_saved_with_a_pipeline(tmp_path: Path) -> None:
    """A trained model read back by plain `spacy.load` cuts texts as the export did."""
    split_identifiers(spacy.blank("en")).to_disk(tmp_path / "model")
    loaded = spacy.load(tmp_path / "model")
    for text, tokens in CASES.items():
        assert [t.text for t in loaded(text)] == tokens


def test_every_query_span_falls_on_token_edges(tmp_path: Path) -> None:
    for locale in ("en_GB", "it_IT"):
        generate_queries(tmp_path, locale=locale, n=400, seed=3, prompts_dir=default_prompts_dir())
    cut = []
    for record in RecordTable(RunPaths(tmp_path).queries).read():
        doc = blank_pipeline(record.language).make_doc(record.text)
        cut += [
            record.text[s.start : s.end]
            for s in record.spans
            if doc.char_span(s.start, s.end, alignment_mode="strict") is None
        ]
    assert len(cut) <= 4, cut
