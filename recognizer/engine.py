"""Whisper through faster-whisper (CTranslate2): one model per process, loaded once.

`Engine.recognize` takes one piece of 16 kHz mono audio and returns the raw
result the TypeScript side finishes (integrations/recognizers/whisper.ts):
words with start, end and confidence, Whisper's segments, the language (as
asked, or detected with its probability). Times are seconds from the start of
the piece. Steps, the same as faster-whisper's own `vad_filter=True` path but
with the voice-activity result kept, so that "no speech" is a decision here
rather than an empty guess:

1. Silero VAD (bundled with faster-whisper) finds the speech; none → an empty
   result with `no_speech: true` (the job fails with NO_SPEECH only when no
   piece of the recording had speech: integrations/media/split.ts `stitch`).
2. Only the speech is kept and, with no language asked, Whisper's language
   identification runs on its first 30 s. A best guess outside the nine
   supported languages is LANGUAGE_UNSUPPORTED (languages.choose_detected).
3. Beam-search transcription with word timestamps; times are mapped back
   from the speech-only audio to the piece.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import wave
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .errors import ServiceError
from .languages import SUPPORTED, choose_detected, primary_language
from .model import ModelSpec, verify_model

SAMPLE_RATE = 16_000
log = logging.getLogger("recognizer.engine")


@dataclass(frozen=True)
class EngineSettings:
    device: str = "cpu"
    compute_type: str = "int8"
    # Threads per transcription (CTranslate2 intra_threads).
    threads: int = 2
    # Transcriptions that may run at once in this process (CTranslate2 inter_threads).
    workers: int = 1
    beam_size: int = 5

    @staticmethod
    def from_env(env: dict[str, str] | None = None) -> "EngineSettings":
        env = dict(os.environ) if env is None else env
        device = env.get("WHISPER_DEVICE", "cpu").strip() or "cpu"
        workers = max(1, int(env.get("RECOGNIZER_CONCURRENCY", "1") or 1))
        cores = os.cpu_count() or 1
        threads = int(env.get("WHISPER_THREADS", "0") or 0) or max(1, cores // workers)
        compute = env.get("WHISPER_COMPUTE_TYPE", "").strip() or ("int8" if device == "cpu" else "default")
        beam = int(env.get("WHISPER_BEAM_SIZE", "5") or 5)
        return EngineSettings(device=device, compute_type=compute, threads=threads, workers=workers, beam_size=beam)


class Stopped(Exception):
    """The caller gave up on this recognition (its activity was cancelled or timed out)."""


def read_audio(path: str) -> np.ndarray:
    """16 kHz mono float32 samples. The pipeline's pieces are 16 kHz mono PCM wav (integrations/media/convert.ts),
    read directly; anything else is decoded with PyAV (bundled with faster-whisper)."""
    try:
        with wave.open(path, "rb") as w:
            if w.getframerate() == SAMPLE_RATE and w.getnchannels() == 1 and w.getsampwidth() == 2:
                frames = w.readframes(w.getnframes())
                return np.frombuffer(frames, dtype="<i2").astype(np.float32) / 32768.0
    except (wave.Error, EOFError):
        pass
    from faster_whisper.audio import decode_audio

    try:
        return decode_audio(path, sampling_rate=SAMPLE_RATE)
    except Exception as err:  # PyAV raises its own error classes
        raise ServiceError("PROVIDER_REJECTED", f"audio could not be decoded: {err}") from err


class Engine:
    def __init__(self, spec: ModelSpec, settings: EngineSettings | None = None):
        from faster_whisper import WhisperModel

        self.spec = spec
        self.settings = settings or EngineSettings()
        t0 = time.monotonic()
        verify_model(spec)
        self.verify_seconds = time.monotonic() - t0
        t1 = time.monotonic()
        self.model = WhisperModel(
            str(spec.path),
            device=self.settings.device,
            compute_type=self.settings.compute_type,
            cpu_threads=self.settings.threads,
            num_workers=self.settings.workers,
            local_files_only=True,
        )
        self.load_seconds = time.monotonic() - t1
        if not self.model.model.is_multilingual:
            log.warning("model %s is English-only: every language but en is refused", spec.name)

    @property
    def name(self) -> str:
        return self.spec.name

    def warm_up(self) -> None:
        """Loads the VAD model and runs the encoder once, so the first real piece pays for neither."""
        from faster_whisper.vad import get_speech_timestamps

        get_speech_timestamps(np.zeros(SAMPLE_RATE, dtype=np.float32))
        self.model.detect_language(audio=np.zeros(SAMPLE_RATE, dtype=np.float32))

    def recognize(
        self,
        path: str,
        language: str | None = None,
        stop: threading.Event | None = None,
        on_segment: Callable[[float], None] | None = None,
    ) -> dict:
        """Recognises the audio file at `path`; `language` is a BCP 47 hint or None to detect.

        `stop` is checked between segments (raises Stopped); `on_segment` gets the
        end time of each segment as it is decoded.
        """
        asked = primary_language(language)
        if asked is not None and asked not in SUPPORTED:
            raise ServiceError(
                "LANGUAGE_UNSUPPORTED",
                f"language={language} is not supported by {self.name} (supported: {', '.join(sorted(SUPPORTED))})",
            )
        if asked is not None and asked != "en" and not self.model.model.is_multilingual:
            raise ServiceError("LANGUAGE_UNSUPPORTED", f"language={language}: {self.name} is an English-only model")
        audio = read_audio(path)
        return self.recognize_audio(audio, asked, stop=stop, on_segment=on_segment)

    def recognize_audio(
        self,
        audio: np.ndarray,
        language: str | None,
        stop: threading.Event | None = None,
        on_segment: Callable[[float], None] | None = None,
    ) -> dict:
        from faster_whisper.transcribe import restore_speech_timestamps
        from faster_whisper.vad import VadOptions, collect_chunks, get_speech_timestamps

        t0 = time.monotonic()
        duration = len(audio) / SAMPLE_RATE
        result = {
            "model": self.name,
            "language": language,
            "language_probability": None,
            "detected_language": None,
            "duration": round(duration, 3),
            "speech_duration": 0.0,
            "no_speech": True,
            "text": "",
            "segments": [],
            "words": [],
            "recognize_seconds": 0.0,
        }
        speech_chunks = get_speech_timestamps(audio, VadOptions()) if len(audio) > 0 else []
        if not speech_chunks:
            result["recognize_seconds"] = round(time.monotonic() - t0, 3)
            return result
        speech = np.concatenate(collect_chunks(audio, speech_chunks)[0], axis=0)
        result["speech_duration"] = round(len(speech) / SAMPLE_RATE, 3)

        if language is None:
            if self.model.model.is_multilingual:
                _, _, all_probs = self.model.detect_language(audio=speech)
                chosen, p, top, top_p = choose_detected(all_probs)
                result["detected_language"] = top
                if chosen is None:
                    raise ServiceError(
                        "LANGUAGE_UNSUPPORTED",
                        f"detected language={top} (probability {top_p:.2f}) is not supported by {self.name} "
                        f"(supported: {', '.join(sorted(SUPPORTED))}); give a language to override",
                        message="AI transcription does not support the spoken language.",
                    )
                language, probability = chosen, p
            else:
                language, probability = "en", 1.0
            result["language"] = language
            result["language_probability"] = round(probability, 4)

        segments, _info = self.model.transcribe(
            speech,
            language=language,
            beam_size=self.settings.beam_size,
            word_timestamps=True,
            vad_filter=False,  # done above, on the whole piece
        )
        words: list[dict] = []
        out_segments: list[dict] = []
        texts: list[str] = []
        for seg in restore_speech_timestamps(segments, speech_chunks, SAMPLE_RATE):
            if stop is not None and stop.is_set():
                raise Stopped()
            seg_words = [w for w in (seg.words or []) if w.word.strip() != ""]
            if seg.text.strip() == "" and not seg_words:
                continue
            texts.append(seg.text)
            out_segments.append({"start": round(seg.start, 3), "end": round(seg.end, 3), "text": seg.text.strip()})
            for w in seg_words:
                words.append(
                    {
                        "start": round(float(w.start), 3),
                        "end": round(float(w.end), 3),
                        # Leading space kept: it tells where words begin in languages written without spaces.
                        "text": w.word,
                        "confidence": round(min(1.0, max(0.0, float(w.probability))), 4),
                    }
                )
            if on_segment is not None:
                on_segment(float(seg.end))
        result["segments"] = out_segments
        result["words"] = words
        result["text"] = "".join(texts).strip()
        result["no_speech"] = len(words) == 0
        result["recognize_seconds"] = round(time.monotonic() - t0, 3)
        return result
