"""Which language a text is written in (py3langid's offline model), for the checks of
generated documents and for detectors that cut texts by their language's rules."""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=1)
def _language_identifier():  # type: ignore[no-untyped-def]
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def detect_language(text: str) -> tuple[str, float]:
    """(ISO 639-1 code, confidence in [0, 1])."""
    language, confidence = _language_identifier().classify(text)
    return language, float(confidence)
