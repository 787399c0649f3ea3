"""`spacy`: one `DocBin` per split (`train.spacy`...), for `spacy train`.

Texts are cut by spaCy's tokenizer of the language, with identifier boundaries added
(`split_identifiers`: "ip=10.0.0.1:443" is `ip = 10.0.0.1 : 443`, "@anna" is `@ anna`,
"a;b,c" is `a ; b , c`), so that an identifier is whole tokens, as the gold set labels it.
Spans become `doc.ents` snapped to spaCy tokens with `alignment_mode`; a span
that cannot be aligned (or collides with another after snapping) is counted and
listed in the manifest with its own offsets, never dropped silently. `expand` never
takes in a character of another span: where it would, the span contracts to the
tokens inside it (and is left out if there are none). `doc.cats` holds the document
category, so the same files also train a text classifier. The check reads the
files back: every record there, with its text and with entities inside it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from gen.core.files import write_atomic
from gen.core.records import Record, Span
from gen.export.base import ExportFormat, ExportJob, FormatSettings, option, require
from gen.export.checks import span_problems

ALIGNMENT_MODES = ("strict", "contract", "expand")
#: How many unaligned spans the manifest lists by name (all are counted).
LISTED_UNALIGNED = 50


@dataclass(frozen=True)
class DocBinSettings(FormatSettings):
    alignment_mode: str = option("expand", "how spans snap to token edges", choices=ALIGNMENT_MODES)


#: Extra token boundaries around identifiers. spaCy's default rules keep "src=10.0.0.1:443",
#: "card=4111...", "mailto:a@b.it", "@anna" and CSV cells ("12;Anna Rossi;3/4/1990") in one
#: token, so an identifier there can only be labeled with its neighbours (measured: 102 of the
#: 740 spans of the PII gold set's dev split did not fall on token edges, 4 do not with these
#: rules; of 762 query spans 73 did not, none do).
IDENTIFIER_PREFIXES = (r"@", r"(?i:mailto):")
IDENTIFIER_INFIXES = (
    r"[=;,|\"<>\[\]()]",
    # a port after an IPv4 address or a bracketed IPv6 one (a MAC address stays one token)
    r"(?<=\.[0-9]):(?=[0-9])",
    r"(?<=\.[0-9]{2}):(?=[0-9])",
    r"(?<=\.[0-9]{3}):(?=[0-9])",
    r"(?<=\]):(?=[0-9])",
    r"(?<=[A-Za-z]{3}):(?=[+0-9])",
    r":?(?i:mailto):",
)
#: MAC and IPv6 addresses are one token whatever their letters (spaCy splits "dc:a6").
IDENTIFIER_TOKEN = (
    r"(?:[0-9A-Fa-f]{2}([:-]))(?:[0-9A-Fa-f]{2}\1){4}[0-9A-Fa-f]{2}"
    r"|[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}"
    r"|(?=[0-9A-Fa-f:]*:[0-9A-Fa-f]*:)[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}"
)
#: A full stop after a code ("BNSCRN57H30F518X.") ends the sentence, not the code.
IDENTIFIER_SUFFIXES = (r"(?<=[A-Z0-9]{2})\.",)
#: What spaCy's URL pattern takes that is not a URL: a field and its value ("user=anna@x.it",
#: "word=" never starts one), cells and fields ("Rossi;anna@x.it", "Rossi:mailto:anna@x.it"),
#: and an IPv4 address with its port ("198.51.100.7:8443", one token for a public address
#: where a private one is split: the port rule above then cuts it).
NOT_URLS = (r"\w+=", r"\S*;", r"\S*(?i:mailto)", r"(?:[0-9]{1,3}\.){3}[0-9]{1,3}:[0-9]+$")


def split_identifiers(nlp: Any) -> Any:
    """`nlp` with the identifier boundaries added to its tokenizer (saved with the pipeline,
    so a trained model cuts texts the same way when `spacy.load` reads it back)."""
    util = require("spacy.util")
    prefixes = [*IDENTIFIER_PREFIXES, *nlp.Defaults.prefixes]
    # spaCy splits "dc:a6" at the colon, cutting MAC and IPv6 addresses inside a CSV row;
    # the colons that end a word are split by the rules above instead.
    defaults = [pattern.replace("[:<>=/]", "[<>=/]") for pattern in nlp.Defaults.infixes]
    infixes = [*IDENTIFIER_INFIXES, *defaults]
    suffixes = [*IDENTIFIER_SUFFIXES, *nlp.Defaults.suffixes]
    nlp.tokenizer.prefix_search = util.compile_prefix_regex(prefixes).search
    nlp.tokenizer.suffix_search = util.compile_suffix_regex(suffixes).search
    url = require("spacy.lang.tokenizer_exceptions").URL_PATTERN
    nlp.tokenizer.url_match = re.compile(rf"(?u)(?!{'|'.join(NOT_URLS)})" + url).match
    nlp.tokenizer.token_match = re.compile(rf"^(?:{IDENTIFIER_TOKEN})$").match
    nlp.tokenizer.infix_finditer = util.compile_infix_regex(infixes).finditer
    return nlp


@cache
def blank_pipeline(language: str) -> Any:
    """A tokenizer-only pipeline (no model download) with identifier boundaries; unknown
    languages use spaCy's "xx"."""
    spacy = require("spacy")
    try:
        return split_identifiers(spacy.blank(language or "xx"))
    except ImportError:
        return split_identifiers(spacy.blank("xx"))


