"""The measure of layout notes that only list their facts (gen.generate.notes_shape)."""

from __future__ import annotations

from gen.generate.notes_shape import notes_shape

GLORIA = {"name": "Gloria Campbell", "first_name": "Gloria", "last_name": "Campbell"}
FACTS = (
    "was elected to the works council at Thompson Logistics in 1987",
    "was secretary of the Jasonshire branch of the Liberal Democrats until 2008",
)


def places(notes: str, facts: tuple[str, ...] = FACTS) -> list[tuple[int, int]]:
    return [(notes.index(fact), notes.index(fact) + len(fact)) for fact in facts if fact in notes]


def test_sentences_that_open_with_the_name_list_the_facts() -> None:
    notes = (
        f"Gloria Campbell {FACTS[0]}.\nGloria Campbell {FACTS[1]}.\n"
        "Gloria Campbell stood as a candidate for Reform UK in 2011."
    )
    shape = notes_shape(notes, GLORIA, places(notes), "en")
    assert (shape.sentences, shape.name_led, shape.lists_facts) == (3, 3, True)


def test_a_bullet_list_of_the_facts_lists_them() -> None:
    notes = f"Assessment\n- Gloria Campbell {FACTS[0]}\n- Ms Campbell {FACTS[1]}"
    shape = notes_shape(notes, GLORIA, places(notes), "en")
    assert shape.name_led == 2 and shape.lists_facts  # the title before the surname too


def test_bare_facts_without_the_name_list_them_too() -> None:
    persona = {"name": "Sylvia Curatoli", "first_name": "Sylvia", "last_name": "Curatoli"}
    facts = ("versa 25 euro al mese a Europa Verde", "iscritta a Unione Popolare dal 2025")
    notes = (
        "Sylvia Curatoli versa 25 euro al mese a Europa Verde.\n"
        "Era iscritta a Unione Popolare dal 2025.\n"
        "Ha partecipato al corteo di Ultima Generazione nel 2022."
    )
    shape = notes_shape(notes, persona, places(notes, facts), "it")
    assert (shape.name_led, shape.bare_facts, shape.lists_facts) == (1, 1, True)


def test_prose_that_carries_the_facts_does_not_list_them() -> None:
    notes = (
        "Dear Tom,\n"
        "Thanks for asking about the branch history before Thursday's meeting. When I spoke "
        f"to Gloria last week she reminded me that she {FACTS[0]}, long before most of us "
        f"joined. She also {FACTS[1]}, so she knows the constituency well. "
        "I would put her forward for the panel and ask her to bring the old minutes.\n"
        "Best wishes,\nAnne"
    )
    shape = notes_shape(notes, GLORIA, places(notes), "en")
    assert shape.name_led == 0 and shape.bare_facts == 0 and not shape.lists_facts
    assert shape.sentences == 4  # the greeting and the sign-off are too short to count


def test_one_name_led_sentence_among_prose_does_not_list() -> None:
    notes = (
        "Reviewed in clinic today with her daughter. Gloria Campbell reports better sleep "
        "since the dose was lowered. Blood pressure 128/80, weight stable. We agreed to keep "
        "the current plan and review in three months."
    )
    shape = notes_shape(notes, GLORIA, [], "en")
    assert (shape.sentences, shape.name_led, shape.lists_facts) == (4, 1, False)


def test_empty_notes_list_nothing() -> None:
    assert not notes_shape("", GLORIA, [], "en").lists_facts
