"""Query templates: validated at load (file, line, key), shared parts, one person per
query, and each shape (e-mail threads, chats, logs, CSV, JSON, letters, forms...) written
with the gold set's conventions."""

from __future__ import annotations

import csv
import io
import json
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from faker import Faker

from gen.core.errors import ConfigError
from gen.core.packs import default_prompts_dir
from gen.core.records import Span, check_spans
from scraping.queries.generate import plan
from scraping.queries.templates import Filler, QueryTemplate, QueryTemplates, load_templates
from scraping.queries.values import LABELS, LOCALES

PROMPTS = default_prompts_dir()
PACK_LOCALES = [
    "en_US", "en_GB", "en_IE", "en_CA", "en_AU", "it_IT", "it_CH", "de_DE", "de_AT", "de_CH",
    "es_ES", "es_MX", "fr_FR", "fr_BE", "fr_CH",
]  # fmt: skip
#: Titles written before a name (left out of the PERSON span), of every pack's templates; not
#: the one-letter ones ("M.", "D."), which an initial written before a surname looks like.
TITLES = (
    "(Dr|Mr|Ms|Mrs|Sig|Dott|Avv|Ing|Prof|Herr|Frau|Hr|Fr|Sr|Sra|Srta|Dña|Dra|Lic|Profa"
    "|Mme|Mlle|Madame|Monsieur|Me|Pr)"
)
SHAPES = ("chat", "email", "ticket", "log", "csv", "json", "form", "letter", "invoice", "cv")


def filled(
    locale: str, kind: str | None = None, seeds: int = 3
) -> Iterator[tuple[QueryTemplate, str, list[Span]]]:
    """(template, text, spans) of every template (of `kind`) for a few seeds."""
    config = load_templates(PROMPTS, locale)
    filler = Filler(config, locale)
    fake = Faker(LOCALES[locale].faker)
    for index, template in enumerate(config.templates):
        if kind is not None and template.kind != kind:
            continue
        for seed in range(seeds):
            fake.seed_instance(f"{locale}-{index}-{seed}")
            text, spans, values = filler.fill(template, fake)
            check_spans(text, spans)
            assert values == [text[s.start : s.end] for s in spans]
            yield template, text, spans


@pytest.mark.parametrize("language", ["en", "it", "de", "es", "fr"])
def test_packs_have_hundreds_of_templates_in_every_shape(language: str) -> None:
    config = load_templates(PROMPTS, f"{language}_XX")
    kinds = Counter(t.kind for t in config.templates)
    assert len(config.templates) >= 250
    assert all(kinds[kind] >= 4 for kind in SHAPES), kinds
    labels = Counter(label for t in config.templates for label in config.labels(t))
    assert set(labels) == set(LABELS) and min(labels.values()) >= 6, labels
    assert sum(not config.labels(t) for t in config.templates) >= 30  # negatives


@pytest.mark.parametrize("locale", PACK_LOCALES)
def test_every_template_fills_with_exact_spans(locale: str) -> None:
    assert sum(1 for _ in filled(locale, seeds=2)) > 500


@pytest.mark.parametrize("locale", ["en_GB", "it_IT", "de_DE", "es_ES", "fr_FR", "fr_BE"])
def test_json_snippets_parse_and_csv_rows_line_up(locale: str) -> None:
    for _, text, spans in filled(locale, "json"):
        json.loads(text)
        assert all('"' not in text[s.start : s.end] for s in spans)
    for template, text, _ in filled(locale, "csv"):
        delimiter = ";" if ";" in template.text.split("\n")[0] else ","
        rows = list(csv.reader(io.StringIO(text), delimiter=delimiter))
        if len(rows) > 1:
            assert len({len(row) for row in rows}) == 1, text


@pytest.mark.parametrize("locale", ["en_US", "it_CH", "de_AT", "es_MX", "fr_FR", "fr_CH"])
def test_gold_conventions(locale: str) -> None:
    """@ outside USERNAME, <> and mailto: outside EMAIL, port outside IP_ADDRESS, title
    outside PERSON, one ADDRESS span over the lines of an address block."""
    seen: Counter[str] = Counter()
    for _, text, spans in filled(locale, seeds=4):
        for span in spans:
            before, value = text[: span.start], text[span.start : span.end]
            if span.label == "USERNAME":
                assert not value.startswith("@")
                seen["handle"] += before.endswith("@")
            if span.label == "EMAIL":
                assert not value.startswith(("<", "mailto:")) and not value.endswith(">")
                seen["bracketed"] += before.endswith(("<", "mailto:"))
            if span.label == "IP_ADDRESS":
                seen["port"] += bool(re.match(r"\]?:\d", text[span.end :]))
            if span.label == "PERSON":
                assert not re.match(rf"{TITLES}\b", value), value
                seen["title"] += bool(re.search(rf"{TITLES}\.?\w* $", before))
            if span.label == "ADDRESS" and "\n" in value:
                seen["block"] += 1
    assert all(seen[key] for key in ("handle", "bracketed", "port", "title", "block")), seen


