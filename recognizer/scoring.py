"""How recognised text is scored against a reference: word error rate, or character error rate for languages
written without spaces. One definition for the evaluation (bench/sets) and the recognizer's tests."""

from __future__ import annotations

import unicodedata

import numpy as np

# Written without spaces between words: scored by character.
BY_CHARACTER = ("ja", "ko", "zh")


def normalise(text: str) -> str:
    """Lower case, NFKC, punctuation and symbols as spaces, runs of spaces as one."""
    t = unicodedata.normalize("NFKC", text).lower()
    t = "".join(" " if unicodedata.category(c)[0] in "PS" else c for c in t)
    return " ".join(t.split())


def units(text: str, language: str) -> list[str]:
    n = normalise(text)
    return list(n.replace(" ", "")) if language in BY_CHARACTER else n.split()


def metric(language: str) -> str:
    return "cer" if language in BY_CHARACTER else "wer"


def edits(ref: list[str], hyp: list[str]) -> tuple[int, int]:
    """Edit distance and matched units (the reference units found in the hypothesis, in order)."""
    r, h = len(ref), len(hyp)
    d = np.zeros((r + 1, h + 1), dtype=np.int32)
    d[:, 0] = np.arange(r + 1)
    d[0, :] = np.arange(h + 1)
    for i in range(1, r + 1):
        for j in range(1, h + 1):
            d[i, j] = min(d[i - 1, j] + 1, d[i, j - 1] + 1, d[i - 1, j - 1] + (ref[i - 1] != hyp[j - 1]))
    i, j, hits = r, h, 0
    while i > 0 and j > 0:
        if ref[i - 1] == hyp[j - 1] and d[i, j] == d[i - 1, j - 1]:
            hits, i, j = hits + 1, i - 1, j - 1
        elif d[i, j] == d[i - 1, j - 1] + 1:
            i, j = i - 1, j - 1
        elif d[i, j] == d[i - 1, j] + 1:
            i -= 1
        else:
            j -= 1
    return int(d[r, h]), hits


def error_count(reference: str, hypothesis: str, language: str) -> tuple[int, int]:
    """Edits and reference units of one hypothesis."""
    ref = units(reference, language)
    return edits(ref, units(hypothesis, language))[0], len(ref)
