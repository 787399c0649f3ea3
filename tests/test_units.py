"""Labeling units: clauses, list items and form values as exact ranges, nothing lost."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gen.core.errors import ConfigError, UsageError
from gen.core.pack_language import UnitRules
from gen.core.packs import default_prompts_dir, load_language_pack
from gen.core.record_files import read_record_file
from gen.text.units import split_units

EN = load_language_pack("en").units
IT = load_language_pack("it").units
DE = load_language_pack("de").units
ES = load_language_pack("es").units
FR = load_language_pack("fr").units
GOLD_DIR = Path(__file__).resolve().parents[1] / "bench" / "gold"
EDGE = ".,;:!?…–—- "


def units(text: str, rules: UnitRules = EN, unit: str = "clause") -> list[str]:
    return [text[start:end] for start, end in split_units(text, rules, unit)]


def assert_well_formed(text: str, ranges: list[tuple[int, int]]) -> None:
    """In order, not overlapping, not empty, no whitespace or separator at either edge."""
    previous_end = 0
    for start, end in ranges:
        assert previous_end <= start < end <= len(text)
        piece = text[start:end]
        assert piece[0] not in EDGE and piece[-1] not in EDGE and piece == piece.strip()
        previous_end = end


def uncovered_words(text: str, ranges: list[tuple[int, int]]) -> list[str]:
    covered = set()
    for start, end in ranges:
        covered.update(range(start, end))
    return [m.group() for m in re.finditer(r"\w+", text) if m.start() not in covered]


def test_english_clauses_at_separators_and_cue_commas() -> None:
    text = (
        "He has a conviction for assault from 2017, which he does not deny; "
        "he completed the order – without any breach – and works nights, but he sleeps badly."
    )
    assert units(text) == [
        "He has a conviction for assault from 2017",
        "which he does not deny",
        "he completed the order",
        "without any breach",
        "and works nights",
        "but he sleeps badly",
    ]
    assert units(text, unit="sentence") == [text[:-1]]


def test_relative_after_one_word_and_colon_before_space_only() -> None:
    text = "She stayed four nights, during which she slept at 14:30: a report follows."
    assert units(text) == [
        "She stayed four nights",
        "during which she slept at 14:30",
        "a report follows",
    ]


def test_short_clauses_join_their_neighbour() -> None:
    # "since 2012" and "and pain" are too short to stand alone; a short first piece
    # joins the next one.
    assert units("Member of the party, since 2012.") == ["Member of the party, since 2012"]
    assert units("Fatigue, poor balance, and pain.") == ["Fatigue, poor balance, and pain"]
    assert units("Yes – a lesion removed from the shoulder in 2019") == [
        "Yes – a lesion removed from the shoulder in 2019"
    ]


def test_clause_length_counts_the_words_of_gen_text_words() -> None:
    # An address is one or two words ("stampa", "@", "alleanzacivica.example"), not
    # the three a `\w+` count finds; punctuation and symbols are no words at all.
    text = "Tel. 06 4820 1187 – stampa@alleanzacivica.example"
    assert units(text, IT) == [text]
    # "e-mail + fax" is two words: too short to stand alone.
    text = "He wrote it – e-mail + fax – and phoned us twice."
    assert units(text) == ["He wrote it – e-mail + fax", "and phoned us twice"]
    # Chinese has no spaces: each character is a word, so a clause of it stands alone.
    text = "He said it – 我爱北京 – and left the room."
    assert units(text) == ["He said it", "我爱北京", "and left the room"]


def test_italian_cues_and_abbreviations() -> None:
    text = (
        "Il Dott. Rossi ha visitato la paziente, che riferisce dolore, ma rifiuta la terapia. "
        "Vive a Padova, in cui lavora dal 2012, e frequenta la parrocchia."
    )
    assert units(text, IT) == [
        "Il Dott. Rossi ha visitato la paziente",
        "che riferisce dolore",
        "ma rifiuta la terapia",
        "Vive a Padova",
        "in cui lavora dal 2012",
        "e frequenta la parrocchia",
    ]
    assert units(text, IT, "sentence") == [
        "Il Dott. Rossi ha visitato la paziente, che riferisce dolore, ma rifiuta la terapia",
        "Vive a Padova, in cui lavora dal 2012, e frequenta la parrocchia",
    ]


def test_german_cues_and_abbreviations() -> None:
    # pysbd cuts German after "geb." and "Abs." when a number follows: the pack's
    # abbreviations undo it; a comma before a relative pronoun or a conjunction cuts a clause.
    text = (
        "Frau Dr. med. Behrens untersuchte den Patienten, der über Brustschmerzen klagt, "
        "aber er lehnt die Therapie ab. Er ist geb. 03.11.1958 und wohnt in der Berliner "
        "Str. 5, wo er seit 2012 lebt. Verurteilt nach § 316 Abs. 1 StGB, Termin Di. 9 Uhr."
    )
    assert units(text, DE) == [
        "Frau Dr. med. Behrens untersuchte den Patienten",
        "der über Brustschmerzen klagt",
        "aber er lehnt die Therapie ab",
        "Er ist geb. 03.11.1958 und wohnt in der Berliner Str. 5",
        "wo er seit 2012 lebt",
        "Verurteilt nach § 316 Abs. 1 StGB, Termin Di. 9 Uhr",
    ]
    assert len(units(text, DE, "sentence")) == 3
    without = DE.model_copy(update={"conjunctions": (), "relatives": ()})
    assert len(units(text, without)) == 3


def test_form_values_are_units_without_field_names() -> None:
    text = (
        "Patient: Marcus Hale\n"
        "Date of birth: 14/02/1986\n"
        "Diagnosis: Bipolar disorder, current episode manic; no psychotic symptoms\n"
        "Signed: G. Clarke        Date: 12/02/2024\n"
        "My GP has signed me off until the first of July: the note says sciatica.\n"
        "Appuntamento: 21/10/2024 ore 15:00 💬"
    )
    assert units(text, unit="sentence") == [
        "Marcus Hale",
        "14/02/1986",
        "Bipolar disorder, current episode manic; no psychotic symptoms",
        "G. Clarke",
        "12/02/2024",
        "My GP has signed me off until the first of July: the note says sciatica",
        "21/10/2024 ore 15:00 💬",
    ]
    clauses = units(text)
    assert clauses[2:4] == ["Bipolar disorder, current episode manic", "no psychotic symptoms"]
    # Nine words before the colon: prose, not a field; the colon still cuts a clause.
    assert "My GP has signed me off until the first of July" in clauses


PROSE = (
    "He was treated with lithium in 2019, which helped, and he has been stable since. "
    "His sister, who lives in Leeds, says he sleeps badly; Dr. Patel disagrees: he is fine."
)


def squeezed(pieces: list[str]) -> list[str]:
    return [re.sub(r"\s+", " ", piece) for piece in pieces]


@pytest.mark.parametrize("spacing", ["   ", "     ", "\t", "\t\t", " \t "])
@pytest.mark.parametrize("unit", ["sentence", "clause"])
def test_prose_spaced_with_tabs_or_runs_of_spaces_gives_the_units_of_single_spaces(
    spacing: str, unit: str
) -> None:
    """Text from PDFs, OCR and e-mail clients: its gaps between words are no columns."""
    assert squeezed(units(PROSE.replace(" ", spacing), unit=unit)) == units(PROSE, unit=unit)


def test_wrapped_prose_with_gaps_that_do_not_line_up_is_not_cut() -> None:
    text = (
        "She was admitted   on the 3rd of May with\n"
        "chest pain,   which   eased overnight, and she\n"
        "was discharged\ton the 5th;\tthe GP will\n"
        "review her   in two weeks."
    )
    assert squeezed(units(text)) == units(re.sub(r"[ \t]+", " ", text))


def test_padded_forms_are_cut_at_their_columns() -> None:
    text = (
        "MENTAL HEALTH ASSESSMENT                Ref MH-2291\n"
        "Patient: Marcus Hale   DOB: 14/02/1986   NHS no.: 943 476 5919\n"
        "Date:     12/02/2024\n"
        "Ward          4B (acute admissions)\n"
        "Consultant    Dr. G. Clarke\n"
        "Diagnosis     Bipolar disorder, current episode manic; no psychotic symptoms\n"
    )
    assert units(text, unit="sentence") == [
        "MENTAL HEALTH ASSESSMENT",
        "Ref MH-2291",
        "Marcus Hale",
        "14/02/1986",
        "943 476 5919",
        "12/02/2024",
        "Ward",
        "4B (acute admissions)",
        "Consultant",
        "Dr. G. Clarke",
        "Diagnosis",
        "Bipolar disorder, current episode manic; no psychotic symptoms",
    ]
    assert units(text)[-2:] == ["Bipolar disorder, current episode manic", "no psychotic symptoms"]


def test_tab_separated_tables_and_right_aligned_amounts_are_cut_into_cells() -> None:
    table = (
        "Date\tMedication\tDose\tPrescriber\n"
        "12/03/2024\tLithium carbonate\t800 mg at night\tDr. Patel\n"
        "15/04/2024\tQuetiapine\t\tDr. Okafor\n"
    )
    assert units(table, unit="sentence") == [
        "Date",
        "Medication",
        "Dose",
        "Prescriber",
        "12/03/2024",
        "Lithium carbonate",
        "800 mg at night",
        "Dr. Patel",
        "15/04/2024",
        "Quetiapine",
        "Dr. Okafor",
    ]
    receipt = "Consultation, 50 min    120.00\nLab tests                38.50\nTotal   158.50\n"
    assert units(receipt, unit="sentence") == [
        "Consultation, 50 min",
        "120.00",
        "Lab tests",
        "38.50",
        "Total   158.50",
    ]


def test_list_items_are_units_without_markers() -> None:
    text = (
        "Plan:\n"
        "- Lithium restarted at 800 mg nightly\n"
        "• Weekly sessions with the psychologist\n"
        "2) Follow-up within seven days; letter to the GP\n"
        "[x] Ground-floor flat\n"
        "[ ] Interpreter\n"
        "a) visita ginecologica"
    )
    assert units(text, unit="sentence") == [
        "Plan",
        "Lithium restarted at 800 mg nightly",
        "Weekly sessions with the psychologist",
        "Follow-up within seven days; letter to the GP",
        "Ground-floor flat",
        "Interpreter",
        "visita ginecologica",
    ]
    assert units(text)[3:5] == ["Follow-up within seven days", "letter to the GP"]


def test_offsets_are_code_points_of_the_original_text() -> None:
    text = "Città: Núñez 🙏 è celiaca, e segue una dieta 🍞 senza glutine."
    ranges = split_units(text, IT, "clause")
    assert [text[a:b] for a, b in ranges] == [
        "Núñez 🙏 è celiaca",
        "e segue una dieta 🍞 senza glutine",
    ]
    assert ranges[0] == (7, 24)


def test_unknown_unit_is_a_usage_error() -> None:
    with pytest.raises(
        UsageError, match="unknown unit 'paragraph'; expected one of sentence, clause"
    ):
        split_units("text", EN, "paragraph")


def test_french_no_break_spaces_before_punctuation_stay_out_of_units() -> None:
    """French writes a no-break space before ":" and a narrow one before ";" and "?"."""
    text = "Il a deux antécédents\u00a0: un asthme ancien\u202f; un diabète récent\u202f?"
    assert units(text, FR) == ["Il a deux antécédents", "un asthme ancien", "un diabète récent"]
    assert_well_formed(text, split_units(text, FR, "sentence"))


def test_empty_and_blank_text() -> None:
    assert split_units("", EN, "clause") == []
    assert split_units(" \n - \n;", EN, "clause") == []


@pytest.mark.parametrize("gold_set", ["gold", "gold-de", "gold-es", "gold-fr"])
@pytest.mark.parametrize("unit", ["sentence", "clause"])
def test_gold_set_units_are_exact_and_keep_every_disclosure(unit: str, gold_set: str) -> None:
    files = [GOLD_DIR / f"{gold_set}-{split}.jsonl" for split in ("dev", "test")]
    gold = [record for path in files for record in read_record_file(path, "GOLD file")]
    packs = {code: load_language_pack(code).units for code in {r.language for r in gold}}
    for record in gold:
        ranges = split_units(record.text, packs[record.language], unit)
        assert_well_formed(record.text, ranges)
        disclosures = [s for s in record.spans if s.label.islower()]
        covered = set()
        for start, end in ranges:
            covered.update(range(start, end))
        for span in disclosures:
            words = re.finditer(r"\w+", record.text[span.start : span.end])
            assert all(span.start + w.start() in covered for w in words), (record.id, span)


_WORDS = st.sampled_from(
    [
        "he",
        "was",
        "treated",
        "and",
        "which",
        "but",
        "in",
        "cui",
        "che",
        "2019",
        "Dr.",
        "città",
        "🙏",
    ]
)
_SEPARATORS = st.sampled_from([" ", " ", " ", ", ", "; ", " – ", ". ", "\n", "  ", "\t", "! "])


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(_WORDS, _SEPARATORS), max_size=40), st.sampled_from(["sentence", "clause"])
)
def test_prose_units_cover_every_word(pieces: list[tuple[str, str]], unit: str) -> None:
    """Without colons or list markers nothing but whitespace and separators is left out."""
    text = "".join(word + separator for word, separator in pieces)
    for rules in (EN, IT, ES):
        ranges = split_units(text, rules, unit)
        assert_well_formed(text, ranges)
        assert uncovered_words(text, ranges) == []


_PROSE_SEPARATORS = st.sampled_from([" ", " ", ", ", "; ", " – ", ". "])
_SPACINGS = st.sampled_from(["   ", "    ", "\t", " \t", "\t\t"])


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(_WORDS, _PROSE_SEPARATORS, _SPACINGS), max_size=40),
    st.sampled_from(["sentence", "clause"]),
)
def test_a_line_of_prose_spaced_out_gives_the_units_of_single_spaces(
    pieces: list[tuple[str, str, str]], unit: str
) -> None:
    single = "".join(word + separator for word, separator, _ in pieces)
    spaced = "".join(word + separator.replace(" ", gap) for word, separator, gap in pieces)
    for rules in (EN, IT):
        assert squeezed(units(spaced, rules, unit)) == units(single, rules, unit)


def test_only_field_names_and_markers_are_left_out() -> None:
    text = "Name: Anna\n- item one here\n12. item two here\nNote: she is fine: really"
    ranges = split_units(text, EN, "clause")
    assert uncovered_words(text, ranges) == ["Name", "12", "Note"]


@pytest.fixture
def prompts(tmp_path: Path) -> Path:
    target = tmp_path / "prompts"
    shutil.copytree(default_prompts_dir(), target)
    return target


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            "relatives: [which,",
            "relatives: [', which',",
            "units.relatives: ', which' is not a word",
        ),
        ("min_clause_words: 3", "min_clause_words: 0", "units.min_clause_words"),
        (
            "field_name_max_words: 6",
            "field_name_max_word: 6",
            "units.field_name_max_word: unknown key",
        ),
    ],
)
def test_bad_units_block_names_file_line_and_key(
    prompts: Path, old: str, new: str, expected: str
) -> None:
    path = prompts / "en" / "language.yaml"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    with pytest.raises(ConfigError, match=re.escape(expected)) as error:
        load_language_pack("en", prompts)
    assert str(path) in str(error.value) and "line " in str(error.value)


def test_pack_without_units_block_splits_at_punctuation_only(prompts: Path) -> None:
    path = prompts / "en" / "language.yaml"
    path.write_text(path.read_text().split("\n# Labeling units")[0] + "\n")
    rules = load_language_pack("en", prompts).units
    assert rules.sentence_language == "en" and rules.conjunctions == ()
    assert units("He was ill, but he works; he sleeps badly.", rules) == [
        "He was ill, but he works",
        "he sleeps badly",
    ]
