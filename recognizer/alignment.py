"""Forced alignment: a known text given word times by the Whisper model already loaded.

Two uses, the same steps:
- caption transcripts with `word_timing`: the caption's own cues, grouped into
  windows of at most 30 s cut at cue boundaries, each window's text aligned
  to its audio in one pass (faster-whisper's `find_alignment`, decoding.py
  `Decoder.align`): every word gets its time and the probability the model
  gives it (`confidence`).
- `align_text` (a user's own text, no times): the text's words are matched to
  the words the recognizer hears (difflib's longest matching blocks), each
  sentence is placed between its matched words, and the sentences are then
  aligned as cues.

Both first recognise the audio once with the fast profile (`hear`). Every
cue (or sentence) gets a `match` score: the share of its words the
recognizer heard, in order, within MATCH_SLACK_S of its time. A track that
does not belong to the audio (another language, another video) scores near
0. The model's own probabilities under forced alignment were weighed first
and separate worse: a wrong sentence read against speech still scores well
once its first words are read, because the model predicts the rest from the
text (bench/RESULTS.md, block `alignment`, has both measured).
"""

from __future__ import annotations

import difflib
import itertools
import re
import threading
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .audio import SAMPLE_RATE
from .decoding import Decoder, Word
from .engine import Engine, RecognitionRequest, Stopped
from .errors import ServiceError
from .wire import AlignedCue, AlignedSegment, Json, RecognizedWord, TimedWord

# Whisper's window: one alignment pass sees at most this much audio.
WINDOW_S = 30.0
# Audio kept before the first and after the last cue of a window: caption times are rounded and often early or late.
CUE_PAD_S = 0.5
# A text's sentences are placed from anchors that may be a word off: a wider margin.
TEXT_PAD_S = 1.0
# A cue with a smaller share of its words heard is flagged: the audio probably does not say it.
MATCH_FLAG_BELOW = 0.3
# How far from a cue's times its words may be heard: caption times are often early or late by a second or two.
MATCH_SLACK_S = 2.0
# Whisper's decoder reads at most 448 positions: a window's text stays well inside them (a part of a cue, too).
MAX_WINDOW_TOKENS = 400
MAX_PART_TOKENS = 150
# A sentence of a text placed longer than this is cut (at word boundaries), so each fits a window with its margins.
MAX_TEXT_CUE_S = 20.0
# A text word with no anchor takes this much time beside its placed neighbours.
UNANCHORED_WORD_S = 0.35
# The most text an audio can be said to hold: three times the fastest speech (about 10 tokens a second, in Japanese),
# plus one window's worth for a short clip. Aligning costs about one pass per MAX_WINDOW_TOKENS, so a text far
# beyond this (100,000 emoji on a 10 s clip: 400,000 tokens) would take hours to place words the audio cannot hold.
MAX_TEXT_TOKENS_PER_S = 30
MIN_TEXT_TOKEN_ALLOWANCE = MAX_WINDOW_TOKENS

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_ENDS_SENTENCE = re.compile(r"[.!?。！？…][\"'”’»)\]]*$")
# Titles and short forms that end with a full stop inside a sentence (English and the other seven languages).
_ABBREVIATIONS = {"mr", "mrs", "ms", "dr", "prof", "st", "jr", "sr", "sra", "srta", "dra", "vs", "e.g", "i.e", "no", "nr", "mt", "hr", "fr", "mme", "mlle", "sig", "dott", "z.b", "bzw", "ca"}


@dataclass(frozen=True)
class Cue:
    start: float
    end: float
    text: str


@dataclass(frozen=True)
class Unit:
    """A word of a text (a character in scripts written without spaces), as written and normalised for matching."""

    surface: str
    key: str
    space_before: bool