def record_doc(record: Record, categories: list[str], mode: str, unaligned: list[dict]) -> Any:
    from spacy.util import filter_spans

    doc = blank_pipeline(record.language).make_doc(record.text)
    aligned = []
    for span in record.spans:
        ent, reason = _aligned(doc, span, record.spans, mode)
        if ent is None:
            unaligned.append(_unaligned(record, span, reason))
        else:
            aligned.append((span, ent))
    kept = filter_spans([ent for _, ent in aligned])
    unaligned.extend(
        _unaligned(record, span, "overlaps after alignment")
        for span, ent in aligned
        if ent not in kept
    )
    doc.ents = kept
    doc.cats = {category: float(category == record.category) for category in categories}
    doc.user_data["id"] = record.id
    return doc


def _aligned(doc: Any, span: Span, spans: list[Span], mode: str) -> tuple[Any, str]:
    """The entity of `span` on spaCy's tokens, or None and why. An expanded entity that would
    take in a character of another span contracts instead (a token the two share is given to
    neither), so expansion never merges spans nor swallows one."""
    ent = doc.char_span(span.start, span.end, label=span.label, alignment_mode=mode)
    if ent is None:
        return None, "cuts a token"
    if mode == "expand" and any(
        other is not span and other.overlap(ent.start_char, ent.end_char) for other in spans
    ):
        ent = doc.char_span(span.start, span.end, label=span.label, alignment_mode="contract")
        if ent is None:
            return None, "shares its tokens with another span"
    return ent, ""


def _unaligned(record: Record, span: Span, reason: str) -> dict:
    """A span the export left out, at its offsets in the record (not where spaCy put it)."""
    return {
        "record": record.id,
        "start": span.start,
        "end": span.end,
        "label": span.label,
        "reason": reason,
    }


def write_spacy(job: ExportJob) -> dict[str, Any]:
    tokens = require("spacy.tokens")
    mode = job.settings.alignment_mode
    categories = sorted({r.category for r in job.records})
    unaligned: dict[str, list[dict]] = {}
    for name in job.splits:
        docbin = tokens.DocBin(store_user_data=True)
        unaligned[name] = []
        for record in job.each(name):
            docbin.add(record_doc(record, categories, mode, unaligned[name]))
        write_atomic(job.folder / f"{name}.spacy", docbin.to_bytes())
    return {
        "files": {name: f"{name}.spacy" for name in job.splits},
        "alignment_mode": mode,
        "categories": categories,
        "unaligned_spans": {name: len(items) for name, items in unaligned.items()},
        "unaligned_examples": [item for items in unaligned.values() for item in items][
            :LISTED_UNALIGNED
        ],
    }


def check_spacy(job: ExportJob, details: dict[str, Any]) -> list[str]:
    """Each DocBin reads back with the split's records, in order, texts intact, entities valid."""
    tokens = require("spacy.tokens")
    vocab = blank_pipeline("xx").vocab
    problems = []
    for name, file in details["files"].items():
        docs = list(tokens.DocBin().from_bytes((job.folder / file).read_bytes()).get_docs(vocab))
        records = job.splits[name]
        if [doc.user_data.get("id") for doc in docs] != [r.id for r in records]:
            problems.append(f"{file}: the documents read back are not the split's records")
            continue
        for doc, record in zip(docs, records, strict=True):
            if doc.text != record.text:
                problems.append(f"{file}: document {record.id}: the text changed")
            ents = [Span(ent.start_char, ent.end_char, ent.label_) for ent in doc.ents]
            problems += [f"{file}: {p}" for p in span_problems(record.id, doc.text, ents)]
    return problems


SPACY = ExportFormat(
    name="spacy",
    settings=DocBinSettings,
    write=write_spacy,
    check=check_spacy,
    usage="spacy train config.cfg --paths.train train.spacy --paths.dev dev.spacy",
)
