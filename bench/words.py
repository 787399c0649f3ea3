"""How fast `gen.text.words.word_spans` tokenizes each kind of text it meets: plain
English, Italian with precomposed accents, the same Italian decomposed (NFD, as some
tools write it), and Chinese. Eval, stats, agreement and the word exports all call it.

    .venv/bin/python bench/words.py [CHARACTERS_PER_KIND]
"""

from __future__ import annotations

import random
import sys
import time
import unicodedata

from gen.text.words import word_spans

#: Invented snippets; each kind is repeated into documents of about 2,000 characters.
SNIPPETS = {
    "english": "The patient, Mara Vantrell (born 1974), was seen at the clinic on 12 May; "
    "her e-mail and phone were updated. ",
    "italian": "Il paziente José Nuñez, nato a Città di Castello, è già in cura perché "
    "l'asma peggiora; più visite a metà mese. ",
    "italian-nfd": unicodedata.normalize(
        "NFD",
        "Il paziente José Nuñez, nato a Città di Castello, è già in cura perché "
        "l'asma peggiora; più visite a metà mese. ",
    ),
    "chinese": "患者张伟于五月十二日在诊所就诊，医生建议他每天早上服用胰岛素。",
}


def documents(snippet: str, characters: int, rng: random.Random) -> list[str]:
    pieces = [snippet[i:] + snippet[:i] for i in range(0, len(snippet), 7)]
    docs, total = [], 0
    while total < characters:
        doc = "".join(rng.choice(pieces) for _ in range(max(1, 2000 // len(snippet))))
        docs.append(doc)
        total += len(doc)
    return docs


def main(characters: int = 2_000_000) -> None:
    rng = random.Random(0)
    print(f"{'text':<12} {'chars':>10} {'words':>9} {'seconds':>8} {'Mchar/s':>8} {'Mword/s':>8}")
    for kind, snippet in SNIPPETS.items():
        docs = documents(snippet, characters, rng)
        chars = sum(map(len, docs))
        start = time.perf_counter()
        words = sum(len(word_spans(doc)) for doc in docs)
        seconds = time.perf_counter() - start
        print(
            f"{kind:<12} {chars:>10,} {words:>9,} {seconds:>8.2f} "
            f"{chars / seconds / 1e6:>8.2f} {words / seconds / 1e6:>8.2f}"
        )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2_000_000)
