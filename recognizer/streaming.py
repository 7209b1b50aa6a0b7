"""Real-time recognition of one stream of 16 kHz audio (issue 54, item 3): partial segments while an utterance is
being spoken, one final segment when it ends.

The stream is cut into utterances by Silero VAD as the audio arrives: an utterance starts at speech and ends after
END_SILENCE_S of pause (or is cut where it is at MAX_UTTERANCE_S). While it lasts, it is decoded
again whenever PARTIAL_EVERY_S of new audio has come and the decoder is free (greedy, temperature 0: a partial is a
glimpse, replaced by the next), but not in a pause, where it would hear nothing new. Once it has paused for
SETTLING_S it is decoded with the final profile, and that text is given out as final when the pause reaches
END_SILENCE_S (dropped if speech resumes first). A final that fails Whisper's checks on its short window is decoded
again on 30 s with the temperature fallback.
Times are seconds from the stream's first sample.

Whisper is trained on 30 s windows and faster-whisper pads every window to 30 s, so each decode would cost a whole
encoder pass (about 1 s on two cores with base). The encoder is given the utterance with a margin instead, at least
MIN_WINDOW_S for a partial and a final alike: measured on the 19 clips of the evaluation set under
25 s in spaced languages (greedy), 0.95 s a clip at 15 s against 1.71 s padded to 30 s, WER 19.1 % against 17.9 %
(8 s: 0.76 s, 19.9 %). Cut to the utterance exactly, with no margin, Whisper heard nothing in two clips of four.
A final (beam 3) reads 8 s about as well as 15 s once a failed final is decoded again on 30 s: on 39 clips, 16.6 % WER
against 16.9 %; in the bench's 115 clips, finals 1.41 s p50 against 1.72 s, WER 18.0 % against 17.5 % (through the
endpoint 16.9 % against 17.7 %: inside the noise between runs).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

import ctranslate2
import numpy as np

from .decoding import FRAMES_PER_SECOND, PROFILES, Decoder, Profile
from .speech import NEG_THRESHOLD, SAMPLE_RATE, THRESHOLD, VAD_FRAME, WINDOW_S, speech_probabilities

# A pause this long after speech ends the utterance.
END_SILENCE_S = 0.5
# An utterance this long is cut (Whisper reads 30 s at most; long ones also make every partial slower).
MAX_UTTERANCE_S = 20.0
# New audio an utterance needs before it is decoded again as a partial.
PARTIAL_EVERY_S = 0.5
# Audio kept before the first speech frame and after the last, so the first and last words are whole.
PAD_S = 0.2
# Silero is run on at least this much audio before the frames it judges (its state needs context).
VAD_CONTEXT_S = 1.0

# The shortest encoder input of a decode, partial or final (the utterance plus ENCODER_MARGIN_S when longer).
MIN_WINDOW_S = 8.0
ENCODER_MARGIN_S = 1.0
# Speech a language is detected on before it is kept for the stream (a final keeps it whatever its length).
DETECT_KEEP_S = 5.0
# After this much pause the utterance has likely ended: its final is decoded then (and given out once the pause
# reaches END_SILENCE_S), instead of a partial, so the final is ready about a decode after the speech.
SETTLING_S = 0.2

PARTIAL_PROFILE = Profile("partial", beam_size=1, temperatures=(0.0,), batch=1, timestamp_tokens=False)
# A final that fails Whisper's checks at temperature 0 is decoded again with its own profile and the temperature
# fallback of the file pipeline's standard profile.
RETRY_TEMPERATURES = PROFILES["standard"].temperatures


@dataclass
class StreamSegment:
    kind: Literal["partial", "final"]
    seq: int  # the utterance's number, from 0: a final replaces every partial of the same seq
    start: float
    end: float
    text: str
    language: str
    # The stream's clock (StreamRecognizer.clock, else the seconds of audio received) when this was given out: its
    # latency is `ready_at` minus `speech_end`.
    ready_at: float
    # The end of the last word heard in it (seconds from the stream's start).
    speech_end: float


@dataclass
class _Utterance:
    start: int  # sample where its audio starts (with PAD_S before the first speech)
    last_speech: int  # sample where its last speech frame ends
    partial_at: int = 0  # samples the last partial covered
    seq: int = 0


@dataclass
class StreamRecognizer:
    """One stream's state. Not thread-safe: one caller feeds it and asks it to advance."""

    decoder: Decoder
    language: str | None
    final_profile: Profile
    partial_profile: Profile = PARTIAL_PROFILE
    # Where the stream is, in seconds of audio: the default counts the samples received; a real-time caller that
    # wants latency measured against the wall clock passes its own.
    clock: Callable[[], float] | None = None
    audio: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.float32))
    # Samples of `audio` dropped from its front (audio before the current utterance is not kept).
    dropped: int = 0
    judged: int = 0  # samples the VAD has judged
    utterance: _Utterance | None = None
    next_seq: int = 0
    decodes: int = 0  # decodes run so far (partials and finals, with or without text)
    _speaking: bool = False
    # The final decoded early, at the pause, keyed by the utterance and the end of its speech it was decoded for.
    _early: tuple[tuple[int, int], StreamSegment | None] | None = None

    def received(self) -> float:
        return (self.dropped + len(self.audio)) / SAMPLE_RATE

    def now(self) -> float:
        return self.clock() if self.clock else self.received()

    def feed(self, pcm16: bytes) -> None:
        """Appends little-endian 16-bit mono samples at 16 kHz."""
        samples = np.frombuffer(pcm16[: len(pcm16) - len(pcm16) % 2], dtype="<i2").astype(np.float32) / 32768.0
        self.audio = np.concatenate([self.audio, samples])

    def advance(self) -> list[StreamSegment]:
        """Reads what arrived since the last call: the utterance that ended (a final), else a partial of the one
        being spoken when enough new audio came."""
        self._judge()
        u = self.utterance
        if u is None:
            return []
        total = self.dropped + len(self.audio)
        silence = (total - u.last_speech) / SAMPLE_RATE
        end = u.last_speech + int(PAD_S * SAMPLE_RATE)
        if not self._speaking and silence >= END_SILENCE_S:
            return self._finish(end)
        if (u.last_speech - u.start) / SAMPLE_RATE >= MAX_UTTERANCE_S:
            return self._finish(u.last_speech)
        if not self._speaking and silence >= SETTLING_S:
            # The utterance has likely ended: its final is decoded now, while the pause is confirmed, and given out
            # once it is (kept for this end of speech only: speech that resumes makes it stale).
            if self._early is None or self._early[0] != (u.seq, u.last_speech):
                self._early = ((u.seq, u.last_speech), self._decode(u, end, "final", self.final_profile))
            return []
        if not self._speaking:
            # A pause too short to settle: nothing new was said, and a partial decoded now would hold the decoder
            # when the final is due (finals p50 on 39 eval clips in one run: 1.72 s with such partials, 1.46 s
            # without).
            return []
        if (total - max(u.partial_at, u.start)) / SAMPLE_RATE < PARTIAL_EVERY_S:
            return []
        u.partial_at = total
        segment = self._decode(u, total, "partial", self.partial_profile)
        return [segment] if segment else []

    def close(self) -> list[StreamSegment]:
        """The end of the stream: the utterance being spoken, if any, is final."""
        self._judge(flush=True)
        if self.utterance is None:
            return []
        return self._finish(self.dropped + len(self.audio))

    def _judge(self, flush: bool = False) -> None:
        """Runs the VAD over the frames not judged yet and opens or extends the utterance."""
        total = self.dropped + len(self.audio)
        frames = (total - self.judged) // VAD_FRAME
        if flush and (total - self.judged) % VAD_FRAME:
            frames += 1
        if frames <= 0:
            return
        context = int(VAD_CONTEXT_S * SAMPLE_RATE) // VAD_FRAME * VAD_FRAME
        begin = max(self.dropped, self.judged - context)
        window = self.audio[begin - self.dropped : self.judged + frames * VAD_FRAME - self.dropped]
        probs = speech_probabilities(window)
        skip = (self.judged - begin) // VAD_FRAME
        for i, p in enumerate(probs[skip : skip + frames]):
            frame_start = self.judged + i * VAD_FRAME
            if p >= THRESHOLD:  # speech starts and ends with hysteresis, as speech.py reads it
                self._speaking = True
            elif p < NEG_THRESHOLD:
                self._speaking = False
            if self._speaking:
                if self.utterance is None:
                    start = max(self.dropped, frame_start - int(PAD_S * SAMPLE_RATE))
                    self.utterance = _Utterance(start=start, last_speech=frame_start, seq=self.next_seq)
                    self.next_seq += 1
                self.utterance.last_speech = frame_start + VAD_FRAME
        self.judged += frames * VAD_FRAME
        if self.utterance is None:
            # Nothing to keep but the padding and the VAD's context before the next speech.
            keep = max(int(PAD_S * SAMPLE_RATE), context)
            cut = max(0, len(self.audio) - keep)
            self.audio = self.audio[cut:]
            self.dropped += cut

    def _finish(self, end: int) -> list[StreamSegment]:
        u = self.utterance
        assert u is not None
        end = min(end, self.dropped + len(self.audio))
        early = self._early
        self._early = None
        if early is not None and early[0] == (u.seq, u.last_speech) and end == u.last_speech + int(PAD_S * SAMPLE_RATE):
            segment = early[1]
            if segment is not None:
                segment.ready_at = round(self.now(), 3)
        else:
            segment = self._decode(u, end, "final", self.final_profile)
        # The audio after the cut stays for the next utterance; the VAD reads it again from there.
        self.utterance = None
        cut = end - self.dropped
        self.audio = self.audio[cut:]
        self.dropped = end
        self.judged = max(self.judged, end)
        return [segment] if segment else []

    def _decode(self, u: _Utterance, end: int, kind: Literal["partial", "final"], profile: Profile) -> StreamSegment | None:
        audio = self.audio[u.start - self.dropped : end - self.dropped]
        if len(audio) < VAD_FRAME:
            return None
        self.decodes += 1
        language = self.language or self._detect(audio, keep=kind == "final" or len(audio) >= DETECT_KEEP_S * SAMPLE_RATE)
        decoded = self.decoder.decode(audio, language, profile, encoding=self._encode(audio), fallback=False)
        if decoded.failed and kind == "final":
            # Temperature 0 on the short window failed Whisper's checks (a loop such as "las las las …", or a very
            # unsure text): the final is decoded again as Whisper was trained, on 30 s, with the temperature fallback.
            # Rare, so the median latency does not pay for it.
            retry = dataclasses.replace(profile, name="final-retry", temperatures=RETRY_TEMPERATURES)
            decoded = self.decoder.decode(audio, language, retry, fallback=True)
        text = "".join(w.text for w in decoded.words).strip()
        ready = self.now()
        if not text:
            return None
        offset = u.start / SAMPLE_RATE
        last_word_end = offset + max(w.end for w in decoded.words)
        start = offset + min(w.start for w in decoded.words)
        return StreamSegment(
            kind=kind,
            seq=u.seq,
            start=round(start, 3),
            end=round(last_word_end, 3),
            text=text,
            language=language,
            ready_at=round(ready, 3),
            speech_end=round(last_word_end, 3),
        )

    def _encode(self, audio: np.ndarray) -> ctranslate2.StorageView:
        """The encoder output of `audio` given at least MIN_WINDOW_S seconds (silence after it), at most 30 s."""
        seconds = max(MIN_WINDOW_S, len(audio) / SAMPLE_RATE + ENCODER_MARGIN_S)
        if seconds >= WINDOW_S:
            return self.decoder.encode(self.decoder.features(audio))
        padded = np.pad(audio, (0, int(seconds * SAMPLE_RATE) - len(audio)))
        frames = int(seconds * FRAMES_PER_SECOND)
        frames += frames % 2  # the encoder's convolution halves the frames
        return self.decoder.encode_frames(self.decoder.features(padded)[:, :frames])

    def _detect(self, audio: np.ndarray, keep: bool) -> str:
        """The language of `audio`; kept for the rest of the stream once it is heard on a whole utterance (its final)
        or on DETECT_KEEP_S of speech. A first partial holds half a second of speech, on which Whisper's guess is
        often wrong (measured: es and de read as English, pt as Japanese, each then decoded in that language)."""
        from .languages import choose_detected

        probs = self.decoder.languages(self.decoder.encode(self.decoder.features(audio)))[0]
        chosen, _p, _top, _tp = choose_detected(probs)
        if keep:
            self.language = chosen or "en"
        return chosen or "en"