# Written short forms matched as the words said: Whisper writes "Mr." where a text says "Mister" (and the other way
# round), and a sentence whose first word matched nothing was placed a word early, on the end of the one before.
_SPOKEN_FORMS = {"mr": "mister", "mrs": "missus", "dr": "doctor", "st": "saint", "jr": "junior", "vs": "versus"}


def normalise(text: str) -> str:
    key = "".join(ch for ch in unicodedata.normalize("NFKC", text).casefold() if ch.isalnum())
    return _SPOKEN_FORMS.get(key, key)


def units_of(text: str) -> list[Unit]:
    out: list[Unit] = []
    for token in text.split():
        if _CJK.search(token):
            for i, ch in enumerate(token):
                out.append(Unit(ch, normalise(ch), i == 0))
        else:
            out.append(Unit(token, normalise(token), True))
    return out


def surface(units: list[Unit]) -> str:
    return "".join((" " if u.space_before and i > 0 else "") + u.surface for i, u in enumerate(units))


def heard_units(words: list[RecognizedWord]) -> list[tuple[str, float, float]]:
    """The recognizer's words as units for matching, each with its start and end (the characters of a CJK word
    share its time evenly): what a cue is matched against, and the anchors a text is placed by."""
    out: list[tuple[str, float, float]] = []
    for w in words:
        us = [u for u in units_of(w["text"]) if u.key]
        for k, u in enumerate(us):
            span = (w["end"] - w["start"]) / len(us)
            out.append((u.key, w["start"] + k * span, w["start"] + (k + 1) * span))
    return out


def match_share(cue: Cue, heard: list[tuple[str, float, float]]) -> float | None:
    """The share of the cue's words the recognizer heard, in order, within MATCH_SLACK_S of the cue's times."""
    keys = [u.key for u in units_of(cue.text) if u.key]
    if not keys:
        return None
    near = [k for k, t, _end in heard if cue.start - MATCH_SLACK_S <= t <= cue.end + MATCH_SLACK_S]
    found = sum(b.size for b in difflib.SequenceMatcher(None, keys, near, autojunk=False).get_matching_blocks())
    return round(found / len(keys), 3)


@dataclass(frozen=True)
class _Part:
    start: float
    end: float
    text: str
    owner: int


