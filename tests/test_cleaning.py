from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from gen.core.records import Record, Span, check_spans
from gen.dataset.normalize import clean_record, clean_text
from gen.text.words import word_spans


def _record(text: str, spans: list[Span]) -> Record:
    return Record("r1", text, "health", "email", "en", "llm", spans)


def test_clean_text_lowercases_and_keeps_only_periods():
    cleaned, origins = clean_text("Hello, Anna!\n  She has (ASTHMA) since 2019.  Call: +39 333.")
    assert cleaned == "hello anna\nshe has asthma since 2019. call 39 333."
    assert len(origins) == len(cleaned)
    assert origins == sorted(origins)


def test_spans_cover_the_same_words_after_cleaning():
    text = "Dear Anna, she has (chronic asthma) since May; call Dr. Rossi."
    phrase = text.index("chronic")
    spans = [
        Span(5, 9, "PERSON", "faker"),
        Span(phrase - 1, phrase + len("chronic asthma)"), "health", "llm_censor"),
        Span(text.index("Dr."), len(text), "PERSON", "llm_sentences"),
    ]
    cleaned, lost, _ = clean_record(_record(text, spans))
    covered = [cleaned.text[s.start : s.end] for s in cleaned.spans]
    assert covered == ["anna", "chronic asthma", "dr. rossi."]
    assert lost == []
    check_spans(cleaned.text, cleaned.spans)


def test_span_made_only_of_symbols_is_reported_lost():
    text = "Total: 40 € (net)"
    euro = text.index("€")
    cleaned, lost, _ = clean_record(_record(text, [Span(euro, euro + 1, "PRICE", "faker")]))
    assert cleaned.spans == []
    assert [s.label for s in lost] == ["PRICE"]


@given(st.text(alphabet="aB .,!?-\n()€É1", min_size=1, max_size=60), st.data())
def test_word_spans_map_to_their_cleaned_words(text, data):
    words = word_spans(text)
    alnum_words = [w for w in words if any(c.isalnum() for c in text[w[0] : w[1]])]
    if not alnum_words:
        return
    first = data.draw(st.integers(0, len(alnum_words) - 1))
    last = data.draw(st.integers(first, len(alnum_words) - 1))
    start, end = alnum_words[first][0], alnum_words[last][1]
    cleaned, _, _ = clean_record(_record(text, [Span(start, end, "health", "llm_censor")]))
    [span] = cleaned.spans
    assert cleaned.text[span.start : span.end] == clean_text(text[start:end])[0]


def test_planned_facts_and_non_disclosures_point_at_the_same_words_after_cleaning():
    text = "Dear Anna!\n(She) was jailed in 1999 -- for fraud. Gout runs in many families. ~~"
    fact = ("was jailed in 1999 -- for fraud", "judicial")
    negative = "Gout runs in many families."

    def place(part: str) -> dict:
        return {"start": text.index(part), "end": text.index(part) + len(part)}

    disclosures = {
        "facts": "pack",
        "planned": [
            {
                "category": fact[1],
                "text": fact[0],
                "found": "exact",
                "score": 1.0,
                **place(fact[0]),
            },
            {"category": "health", "text": "asthma", "found": "missing"},
        ],
        "non_disclosures": [
            {
                "category": "health",
                "text": negative,
                "found": "exact",
                "score": 1.0,
                **place(negative),
            }
        ],
    }
    start, end = place(fact[0]).values()
    record = replace(_record(text, [Span(start, end, "judicial", "planned")]),
                     meta={"disclosures": disclosures, "other": 1})  # fmt: skip
    cleaned, lost, places_lost = clean_record(record)
    assert lost == [] and places_lost == 0
    moved = cleaned.meta["disclosures"]
    found, missing = moved["planned"]
    (kept,) = moved["non_disclosures"]
    assert cleaned.text[found["start"] : found["end"]] == "was jailed in 1999 for fraud"
    assert (found["start"], found["end"]) == (cleaned.spans[0].start, cleaned.spans[0].end)
    assert cleaned.text[kept["start"] : kept["end"]] == "gout runs in many families."
    assert missing == disclosures["planned"][1] and cleaned.meta["other"] == 1
    assert moved["facts"] == "pack"


def test_a_fact_place_made_only_of_symbols_is_reported_lost():
    text = "Mood: :-( today."
    sad = text.index(":-(")
    fact = {"category": "health", "text": ":-(", "found": "exact", "start": sad, "end": sad + 3}
    record = replace(_record(text, []), meta={"disclosures": {"planned": [fact]}})
    cleaned, _, places_lost = clean_record(record)
    assert places_lost == 1
    assert cleaned.meta["disclosures"]["planned"] == [
        {"category": "health", "text": ":-(", "found": "missing"}
    ]
