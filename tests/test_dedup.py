"""Near-duplicate thresholds: every value of the documented range (0, 1] works."""

from __future__ import annotations

import random
import unicodedata
from pathlib import Path

import pytest
from build_fixtures import make_run
from click.testing import CliRunner

from gen.cli import main
from gen.dataset.dedup import exact_duplicates, minhashes, near_duplicates, similar_pairs

WORDS = [f"word{i}" for i in range(300)]


#: The range's ends, steps of 0.1, and closely around where datasketch's own choice of
#: bands fails (0.99 and up).
THRESHOLDS = [0.01, 0.05, *(i / 10 for i in range(1, 10)), 0.95, 0.97, 0.98, 0.985, 0.99]
THRESHOLDS += [0.991, 0.995, 0.999, 1.0]


@pytest.fixture(scope="module")
def hashes() -> list:
    """A long text, a copy with its last word changed (similarity ~0.998), the same text
    again, and an unrelated one."""
    rng = random.Random(4)
    base = [rng.choice(WORDS) for _ in range(1000)]
    other = [rng.choice(WORDS) for _ in range(1000)]
    texts = [" ".join(base), " ".join([*base[:-1], "x"]), " ".join(base), " ".join(other)]
    return minhashes(texts)


@pytest.mark.parametrize("threshold", THRESHOLDS)
def test_thresholds_find_copies_and_keep_unrelated_texts(hashes: list, threshold: float) -> None:
    duplicates = near_duplicates(hashes, threshold)
    assert duplicates[2] == 0  # an identical text at every threshold
    # the one-word edit, as far as its estimated similarity (0.992) reaches
    assert (1 in duplicates) == (threshold <= hashes[0].jaccard(hashes[1]))
    assert (0, 2) in similar_pairs(hashes, threshold)
    if threshold >= 0.5:
        assert 3 not in duplicates


def test_cli_build_at_the_top_of_the_range(tmp_path: Path) -> None:
    make_run(tmp_path)
    for threshold in ("0.99", "1.0"):
        result = CliRunner().invoke(
            main,
            [
                "build",
                "--run",
                str(tmp_path),
                "--dedup-threshold",
                threshold,
                "--group-threshold",
                threshold,
            ],
        )
        assert result.exit_code == 0, result.output
        assert "removed records: exact_duplicate 1" in result.output
    outside = CliRunner().invoke(main, ["build", "--run", str(tmp_path), "--dedup-threshold", "0"])
    assert outside.exit_code == 2
    assert "'--dedup-threshold': 0.0 is not in the range 0<x<=1" in outside.output


def test_a_decomposed_copy_is_an_exact_duplicate() -> None:
    text = "José Nuñez è stato ricoverato in città."
    assert exact_duplicates([text, unicodedata.normalize("NFD", text)]) == {1: 0}


def test_copies_differing_in_case_punctuation_spacing_and_quote_style_are_exact() -> None:
    text = "L'anno scorso il sig. Rossi, via e-mail, ha scritto: «sono celiaco»."
    copies = [
        "l’anno scorso   il Sig Rossi via e-mail ha scritto\nsono celiaco!",
        'L\'anno scorso il sig. Rossi, via email, ha scritto: "sono celiaco" 😀',
    ]
    assert exact_duplicates([text, *copies]) == {1: 0, 2: 0}
    assert exact_duplicates([text, text.replace("celiaco", "diabetico")]) == {}


def test_chinese_is_compared_character_by_character() -> None:
    """A Chinese text with one character in three clauses changed is a near copy; with
    `\\w+` words every changed clause was a different word and the copy went unseen."""
    rng = random.Random(2)
    alphabet = "我你他她们是的了不在有人这中大为上个国和地到以说时要就出会可也"
    clauses = ["".join(rng.choice(alphabet) for _ in range(15)) for _ in range(21)]
    edited = [c if i % 3 else "门" + c[1:] for i, c in enumerate(clauses)]
    other = ["".join(rng.choice(alphabet) for _ in range(15)) for _ in range(21)]
    original, copy, unrelated = minhashes(["，".join(t) + "。" for t in (clauses, edited, other)])
    assert original.jaccard(copy) > 0.8
    assert original.jaccard(unrelated) < 0.2
