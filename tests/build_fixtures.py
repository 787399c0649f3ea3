"""A small fictional run folder (labeled documents, Wikipedia-like negatives, queries).

All texts are invented here from word lists; nothing is copied from any source.
"""

from __future__ import annotations

import random
from pathlib import Path

from gen.core.records import Record, Span
from gen.core.runs import RunPaths
from gen.core.store import RecordTable

FIRST_NAMES = ["Mara", "Tobias", "Ilse", "Quentin", "Noor", "Bastien", "Yara", "Elio", "Greta"]
LAST_NAMES = ["Vantrell", "Oskoro", "Dellamy", "Pruitt", "Hasselby", "Korvin", "Lindqvar"]

#: category -> (document types, sensitive sentences with the key phrase in brackets)
CATEGORIES = {
    "health": (
        ["medical_report", "email"],
        [
            "She was treated for [chronic asthma] at the clinic.",
            "The scan confirmed a [fractured left wrist] last week.",
            "He takes [insulin for diabetes] every morning.",
        ],
    ),
    "politic": (
        ["membership_card", "letter"],
        [
            "He has been a [member of the Green Alliance] since spring.",
            "She voted for the [Workers Union list] in the local election.",
        ],
    ),
    "judicial": (
        ["court_ruling", "police_report"],
        [
            "The court [sentenced him to two years] for fraud.",
            "She was [arrested for shoplifting] near the station.",
        ],
    ),
    "sexuality": (
        ["email", "diary"],
        [
            "He told his sister that [he is gay] during dinner.",
            "She mentioned [her girlfriend] at the office party.",
        ],
    ),
    "other": (
        ["business_plan", "invoice"],
        [],
    ),
}

FILLER = [
    "The weather in the valley stayed mild for most of the month.",
    "Please bring the signed forms to the second floor.",
    "Our team finished the quarterly review ahead of schedule.",
    "The train to the coast leaves at a quarter past nine.",
    "Coffee will be served in the small meeting room.",
    "A new printer arrived at the front desk yesterday.",
    "The garden behind the library needs watering twice a week.",
    "Parking near the north entrance is closed until Friday.",
    "We ordered thirty chairs for the spring workshop.",
    "The museum opens late on the first Thursday of the month.",
    "Invoices are processed within ten working days.",
    "The bakery on the corner now sells rye bread.",
    "Several volunteers painted the fence on Saturday.",
    "The river path is popular with cyclists at dawn.",
    "Updated timetables are posted beside the lifts.",
    "Lunch will include soup, salad and fresh fruit.",
    "The orchestra rehearses in the old warehouse.",
    "Budget figures for the next year are still pending.",
    "A storm knocked over two trees near the school.",
    "The committee meets again after the holidays.",
]

ENCYCLOPEDIA = [
    "Asthma is a long term condition of the airways in the lungs.",
    "Elections in small towns often have a higher turnout.",
    "A court of appeal reviews decisions made by lower courts.",
    "Diabetes affects how the body turns food into energy.",
    "Political parties publish programmes before a vote.",
    "Criminal law defines offences and the penalties for them.",
    "Vaccines train the immune system to recognise a germ.",
    "Trade unions negotiate wages on behalf of workers.",
    "Forensic science applies chemistry to legal questions.",
    "Public health studies disease across whole populations.",
]


def _document(index: int, rng: random.Random) -> Record:
    category = list(CATEGORIES)[index % len(CATEGORIES)]
    doc_types, sensitive = CATEGORIES[category]
    doc_type = doc_types[(index // len(CATEGORIES)) % len(doc_types)]
    first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
    greeting = f"Dear {first} {last},\n"
    spans = [Span(5, 5 + len(first) + 1 + len(last), "PERSON", "faker")]
    parts = [greeting]
    fillers = rng.sample(FILLER, 4)
    parts.append(" ".join(fillers[:2]) + " ")
    if sensitive:
        template = rng.choice(sensitive)
        phrase_start = template.index("[")
        phrase_end = template.index("]") - 1
        sentence = template.replace("[", "").replace("]", "")
        offset = sum(map(len, parts))
        spans.append(Span(offset, offset + len(sentence), category, "llm_sentences"))
        spans.append(Span(offset + phrase_start, offset + phrase_end, category, "llm_censor"))
        parts.append(sentence + " ")
    parts.append(" ".join(fillers[2:]) + f"\nSigned on {rng.randint(1, 28)} March 2024.")
    text = "".join(parts)
    date = text.rindex("March") - 3
    spans.append(Span(text.index(" ", date) + 1, len(text) - 1, "DATE", "faker"))
    return Record(
        id=f"doc-{index:03d}",
        text=text,
        category=category,
        doc_type=doc_type,
        language="en",
        source="llm",
        spans=spans,
        persona={"name": f"{first} {last}", "birth_date": f"19{60 + index % 40}-01-01"},
        model="SmolLM2-135M-Instruct",
        seed=index,
        group=f"doc-{index:03d}",
        flags=["alignment_low"] if index % 17 == 3 else [],
    )


def make_records(documents: int = 60, pages: int = 12, queries: int = 8, seed: int = 0):
    """(documents, negatives, queries) of a fictional run, with one exact and one near copy."""
    rng = random.Random(seed)
    docs = [_document(i, rng) for i in range(documents)]
    exact = docs[1]
    docs.append(Record(**{**_fields(exact), "id": "doc-copy", "group": "doc-copy"}))
    near = docs[2]
    docs.append(
        Record(
            **{
                **_fields(near),
                "id": "doc-near",
                "group": "doc-near",
                "text": near.text + " Thanks.",
            }
        )
    )
    negatives = []
    for page in range(pages):
        for paragraph in range(3):
            text = " ".join(rng.sample(ENCYCLOPEDIA, 4))
            negatives.append(
                Record(
                    id=f"wiki-{page}-{paragraph}",
                    text=text,
                    category="health",
                    doc_type="wikipedia",
                    language="en",
                    source="wikipedia",
                    group=f"page-{page}",
                    meta={"license": "CC BY-SA 4.0", "title": f"Page {page}"},
                )
            )
    query_records = []
    for index in range(queries):
        name = f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}"
        text = f"Find the file of {name} with number {1000 + index}"
        start = text.index(name)
        query_records.append(
            Record(
                id=f"query-{index}",
                text=text,
                category="other",
                doc_type="query",
                language="en",
                source="faker",
                spans=[Span(start, start + len(name), "PERSON", "faker")],
            )
        )
    return docs, negatives, query_records


def _fields(record: Record) -> dict:
    return {name: getattr(record, name) for name in Record.__slots__}


def make_run(root: Path, **sizes: int) -> RunPaths:
    """A run folder holding the three stage tables `gen build` reads."""
    paths = RunPaths(root)
    docs, negatives, queries = make_records(**sizes)
    for folder, records in (
        (paths.labeled, docs),
        (paths.wikipedia, negatives),
        (paths.queries, queries),
    ):
        with RecordTable(folder) as table:
            table.extend(records)
    return paths
