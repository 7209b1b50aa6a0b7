"""The languages this recognizer takes, and language tags as the API receives them.

Mirrors integrations/recognizers/types.ts: the spec's eight AI-transcription
languages plus the experimental one (Hindi). Whisper knows about a hundred
languages; everything outside these nine is LANGUAGE_UNSUPPORTED.
"""

from __future__ import annotations

import re

TARGET_LANGUAGES = ("en", "es", "fr", "de", "pt", "it", "ja", "ko")
EXPERIMENTAL_LANGUAGE = "hi"
SUPPORTED = frozenset((*TARGET_LANGUAGES, EXPERIMENTAL_LANGUAGE))

# Three-letter ISO 639-2/3 codes of the supported languages (as in integrations/platforms/language-tags.ts).
_THREE_TO_TWO = {
    "eng": "en",
    "spa": "es",
    "fra": "fr",
    "fre": "fr",
    "deu": "de",
    "ger": "de",
    "por": "pt",
    "ita": "it",
    "jpn": "ja",
    "kor": "ko",
    "hin": "hi",
}

# When no language was asked for and Whisper's best guess is outside the
# supported set with at least this probability, the piece is refused; below it
# the most probable supported language is taken (a short or noisy piece
# often gets a shaky first guess).
UNSUPPORTED_DETECTION_MIN_PROBABILITY = 0.5


def primary_language(tag: str | None) -> str | None:
    """`en-US`, `EN_us`, `eng` → `en`; None or blank → None (detect)."""
    if tag is None or tag.strip() == "":
        return None
    primary = re.split(r"[-_]", tag.strip())[0].lower()
    return _THREE_TO_TWO.get(primary, primary)


def choose_detected(all_probs: list[tuple[str, float]]) -> tuple[str | None, float, str, float]:
    """From Whisper's language probabilities (best first): (supported language or None, its probability, top language, top probability).

    None means the speech is in a language outside the supported set.
    """
    if not all_probs:
        return None, 0.0, "", 0.0
    top, top_p = all_probs[0]
    if top in SUPPORTED:
        return top, float(top_p), top, float(top_p)
    if top_p >= UNSUPPORTED_DETECTION_MIN_PROBABILITY:
        return None, 0.0, top, float(top_p)
    for lang, p in all_probs:
        if lang in SUPPORTED:
            return lang, float(p), top, float(top_p)
    return None, 0.0, top, float(top_p)