def simulate_real_time(
    recognizer: StreamRecognizer, audio: np.ndarray, chunk_s: float = 0.1, decode_cost_s: float | None = None
) -> tuple[list[StreamSegment], float]:
    """Streams `audio` through `recognizer` as a real-time client would, without waiting: the stream's clock is the
    audio sent so far, and each decode moves it on by the seconds the decode took (the audio a real client would
    have sent meanwhile), or by `decode_cost_s` a decode when given (a clock that does not depend on the machine's
    speed or load, for tests). Returns the segments and the seconds spent decoding."""
    sent = 0
    clock = [0.0]
    recognizer.clock = lambda: clock[0]
    chunk = int(chunk_s * SAMPLE_RATE)
    busy = 0.0
    segments: list[StreamSegment] = []
    pcm = (np.clip(audio, -1.0, 1.0) * 32767).astype("<i2")

    def step(work: Callable[[], list[StreamSegment]]) -> None:
        nonlocal busy
        decodes, t0 = recognizer.decodes, time.monotonic()
        out = work()
        spent = time.monotonic() - t0
        busy += spent
        clock[0] += spent if decode_cost_s is None else decode_cost_s * (recognizer.decodes - decodes)
        for s in out:
            s.ready_at = round(clock[0], 3)
        segments.extend(out)

    while sent < len(pcm):
        # Everything the client has sent by now is in.
        until = min(len(pcm), max(sent + chunk, int(clock[0] * SAMPLE_RATE)))
        recognizer.feed(pcm[sent:until].tobytes())
        sent = until
        clock[0] = max(clock[0], sent / SAMPLE_RATE)
        step(recognizer.advance)
    step(recognizer.close)
    return segments, busy
