"""Properties of the censor aligner on generated documents and arbitrary strings."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from gen.core.records import check_spans
from labeling.align.aligner import align_document

TAGS = {"HEALTH_DATA": "health", "POLITICAL_OPINION": "politic"}
SPELLINGS = {
    "HEALTH_DATA": ["[HEALTH_DATA]", "[health data]", "[Health-Data]", "[ HEALTH DATA ]"],
    "POLITICAL_OPINION": ["[POLITICAL_OPINION]", "[political opinion]", "[Political-Opinion]"],
}
LETTERS = "abcdefghilmnoprstuvzàèéìòùçñαβγδεζηθλμπστωабвгдежзиклмнопрст"
SEPARATORS = [" ", " ", " ", ", ", ". ", "\n", " - ", ' "', '" ', "; ", "\n\n"]

word = st.text(alphabet=LETTERS, min_size=2, max_size=8)


@dataclass(frozen=True)
class Segment:
    """A run of words: literal, or censored under `tag`."""

    size: int
    tag: str | None = None


@st.composite
def segment_plans(draw: st.DrawFn) -> list[Segment]:
    """Literal and censored runs; two censored runs always have a literal word between
    them, otherwise where one ends is not recoverable from the answer."""
    tags = draw(st.lists(st.sampled_from(sorted(TAGS)), max_size=4))
    plan = [Segment(draw(st.integers(0, 3)))]
    for index, tag in enumerate(tags):
        plan.append(Segment(draw(st.integers(1, 4)), tag))
        last = index == len(tags) - 1
        plan.append(Segment(draw(st.integers(0 if last else 1, 4))))
    assume(sum(segment.size for segment in plan if segment.tag is None) >= 2)
    return plan


def _perturb_separator(separator: str, choice: int) -> str:
    """Reflow whitespace, change quote and dash styles: what models do outside tags."""
    return [
        separator,
        separator.replace(" ", "\n").replace("\n\n", "\n"),
        separator.replace(" ", "  "),
        separator.replace('"', "“") if separator.startswith(" ") else separator.replace('"', "”"),
        separator.replace("-", "–"),
    ][choice % 5]


def _typo(text: str) -> str:
    """Swap two letters inside the word."""
    return text[:1] + text[2] + text[1] + text[3:]


@given(data=st.data(), plan=segment_plans())
@settings(max_examples=150, deadline=None)
def test_censored_spans_are_recovered_exactly(data: st.DataObject, plan: list[Segment]) -> None:
    total = sum(segment.size for segment in plan)
    words = data.draw(st.lists(word, min_size=total, max_size=total, unique_by=str.casefold))
    separators = data.draw(st.lists(st.sampled_from(SEPARATORS), min_size=total, max_size=total))
    choices = data.draw(st.lists(st.integers(0, 4), min_size=total, max_size=total))
    literal_indexes = []
    index = 0
    for segment in plan:
        if segment.tag is None:
            literal_indexes.extend(range(index, index + segment.size))
        index += segment.size
    typo_at = data.draw(st.sampled_from([None, *literal_indexes]))
    if typo_at is not None:
        assume(len(words[typo_at]) >= 5)
        assume(_typo(words[typo_at]).casefold() not in {w.casefold() for w in words})

    original_parts: list[str] = []
    censored_parts: list[str] = []
    expected = []
    index = 0
    for segment in plan:
        if segment.tag is None:
            for i in range(index, index + segment.size):
                original_parts.append(words[i] + separators[i])
                text = _typo(words[i]) if i == typo_at else words[i]
                censored_parts.append(text + _perturb_separator(separators[i], choices[i]))
        elif segment.size:
            start = sum(map(len, original_parts))
            last = index + segment.size - 1
            for i in range(index, last):  # a span next to no anchor ends at a line break
                original_parts.append(words[i] + separators[i].replace("\n", " "))
            original_parts.append(words[last] + separators[last])
            expected.append((start, sum(map(len, original_parts)) - len(separators[last])))
            spelling = data.draw(st.sampled_from(SPELLINGS[segment.tag]))
            censored_parts.append(spelling + _perturb_separator(separators[last], choices[last]))
        index += segment.size
    original = "".join(original_parts)
    censored = "".join(censored_parts)
    tags_in_order = [TAGS[segment.tag] for segment in plan if segment.tag]

    alignment = align_document(original, censored, TAGS)

    assert not alignment.flagged, alignment.reason
    assert [(s.start, s.end) for s in alignment.spans] == expected
    assert [s.label for s in alignment.spans] == tags_in_order
    check_spans(original, alignment.spans)


#: Text made of pieces that stress tag parsing: brackets, separators, tags, scripts.
tag_heavy_text = st.lists(
    st.sampled_from([*"[]ABCD_- \n\t.,'\"“”éπж中abc", "[HEALTH_DATA]", "[b c]", "[ a ]"]),
    max_size=40,
).map("".join)


@given(
    original=st.one_of(st.text(max_size=80), tag_heavy_text),
    censored=st.one_of(st.text(max_size=80), tag_heavy_text),
)
@settings(max_examples=300, deadline=None)
def test_arbitrary_strings_never_raise_nor_yield_invalid_spans(
    original: str, censored: str
) -> None:
    tags = {"HEALTH_DATA": "health", "B_C": "politic", "A": "ethnic"}

    alignment = align_document(original, censored, tags)

    check_spans(original, alignment.spans)
    assert [s.start for s in alignment.spans] == sorted(s.start for s in alignment.spans)
    assert all(
        s.source == "llm_censor" and s.quality in {"exact", "fuzzy"} for s in alignment.spans
    )
    assert all(0.0 <= s.score <= 1.0 for s in alignment.spans)
    assert all(s.label in tags.values() for s in alignment.spans)
    assert 0.0 <= alignment.score <= 1.0 and 0.0 <= alignment.coverage <= 1.0
    assert alignment.flagged == (alignment.reason is not None)
    if alignment.quality == "failed":
        assert alignment.flagged and alignment.spans == []