def test_an_ipv6_address_before_a_port_is_bracketed() -> None:
    """In "2001:db8::1:443" the port cannot be told from the last group: an IPv6 address with a
    port is written "[2001:db8::1]:443" (RFC 3986), the brackets outside the span; an IPv4
    address and one the template brackets already are left as they are."""
    config = load_templates(PROMPTS, "en_US")
    filler = Filler(config, "en_US")
    template = QueryTemplate(
        kind="log", text="src={IP_ADDRESS}:{NUMBER}443 peer=[{IP_ADDRESS_2}]:80 to {IP_ADDRESS}"
    )
    fake = Faker("en_US")
    shapes: Counter[str] = Counter()
    for seed in range(40):
        fake.seed_instance(seed)
        text, spans, _ = filler.fill(template, fake)
        check_spans(text, spans)
        assert "[[" not in text and "]]" not in text, text
        for span in spans:
            before, after = text[span.start - 1], text[span.end :]
            if after.startswith(("]:", ":")):
                version = "v6" if ":" in text[span.start : span.end] else "v4"
                shapes[version] += 1
                if version == "v6":
                    assert before == "[" and after.startswith("]:"), text
    assert shapes["v6"] and shapes["v4"], shapes


def test_a_thread_has_two_people_whose_values_agree() -> None:
    """`_2` placeholders belong to a second person; one person's name and e-mail agree."""
    config = load_templates(PROMPTS, "en_US")
    filler = Filler(config, "en_US")
    template = QueryTemplate(
        kind="email", text="From: {PERSON} <{EMAIL}>\nTo: {PERSON_2} <{EMAIL_2}>\n{FIRST_NAME}"
    )
    fake = Faker("en_US")
    agree = 0
    for seed in range(30):
        fake.seed_instance(seed)
        values = filler.fill(template, fake)[2]
        person, mail, other, other_mail, first = values
        assert person != other and mail != other_mail
        assert first in person or first.upper() in person
        agree += first.lower()[:3] in mail.lower()
    assert agree >= 12


def test_the_same_placeholder_twice_is_the_same_value() -> None:
    config = load_templates(PROMPTS, "it_IT")
    fake = Faker("it_IT")
    fake.seed_instance(1)
    values = Filler(config, "it_IT").fill(
        QueryTemplate(kind="x", text="{TAX_ID} / {TAX_ID} / {TAX_ID_2}"), fake
    )[2]
    assert values[0] == values[1] != values[2]


@pytest.mark.parametrize("language", ["en", "it", "de", "es", "fr"])
def test_plan_keeps_labels_within_a_fifth(language: str) -> None:
    config = load_templates(PROMPTS, f"{language}_XX")
    counts: Counter[str] = Counter()
    for index in plan(config, 3000, seed=0):
        counts.update(config.labels(config.templates[index]))
    assert set(counts) == set(LABELS)
    assert max(counts.values()) <= 1.2 * min(counts.values()), counts


def _pack(tmp_path: Path, body: str) -> Path:
    (tmp_path / "queries").mkdir(parents=True, exist_ok=True)
    (tmp_path / "queries" / "en.yaml").write_text("language: en\n" + body, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "parts:\n  sig: ['{PERSON}', '{EMAIL}']\ntemplates:\n  - {kind: x, text: '{@sig}'}\n"
            "  - {kind: x, text: 'no one'}\n",
            r"en\.yaml: line 2: parts: .*part sig: every alternative must carry the same labels",
        ),
        (
            "templates:\n  - {kind: x, text: '{@sig} {PERSON}'}\n  - {kind: x, text: 'no one'}\n",
            r"line 3: templates\.0\.text: .*unknown placeholder \{@sig\}",
        ),
        (
            "parts:\n  a: ['{PERSON}']\n  b: ['{@a}']\ntemplates:\n  - {kind: x, text: '{@b}'}\n"
            "  - {kind: x, text: 'no one'}\n",
            r"part b: a part cannot contain another part",
        ),
        (
            "date_words: ['{day} {month}']\ntemplates:\n  - {kind: x, text: '{PERSON}'}\n"
            "  - {kind: x, text: 'no one'}\n",
            r"date_words needs a MONTH filler",
        ),
        (
            "date_words: ['{dd}']\ntemplates:\n  - {kind: x, text: '{PERSON}'}\n",
            r"line 2: date_words: unknown placeholder \{dd\}",
        ),
        (
            "titles: {male: [Dr], other: [X]}\ntemplates:\n  - {kind: x, text: '{PERSON}'}\n",
            r"titles\.other: unknown key",
        ),
        (
            "templates:\n  - {kind: x, text: '{PERSON_3}'}\n",
            r"unknown placeholder \{PERSON_3\}",
        ),
        (
            "organizations: {patterns: ['{town} Library']}\n"
            "templates:\n  - {kind: x, text: '{PERSON}'}\n",
            r"line 2: organizations\.patterns: unknown placeholder \{town\}",
        ),
        (
            "organizations: {patterns: ['{word} Ltd']}\n"
            "templates:\n  - {kind: x, text: '{PERSON}'}\n",
            r"organizations: .*patterns with \{word\} need a list of words",
        ),
    ],
)
def test_bad_packs_are_named_with_file_line_and_key(
    tmp_path: Path, body: str, message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        load_templates(_pack(tmp_path, body), "en_US")


def test_parts_pick_an_alternative_per_query(tmp_path: Path) -> None:
    prompts = _pack(
        tmp_path,
        "negative_share: 0\nparts:\n"
        "  sig: ['-- {PERSON}', 'Regards, {FIRST_NAME}', '{TITLE_NAME}']\n"
        "templates:\n  - kind: email\n    text: |-\n      Hello,\n      {@sig}\n",
    )
    config = load_templates(prompts, "en_GB")
    assert isinstance(config, QueryTemplates) and config.labels(config.templates[0]) == ["PERSON"]
    fake = Faker("en_GB")
    endings = set()
    for seed in range(20):
        fake.seed_instance(seed)
        text, spans, _ = Filler(config, "en_GB").fill(config.templates[0], fake)
        check_spans(text, spans)
        endings.add(text.split("\n")[1][:3])
    assert len(endings) >= 2
