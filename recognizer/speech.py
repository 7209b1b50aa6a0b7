"""Where the speech is: Silero VAD (bundled with faster-whisper) once per piece, read at two scales.

- Regions: speech separated by pauses of at least 0.3 s. The units of
  language identification, of coverage (every region must be heard) and of
  the speaker windows.
- Spans: regions closer than 2 s joined, with the pauses between them kept.
  What the decoder sees: it is given speech as it was spoken, with its
  pauses, but not the long silences, noise and music between (those are where
  Whisper invents words).

Windows pack spans into the 30 s Whisper decodes at once. A long gap (5 s or
more) ends a window once it holds 5 s of speech: measured on the composed
set, sentences packed across long gaps lost words that they kept decoded
apart (WER 13.9 % against 12.1 %), while packing short gaps saves encoder
passes. A span that does not fit whole gives the window its leading regions
(pack_windows).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

SAMPLE_RATE = 16_000
VAD_FRAME = 512  # Silero's frame: 32 ms
VAD_FRAME_S = VAD_FRAME / SAMPLE_RATE
THRESHOLD = 0.5
NEG_THRESHOLD = 0.35
REGION_GAP_S = 0.3
REGION_PAD_S = 0.2
SPAN_GAP_S = 2.0
SPAN_PAD_S = 0.4
WINDOW_S = 30.0
# A region longer than this is cut at its least speech-like frame (Whisper reads at most 30 s).
MAX_REGION_S = 25.0
# A pause this long ends a window that has BREAK_MIN_SPEECH_S of speech (music, noise or silence between
# unrelated speech). Shorter pauses (a speaker's breath, a clip's lead-in) are packed into the same window:
# at 2 s each clip of the profile measurement was a window of its own, and 5 s took the standard profile
# from 1.29x to 1.12x faster-whisper's own beam-5 transcribe, with every set target still met.
BREAK_GAP_S = 5.0
BREAK_MIN_SPEECH_S = 5.0


def speech_probabilities(audio: np.ndarray) -> np.ndarray:
    """Silero's speech probability of every 32 ms frame."""
    from faster_whisper.vad import get_vad_model

    if len(audio) == 0:
        return np.zeros(0, dtype=np.float32)
    padded = np.pad(audio.astype(np.float32), (0, VAD_FRAME - len(audio) % VAD_FRAME))
    return np.asarray(get_vad_model()(padded), dtype=np.float32).reshape(-1)


def speech_runs(probs: np.ndarray, threshold: float = THRESHOLD, neg_threshold: float = NEG_THRESHOLD) -> list[tuple[int, int]]:
    """Frame ranges of speech, with hysteresis: a run starts at `threshold` and ends below `neg_threshold`."""
    runs, start = [], None
    for i, p in enumerate(probs):
        if start is None and p >= threshold:
            start = i
        elif start is not None and p < neg_threshold:
            runs.append((start, i))
            start = None
    if start is not None:
        runs.append((start, len(probs)))
    return runs


def _split_long(run: tuple[int, int], probs: np.ndarray, max_frames: int) -> list[tuple[int, int]]:
    a, b = run
    out = []
    while b - a > max_frames:
        # Cut at the least speech-like frame of the run's last third before the limit.
        lo = a + (2 * max_frames) // 3
        cut = lo + int(np.argmin(probs[lo : a + max_frames]))
        out.append((a, cut))
        a = cut
    out.append((a, b))
    return out


@dataclass
class SpeechMap:
    duration: float
    # Regions (seconds), padded, in order, never overlapping.
    regions: list[tuple[float, float]]
    # Spans: (start, end, indices of their regions).
    spans: list[tuple[float, float, list[int]]] = field(default_factory=list)

    @property
    def speech_seconds(self) -> float:
        return sum(b - a for a, b in self.regions)


def map_speech(audio: np.ndarray, probs: np.ndarray | None = None) -> SpeechMap:
    duration = len(audio) / SAMPLE_RATE
    probs = speech_probabilities(audio) if probs is None else probs
    runs: list[tuple[int, int]] = []
    for run in speech_runs(probs):
        runs += _split_long(run, probs, int(MAX_REGION_S / VAD_FRAME_S))
    # Runs closer than REGION_GAP_S are one region.
    joined: list[list[int]] = []
    for a, b in runs:
        if joined and (a - joined[-1][1]) * VAD_FRAME_S < REGION_GAP_S and (b - joined[-1][0]) * VAD_FRAME_S <= MAX_REGION_S:
            joined[-1][1] = b
        else:
            joined.append([a, b])
    secs = [(a * VAD_FRAME_S, min(duration, b * VAD_FRAME_S)) for a, b in joined]
    regions = _pad(secs, REGION_PAD_S, duration)
    spans: list[tuple[float, float, list[int]]] = []
    for i, (start, end) in enumerate(regions):
        if spans and start - spans[-1][1] < SPAN_GAP_S and end - spans[-1][0] <= WINDOW_S:
            s = spans[-1]
            spans[-1] = (s[0], end, s[2] + [i])
        else:
            spans.append((start, end, [i]))
    # Spans are padded further into the silence around them (not into a neighbour).
    padded = _pad([(a, b) for a, b, _ in spans], SPAN_PAD_S - REGION_PAD_S, duration)
    spans = [(pa, pb, idx) for (pa, pb), (_, _, idx) in zip(padded, spans, strict=True)]
    return SpeechMap(duration=duration, regions=regions, spans=spans)


def _pad(ranges: list[tuple[float, float]], pad: float, duration: float) -> list[tuple[float, float]]:
    out = []
    for i, (a, b) in enumerate(ranges):
        lo = 0.0 if i == 0 else (ranges[i - 1][1] + a) / 2
        hi = duration if i == len(ranges) - 1 else (b + ranges[i + 1][0]) / 2
        out.append((round(max(lo, a - pad), 3), round(min(hi, b + pad), 3)))
    return out


def pack_windows(m: SpeechMap) -> list[list[tuple[float, float, list[int]]]]:
    """The decoding windows: each a list of (start, end, region indices) stretches, spans or parts of spans, of at
    most 30 s of audio in all; a long gap ends a window that has 5 s of speech. A span that does not fit whole
    gives the window its leading regions that fit (cut at a pause between regions, as a span longer than 30 s is)
    and the next window the rest: packing whole spans left windows of 8 s beside spans of 30 s: 30 windows for
    the profile measurement's long speech, where this packing makes 26 (25 would be the fewest)."""
    windows: list[list[tuple[float, float, list[int]]]] = []
    length = 0.0
    for a, b, idx in m.spans:
        if windows and not (a - windows[-1][-1][1] >= BREAK_GAP_S and length >= BREAK_MIN_SPEECH_S):
            if length + (b - a) <= WINDOW_S:
                windows[-1].append((a, b, idx))
                length += b - a
                continue
            fit = [j for j in range(1, len(idx)) if length + (m.regions[idx[j - 1]][1] - a) <= WINDOW_S]
            if fit:
                j = fit[-1]
                windows[-1].append((a, m.regions[idx[j - 1]][1], idx[:j]))
                a, idx = m.regions[idx[j]][0], idx[j:]
        windows.append([(a, b, idx)])
        length = b - a
    return windows