def _pieces(unit: Unit, tokens_of: Callable[[str], int]) -> list[Unit]:
    """A unit the decoder cannot take in one part (a "word" of thousands of emoji or letters without a space) cut
    into runs of characters of at most MAX_PART_TOKENS tokens each; any other unit as it is."""
    if tokens_of(unit.surface) <= MAX_PART_TOKENS:
        return [unit]
    out: list[Unit] = []
    chars = list(unit.surface)
    at = 0
    while at < len(chars):
        # The longest run that fits, found by halving from a run that surely fits in characters (a character is at
        # most 4 bytes, and a byte-level BPE token covers at least one byte).
        take = min(len(chars) - at, MAX_PART_TOKENS // 4 * 4)
        while take > 1 and tokens_of("".join(chars[at : at + take])) > MAX_PART_TOKENS:
            take //= 2
        text = "".join(chars[at : at + take])
        out.append(Unit(text, normalise(text), unit.space_before and at == 0))
        at += take
    return out


def _parts(cues: list[Cue], pad: float, tokens_of: Callable[[str], int] = lambda t: len(t) // 4) -> list[_Part]:
    """Cues with text, a cue too long for one window (in time, or in tokens) cut into parts (by words, times
    shared out): about even, and none over MAX_PART_TOKENS tokens, so any text fits the decoder's positions."""
    longest = WINDOW_S - 2 * pad
    out: list[_Part] = []
    for i, c in enumerate(cues):
        units = [p for u in units_of(c.text) for p in _pieces(u, tokens_of)]
        if not units:
            continue
        span = max(0.0, c.end - c.start)
        n = max(1, int(np.ceil(span / longest)), int(np.ceil(tokens_of(c.text) / MAX_PART_TOKENS)))
        n = min(n, len(units))
        bounds = np.linspace(0, len(units), n + 1).astype(int)
        groups: list[list[Unit]] = []
        for k in range(n):
            groups += _within_tokens(units[bounds[k] : bounds[k + 1]], tokens_of)
        total = sum(len(g) for g in groups)
        done = 0
        for g in groups:
            out.append(_Part(c.start + span * done / total, c.start + span * (done + len(g)) / total, surface(g), i))
            done += len(g)
    return out


def _within_tokens(units: list[Unit], tokens_of: Callable[[str], int]) -> list[list[Unit]]:
    """`units` as one group when its text fits MAX_PART_TOKENS tokens, else cut greedily into groups that do
    (each unit fits on its own: _pieces)."""
    if tokens_of(surface(units)) <= MAX_PART_TOKENS:
        return [units]
    groups: list[list[Unit]] = [[]]
    used = 0
    for u in units:
        n = tokens_of(u.surface) + 1
        if groups[-1] and used + n > MAX_PART_TOKENS:
            groups.append([])
            used = 0
        groups[-1].append(u)
        used += n
    return groups


def windows(
    parts: list[_Part], duration: float, pad: float, tokens_of: Callable[[str], int] = lambda t: len(t) // 4
) -> list[tuple[float, float, list[int]]]:
    """Consecutive parts grouped while their audio (with margins) fits one window and their text the decoder's
    positions, cut at cue boundaries."""
    out: list[tuple[float, float, list[int]]] = []
    tokens = 0
    for i, p in enumerate(parts):
        a = max(0.0, p.start - pad)
        b = min(duration, max(p.end, p.start) + pad)
        n = tokens_of(p.text)
        if out:
            wa, wb, idx = out[-1]
            if max(wb, b) - min(wa, a) <= WINDOW_S and tokens + n <= MAX_WINDOW_TOKENS:
                out[-1] = (min(wa, a), max(wb, b), idx + [i])
                tokens += n
                continue
        out.append((a, max(a, b), [i]))
        tokens = n
    return out


def align_cues(
    decoder: Decoder,
    audio: np.ndarray,
    language: str,
    cues: list[Cue],
    heard: list[tuple[str, float, float]],
    pad: float = CUE_PAD_S,
    check_stop: Callable[[], None] | None = None,
    on_progress: Callable[[float], None] | None = None,
) -> list[AlignedCue]:
    """Every cue's words with times (seconds of `audio`) and its match against what the recognizer `heard`
    (heard_units); a cue with no text has neither, a cue past the end of the audio no words."""
    duration = len(audio) / SAMPLE_RATE
    tokenizer = decoder.tokenizer(language)

    def tokens_of(text: str) -> int:
        return len(tokenizer.encode(" " + text.strip()))

    parts = _parts(cues, pad, tokens_of)
    words: list[list[Word]] = [[] for _ in cues]
    for a, b, idx in windows(parts, duration, pad, tokens_of):
        if check_stop:
            check_stop()
        if b - a < 0.05:
            continue
        piece = audio[int(a * SAMPLE_RATE) : int(b * SAMPLE_RATE)]
        for i, aligned in zip(idx, decoder.align(piece, language, [parts[i].text for i in idx]), strict=True):
            words[parts[i].owner] += [Word(round(w.start + a, 3), round(w.end + a, 3), w.text, w.probability) for w in aligned]
        if on_progress:
            on_progress(b)
    out: list[AlignedCue] = []
    for c, ws in zip(cues, words, strict=True):
        has_text = any(u.key for u in units_of(c.text))
        out.append(
            {
                "words": [
                    TimedWord(start=w.start, end=max(w.start, w.end), text=w.text, confidence=round(min(1.0, max(0.0, w.probability)), 4))
                    for w in ws
                ],
                "match": match_share(c, heard) if has_text else None,
            }
        )
    return out


def sentences_of(text: str) -> list[list[Unit]]:
    """The text cut at line breaks and after sentence-ending punctuation (not after an abbreviation such as
    "Mr." or an initial); each sentence as units."""
    out: list[list[Unit]] = []
    for line in text.splitlines():
        current: list[Unit] = []
        for u in units_of(line):
            current.append(u)
            if _ENDS_SENTENCE.search(u.surface) and not _abbreviation(u.surface):
                out.append(current)
                current = []
        if current:
            out.append(current)
    return out


def _abbreviation(token: str) -> bool:
    word = token.rstrip(".").casefold()
    return token.endswith(".") and (word in _ABBREVIATIONS or (len(word) == 1 and word.isalpha()))


def hear(
    engine: Engine, audio: np.ndarray, language: str | None, stop: threading.Event | None, on_progress: Callable[[float], None] | None, trust_language: bool = False
) -> Json:
    """The audio recognised once with the fast profile: the anchors of a text and what every match is measured
    against. In the language it is spoken (detected; `language` when the detected one is not supported, or
    when `trust_language`): a caption track's label is not trusted, or English speech under a German track
    would be heard as a German translation and match it."""
    if trust_language and language is not None:
        return engine.recognize_audio(audio, RecognitionRequest(language=language, profile="fast"), stop, on_progress)
    try:
        return engine.recognize_audio(audio, RecognitionRequest(language=None, profile="fast"), stop, on_progress)
    except ServiceError as err:
        if err.code != "LANGUAGE_UNSUPPORTED" or language is None:
            raise
        return engine.recognize_audio(audio, RecognitionRequest(language=language, profile="fast"), stop, on_progress)


def align_captions(
    engine: Engine,
    audio: np.ndarray,
    language: str,
    cues: list[Cue],
    stop: threading.Event | None = None,
    on_progress: Callable[[float], None] | None = None,
) -> list[AlignedCue]:
    """A caption track's cues (in `language`) aligned to their audio: words with times and a match per cue."""
    duration = len(audio) / SAMPLE_RATE
    heard = heard_units(hear(engine, audio, language, stop, (lambda t: on_progress(t / 2)) if on_progress else None)["words"])
    return align_cues(
        engine.decoder,
        audio,
        language,
        cues,
        heard,
        check_stop=stop_check(stop),
        on_progress=(lambda t: on_progress(duration / 2 + t / 2)) if on_progress else None,
    )


def place_text(text: str, heard: list[tuple[str, float, float]], duration: float) -> list[Cue]:
    """The text's sentences as cues: each placed where its words matched the words heard (heard_units); a
    sentence with no match sits between its neighbours. A sentence placed longer than MAX_TEXT_CUE_S is cut."""
    sentences = sentences_of(text)
    flat = [(s, u) for s, units in enumerate(sentences) for u in units]
    anchor_keys = [k for k, _a, _b in heard]
    anchor_times = [(a, b) for _k, a, b in heard]
    text_keys = [u.key for _s, u in flat]
    at: list[tuple[float, float] | None] = [None] * len(flat)
    matcher = difflib.SequenceMatcher(None, text_keys, anchor_keys, autojunk=False)
    for block in matcher.get_matching_blocks():
        for k in range(block.size):
            if text_keys[block.a + k]:
                at[block.a + k] = anchor_times[block.b + k]
    # Unanchored units take the time of the anchored ones around them, a fixed step apart.
    times = _fill(at, duration)
    cues: list[Cue] = []
    i = 0
    for units in sentences:
        span = times[i : i + len(units)]
        start = 0
        for k in range(1, len(units) + 1):
            if k == len(units) or span[k][1] - span[start][0] > MAX_TEXT_CUE_S:
                cues.append(Cue(span[start][0], max(span[start][0], span[k - 1][1]), surface(units[start:k])))
                start = k
        i += len(units)
    return cues


def _fill(at: list[tuple[float, float] | None], duration: float) -> list[tuple[float, float]]:
    n = len(at)
    out: list[tuple[float, float]] = [(0.0, 0.0)] * n
    known = [k for k, t in enumerate(at) if t is not None]
    if not known:
        # No anchor at all: the words spread evenly over the audio.
        step = duration / max(1, n)
        return [(k * step, (k + 1) * step) for k in range(n)]
    for k in known:
        out[k] = at[k]  # type: ignore[assignment]
    for k in range(known[0] - 1, -1, -1):
        end = out[k + 1][0]
        out[k] = (max(0.0, end - UNANCHORED_WORD_S), end)
    for k in range(known[-1] + 1, n):
        start = out[k - 1][1]
        out[k] = (start, min(duration, start + UNANCHORED_WORD_S))
    for lo, hi in itertools.pairwise(known):
        gap = hi - lo - 1
        if gap <= 0:
            continue
        a, b = out[lo][1], out[hi][0]
        step = max(0.0, b - a) / gap
        for j in range(gap):
            out[lo + 1 + j] = (a + j * step, a + (j + 1) * step)
    return out


def text_segments(cues: list[Cue], aligned: list[AlignedCue]) -> list[AlignedSegment]:
    """Segments of an aligned text: one per placed sentence (or its cut parts), timed by its words."""
    out: list[AlignedSegment] = []
    for c, r in zip(cues, aligned, strict=True):
        ws = r["words"]
        start = ws[0]["start"] if ws else c.start
        end = ws[-1]["end"] if ws else c.end
        out.append({"start": round(start, 3), "end": round(max(start, end), 3), "text": c.text, "words": ws, "match": r["match"]})
    return out


def text_token_allowance(duration: float) -> int:
    """The most tokens (the model's tokenizer) an `align_text` may have for `duration` seconds of audio."""
    return int(MAX_TEXT_TOKENS_PER_S * duration) + MIN_TEXT_TOKEN_ALLOWANCE


def align_text(
    engine: Engine,
    audio: np.ndarray,
    text: str,
    language: str | None,
    stop: threading.Event | None = None,
    on_progress: Callable[[float], None] | None = None,
) -> Json:
    """A user's text aligned to its audio (`align_text`): segments (one per sentence) with their words and match.
    A text longer than the audio could say (text_token_allowance) is refused before any work, for good."""
    duration = len(audio) / SAMPLE_RATE
    tokens = len(engine.decoder.tokenizer(language).encode(" " + text.strip()))
    allowance = text_token_allowance(duration)
    if tokens > allowance:
        raise ServiceError(
            "INVALID_REQUEST",
            "align_text",
            f"align_text is {tokens} tokens, more than {duration:.1f} s of audio can say (at most {allowance}: "
            f"{MAX_TEXT_TOKENS_PER_S} a second and {MIN_TEXT_TOKEN_ALLOWANCE} more): send the text spoken in this media.",
        )
    # The anchors' progress counts as the first half of the work, the alignment as the second.
    anchors = hear(engine, audio, language, stop, (lambda t: on_progress(t / 2)) if on_progress else None, trust_language=True)
    # The text's language when given; else the one heard.
    aligned_language = language or anchors.get("language") or "en"
    heard = heard_units(anchors["words"])
    cues = place_text(text, heard, duration)
    aligned = align_cues(
        engine.decoder,
        audio,
        aligned_language,
        cues,
        heard,
        pad=TEXT_PAD_S,
        check_stop=stop_check(stop),
        on_progress=(lambda t: on_progress(duration / 2 + t / 2)) if on_progress else None,
    )
    segments = text_segments(cues, aligned)
    return {
        "language": aligned_language,
        "duration": round(duration, 3),
        "segments": segments,
    }


def stop_check(stop: threading.Event | None) -> Callable[[], None]:
    def check() -> None:
        if stop is not None and stop.is_set():
            raise Stopped()

    return check
