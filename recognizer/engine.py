"""Whisper through faster-whisper (CTranslate2): one model per process, loaded once.

`Engine.recognize` takes one piece of 16 kHz mono audio and returns the raw
result the TypeScript side finishes (integrations/recognizers/whisper.ts).
Times are seconds from the start of the piece. The steps, each measured on
the sets of bench/sets (RESULTS.md says by how much):

1. The level is evened out (audio.even_level): quiet speakers next to loud
   ones are heard, by the voice detector and by Whisper.
2. Silero VAD maps the speech (speech.map_speech): regions, and spans of
   regions with their short pauses. No speech: an empty result with
   `no_speech: true` (the job fails with NO_SPEECH only when no piece of the
   recording had speech: integrations/media/split.ts `stitch`). Only speech
   is decoded, so silence, noise and music between speech give no words.
3. Spans are packed into windows of at most 30 s. With no language asked,
   each window's language comes from the encoder output its decoding uses
   anyway, and every region of the window gets a cheap opinion of its own;
   a region that disagrees is checked on its own encoder pass and, when it
   is another language, decoded in that language: a sentence of Spanish in
   English speech is written in Spanish, never translated.
4. Each window is decoded (the profile's beam, the vocabulary as
   hotwords) with word times; a region of speech that came out with no
   words, or far too few for its length, is decoded again on its own
   (Whisper skips turns, and sentences inside long windows).
5. With speaker labels asked for, the voice embedding of every 1.6 s of
   speech goes with the result (speakers.py); the job clusters them all.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import re
import threading
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypedDict

import numpy as np

from .audio import SAMPLE_RATE, even_level, read_audio, steady_gain
from .decoding import DEFAULT_PROFILE, PROFILES, BatchItem, Decoded, Decoder, Profile, Word
from .errors import ServiceError
from .job_spec import JobSpec
from .languages import SUPPORTED, choose_detected, primary_language
from .model import ModelSpec, verify_model
from .speech import SpeechMap, map_speech, pack_windows
from .tracing import stage
from .wire import Json, LanguageSeconds, RecognizedWord, SpeechRegion

if TYPE_CHECKING:  # loaded on first use: speaker labels are asked for by few jobs
    from .speakers import SpeakerEncoder

log = logging.getLogger("recognizer.engine")

# A region whose own encoder pass names a language other than its window's, with at least this
# probability, is decoded in it; shorter islands of speech than ISLAND_MIN_S keep their window's
# language (Whisper's language identification on a second of speech is a guess). Measured on the
# evaluation sets: true switches came out at 0.97 to 1.0, Spanish heard as Portuguese at 0.64.
SWITCH_MIN_PROBABILITY = 0.85
ISLAND_MIN_S = 1.2
# A region with at least this much speech and fewer words than REPAIR_WORDS_PER_S per second of it (none, or one
# stray word of a neighbour: Whisper skipped the sentence) is decoded again on its own. Speech runs at 2 to 3
# words a second; 0.4 is a region of 5 s holding at most 2 words.
REPAIR_MIN_S = 0.8
REPAIR_WORDS_PER_S = 0.4
SPEAKER_WINDOW_HOP_S = 0.6
MAX_VOCABULARY_TERMS = 100


@dataclass(frozen=True)
class EngineSettings:
    device: str = "cpu"
    compute_type: str = "int8"
    # Threads per transcription (CTranslate2 intra_threads).
    threads: int = 2
    # Transcriptions that may run at once in this process (CTranslate2 inter_threads).
    workers: int = 1
    # Beam of the standard profile (WHISPER_BEAM_SIZE); fast's is fixed (decoding.PROFILES).
    beam_size: int = 5

    @staticmethod
    def from_env(env: dict[str, str] | None = None) -> EngineSettings:
        env = dict(os.environ) if env is None else env
        device = env.get("WHISPER_DEVICE", "cpu").strip() or "cpu"
        workers = max(1, int(env.get("RECOGNIZER_CONCURRENCY", "1") or 1))
        cores = os.cpu_count() or 1
        threads = int(env.get("WHISPER_THREADS", "0") or 0) or max(1, cores // workers)
        compute = env.get("WHISPER_COMPUTE_TYPE", "").strip() or ("int8" if device == "cpu" else "default")
        beam = int(env.get("WHISPER_BEAM_SIZE", "5") or 5)
        return EngineSettings(device=device, compute_type=compute, threads=threads, workers=workers, beam_size=beam)


@dataclass(frozen=True)
class RecognitionRequest:
    """What the job asked for (its plan): the language hint, the profile, the vocabulary, speaker windows or not."""

    language: str | None = None
    profile: str = DEFAULT_PROFILE
    vocabulary: tuple[str, ...] = ()
    speaker_windows: bool = False

    @staticmethod
    def from_spec(spec: JobSpec) -> RecognitionRequest:
        """The job's spec (checked by the API; the profile again here, as a worker of before may meet a newer one)."""
        if spec.profile not in PROFILES:
            raise ServiceError("INVALID_REQUEST", f"profile={spec.profile} is not one of {', '.join(PROFILES)}")
        return RecognitionRequest(
            language=spec.language,
            profile=spec.profile,
            vocabulary=tuple(t.strip() for t in spec.vocabulary[:MAX_VOCABULARY_TERMS] if t.strip()),
            speaker_windows=spec.speaker_labels,
        )


class Repair(TypedDict):
    """What the repair of sparse regions came to: how many regions it decoded again, and the words kept."""

    regions: int
    words: list[RecognizedWord]


class Stopped(Exception):
    """The caller gave up on this recognition (its activity was cancelled or timed out)."""


@dataclass
class _Chunk:
    """A stretch of the piece inside a joined audio: [joined_start, joined_end) there is [start, ...) here."""

    joined_start: float
    joined_end: float
    start: float


@dataclass
class _Unit:
    """Audio decoded as one: one window, or the regions of a window in one language."""

    language: str
    ranges: list[tuple[float, float]]
    regions: list[int]
    audio: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))
    chunks: list[_Chunk] = field(default_factory=list)
    features: np.ndarray | None = None
    encoding: object | None = None

    def places(self, speech: SpeechMap) -> list[tuple[float, float]]:
        """Where the unit's regions lie in its joined audio."""
        return [p for i in self.regions for p in [joined_place(self.chunks, *speech.regions[i])] if p is not None]

    def words(self, decoded: Decoded) -> list[RecognizedWord]:
        """The decoded words in the piece's time, as the result carries them."""
        return [
            {"start": s, "end": e, "text": w.text, "confidence": round(min(1.0, max(0.0, w.probability)), 4), "language": self.language}
            for w in decoded.words
            for s, e in [to_piece_time(self.chunks, w)]
        ]


def join(audio: np.ndarray, ranges: list[tuple[float, float]]) -> tuple[np.ndarray, list[_Chunk]]:
    parts, chunks, pos = [], [], 0
    for a, b in ranges:
        # Each stretch at one steady gain of its own: a quiet speaker is heard, and the level inside a
        # stretch is left as spoken (Whisper decoded the evened-out level worse than the raw one).
        x = steady_gain(audio[int(a * SAMPLE_RATE) : int(b * SAMPLE_RATE)])
        chunks.append(_Chunk(pos / SAMPLE_RATE, (pos + len(x)) / SAMPLE_RATE, a))
        parts.append(x)
        pos += len(x)
    return (np.concatenate(parts) if parts else np.zeros(0, np.float32)), chunks


def joined_place(chunks: list[_Chunk], a: float, b: float) -> tuple[float, float] | None:
    """Where the piece's stretch [a, b) lies in the joined audio of `chunks` (None when no chunk holds its start)."""
    c = next((c for c in chunks if c.start <= a + 1e-6 and a - c.start < c.joined_end - c.joined_start), None)
    if c is None:
        return None
    at = c.joined_start + (a - c.start)
    return at, min(at + (b - a), c.joined_end)


def to_piece_time(chunks: list[_Chunk], w: Word) -> tuple[float, float]:
    """A word's times in the joined audio mapped back to the piece, both ends in the chunk of its middle."""
    mid = (w.start + w.end) / 2
    c = next((c for c in chunks if mid < c.joined_end), chunks[-1])
    shift = c.start - c.joined_start
    lo, hi = c.joined_start, c.joined_end
    return round(min(max(w.start, lo), hi) + shift, 3), round(min(max(w.end, lo), hi) + shift, 3)


_WORD = re.compile(r"\w+", re.UNICODE)


def _norm(text: str) -> str:
    return " ".join(_WORD.findall(unicodedata.normalize("NFKC", text).lower()))


def drop_echoed_vocabulary(words: list[RecognizedWord], vocabulary: tuple[str, ...]) -> list[RecognizedWord]:
    """Whisper given hotwords sometimes says them again after the speech ("… Lord Byron. Sintra, Sintra,"):
    vocabulary words ending a decoded unit go while each was already said earlier in it."""
    if not vocabulary or not words:
        return words
    parts = {p for t in vocabulary for p in _norm(t).split()}
    said = [_norm(w["text"]) for w in words]
    k = len(words)
    while k > 0 and said[k - 1] in parts and said[k - 1] in said[: k - 1]:
        k -= 1
    return words[:k]


def collapse_loops(words: list[RecognizedWord], max_repeats: int = 4) -> list[RecognizedWord]:
    """Whisper's loops ("thank you thank you thank you …" over music): a phrase of up to 4 words said more than
    `max_repeats` times in a row is kept `max_repeats` times."""
    out = list(words)
    for n in range(1, 5):
        i = 0
        while i + n * (max_repeats + 1) <= len(out):
            phrase = [_norm(w["text"]) for w in out[i : i + n]]
            reps = 1
            while i + n * (reps + 1) <= len(out) and [_norm(w["text"]) for w in out[i + n * reps : i + n * (reps + 1)]] == phrase:
                reps += 1
            if reps > max_repeats:
                del out[i + n * max_repeats : i + n * reps]
            i += 1
    return out


def configured_profile(name: str, settings: EngineSettings) -> Profile:
    """The named profile with the operator's beam (WHISPER_BEAM_SIZE) for `standard`; every other choice of the
    profile (no timestamp tokens, patience, temperatures) stays as measured."""
    p = PROFILES[name]
    if name == "standard" and settings.beam_size != p.beam_size:
        return dataclasses.replace(p, beam_size=settings.beam_size)
    return p


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
        self.decoder = Decoder(self.model)
        self._speaker_encoder: SpeakerEncoder | None = None
        self._speaker_lock = threading.Lock()
        if not self.model.model.is_multilingual:
            log.warning("model %s is English-only: every language but en is refused", spec.name)

    @property
    def name(self) -> str:
        return self.spec.name

    def profile(self, name: str) -> Profile:
        return configured_profile(name, self.settings)

    def speaker_encoder(self) -> SpeakerEncoder:
        with self._speaker_lock:
            if self._speaker_encoder is None:
                from .speakers import SpeakerEncoder

                self._speaker_encoder = SpeakerEncoder()
            return self._speaker_encoder

    def warm_up(self) -> None:
        """Loads the VAD model and runs the encoder once, so the first real piece pays for neither."""
        from .speech import speech_probabilities

        speech_probabilities(np.zeros(SAMPLE_RATE, dtype=np.float32))
        self.decoder.languages(self.decoder.encode(self.decoder.features(np.zeros(SAMPLE_RATE, dtype=np.float32))))

    def check_language(self, language: str | None) -> str | None:
        asked = primary_language(language)
        if asked is not None and asked not in SUPPORTED:
            raise ServiceError(
                "LANGUAGE_UNSUPPORTED",
                f"language={language} is not supported by {self.name} (supported: {', '.join(sorted(SUPPORTED))})",
            )
        if asked is not None and asked != "en" and not self.decoder.multilingual:
            raise ServiceError("LANGUAGE_UNSUPPORTED", f"language={language}: {self.name} is an English-only model")
        return asked

    def recognize(
        self,
        path: str,
        request: RecognitionRequest | str | None = None,
        stop: threading.Event | None = None,
        on_progress: Callable[[float], None] | None = None,
    ) -> Json:
        """Recognises the audio file at `path` (a request, or just a BCP 47 language hint, or None to detect)."""
        if not isinstance(request, RecognitionRequest):
            request = RecognitionRequest(language=request)
        asked = self.check_language(request.language)
        with stage("decode audio"):
            audio = read_audio(path)
        return self.recognize_audio(audio, RecognitionRequest(asked, request.profile, request.vocabulary, request.speaker_windows), stop, on_progress)

    def recognize_audio(
        self,
        audio: np.ndarray,
        request: RecognitionRequest,
        stop: threading.Event | None = None,
        on_progress: Callable[[float], None] | None = None,
    ) -> Json:
        t0 = time.monotonic()
        profile = self.profile(request.profile)
        duration = len(audio) / SAMPLE_RATE
        result: Json = {
            "model": self.name,
            "profile": profile.name,
            "language": request.language,
            "language_probability": None,
            "detected_language": None,
            "duration": round(duration, 3),
            "speech_duration": 0.0,
            "no_speech": True,
            "text": "",
            "words": [],
            "regions": [],
            "languages": [],
            "repaired_regions": 0,
            "recognize_seconds": 0.0,
        }
        if len(audio) == 0:
            return result
        # The voice detector hears the evened-out level (a quiet speaker after a loud one is speech); the
        # decoder hears the recording, each joined stretch at a steady gain (join).
        with stage("voice activity detection", audio_seconds=round(duration, 3)) as span:
            levelled = even_level(audio)
            speech = map_speech(levelled)
            span.set_attribute("speech_seconds", round(speech.speech_seconds, 3))
        x = audio
        result["speech_duration"] = round(speech.speech_seconds, 3)
        if not speech.regions:
            result["recognize_seconds"] = round(time.monotonic() - t0, 3)
            return result

        def check_stop() -> None:
            if stop is not None and stop.is_set():
                raise Stopped()

        hotwords = ", ".join(request.vocabulary) if request.vocabulary else None
        with stage("recognition", profile=profile.name):
            self._recognize_speech(x, speech, request, profile, hotwords, result, check_stop, on_progress)
        if request.speaker_windows and result["words"]:
            from .speakers import embed_windows

            check_stop()
            t_speakers = time.monotonic()
            with stage("speaker embedding"):
                result["speaker_windows"] = embed_windows(self.speaker_encoder(), levelled, speech.regions, hop=SPEAKER_WINDOW_HOP_S).to_json()
            result["speaker_seconds"] = round(time.monotonic() - t_speakers, 3)
        result["recognize_seconds"] = round(time.monotonic() - t0, 3)
        return result

    def _recognize_speech(
        self,
        x: np.ndarray,
        speech: SpeechMap,
        request: RecognitionRequest,
        profile: Profile,
        hotwords: str | None,
        result: Json,
        check_stop: Callable[[], None],
        on_progress: Callable[[float], None] | None,
    ) -> None:
        """Plans, decodes and repairs the speech of `x` into `result` (its words, regions and languages)."""
        units, region_languages, probabilities = self._plan_units(x, speech, request.language, profile, check_stop)
        main = _main_language(speech, region_languages)
        if request.language is None:
            if main not in SUPPORTED:
                top_p = max((p for lang, p, _s in probabilities if lang == main), default=0.0)
                raise ServiceError(
                    "LANGUAGE_UNSUPPORTED",
                    f"detected language={main} (probability {top_p:.2f}) is not supported by {self.name} "
                    f"(supported: {', '.join(sorted(SUPPORTED))}); give a language to override",
                    message="AI transcription does not support the spoken language.",
                )
            result["language"] = main
            result["detected_language"] = main
            heard = [(p, s) for lang, p, s in probabilities if lang == main]
            seconds = sum(s for _p, s in heard)
            result["language_probability"] = round(sum(p * s for p, s in heard) / seconds, 4) if seconds > 0 else None

        words: list[RecognizedWord] = []
        decoded = self._decode_units(units, profile, hotwords, speech, check_stop, on_progress)
        for unit, d in zip(units, decoded, strict=True):
            words += collapse_loops(drop_echoed_vocabulary(unit.words(d), request.vocabulary))
        words = _inside_speech(words, speech)
        repaired = self._repair(x, speech, region_languages, words, profile, hotwords, check_stop)
        result["repaired_regions"] = repaired["regions"]
        words = repaired["words"]

        regions: list[SpeechRegion] = [
            {"start": a, "end": b, "language": region_languages[i]} for i, (a, b) in enumerate(speech.regions)
        ]
        result["regions"] = regions
        result["languages"] = _language_seconds(speech, region_languages)
        result["words"] = words
        result["text"] = "".join(w["text"] for w in words).strip()
        result["no_speech"] = len(words) == 0

    # ------------------------------------------------------------ planning

    def _plan_units(
        self, x: np.ndarray, speech: SpeechMap, hint: str | None, profile: Profile, check_stop: Callable[[], None]
    ) -> tuple[list[_Unit], list[str], list[tuple[str, float, float]]]:
        """The units to decode, the language of every region, and (language, probability, seconds) per window."""
        region_languages = [hint or ""] * len(speech.regions)
        probabilities: list[tuple[str, float, float]] = []
        units: list[_Unit] = []
        for window in pack_windows(speech):
            check_stop()
            ranges = [(a, b) for a, b, _idx in window]
            regions = [i for _a, _b, idx in window for i in idx]
            audio, chunks = join(x, ranges)
            unit = _Unit(language=hint or "", ranges=ranges, regions=regions, audio=audio, chunks=chunks)
            if hint is not None:
                units.append(unit)
                continue
            if not self.decoder.multilingual:
                unit.language = "en"
                for i in regions:
                    region_languages[i] = "en"
                probabilities.append(("en", 1.0, sum(b - a for a, b in ranges)))
                units.append(unit)
                continue
            unit.features = self.decoder.features(audio)
            unit.encoding = self.decoder.encode(unit.features)
            window_language, p = _choose(self.decoder.languages(unit.encoding)[0])
            probabilities.append((window_language, p, sum(b - a for a, b in ranges)))
            languages = {i: window_language for i in regions}
            if len(regions) > 1:
                languages.update(self._switched_regions(x, speech, unit, window_language))
            for i in regions:
                region_languages[i] = languages[i]
            groups = _groups(regions, languages)
            if len(groups) == 1:
                unit.language = window_language
                units.append(unit)
                continue
            for language, idx in groups:
                ranges_g = _merge_adjacent([speech.regions[i] for i in idx])
                audio_g, chunks_g = join(x, ranges_g)
                units.append(_Unit(language=language, ranges=ranges_g, regions=idx, audio=audio_g, chunks=chunks_g))
        return units, region_languages, probabilities

    def _switched_regions(self, x: np.ndarray, speech: SpeechMap, unit: _Unit, window_language: str) -> dict[int, str]:
        """Regions of the window in another language: flagged cheaply, then confirmed on their own encoder pass."""
        opinions: dict[int, str] = {}
        for i in unit.regions:
            a, b = speech.regions[i]
            place = joined_place(unit.chunks, a, b)
            if place is None:  # every region of a unit is in its joined audio; nothing to flag otherwise
                continue
            start = place[0]
            top, _p = self.decoder.region_languages(unit.encoding, start, start + (b - a))[0]
            if top != window_language:
                opinions[i] = top
        # Neighbouring flagged regions of the same opinion are one island, checked together (more speech, a
        # surer answer); so are neighbours whose opinion is a language we do not take (a cheap opinion on a
        # short region is often an odd one: Welsh, Norwegian), but only while one of them is short: two long
        # regions of odd opinions are often two languages (French then Portuguese, read as Yoruba and Swahili,
        # were one island, and the Portuguese came out French).
        islands: list[tuple[str, list[int]]] = []
        for i in sorted(opinions):
            key = opinions[i] if opinions[i] in SUPPORTED else "?"
            if islands and islands[-1][1][-1] == i - 1 and islands[-1][0] == key:
                if key != "?" or min(self._speech_seconds(speech, islands[-1][1]), self._speech_seconds(speech, [i])) < ISLAND_MIN_S:
                    islands[-1][1].append(i)
                    continue
            islands.append((key, [i]))
        switched: dict[int, str] = {}
        unsure: list[tuple[dict[str, float], list[int]]] = []
        for _opinion, island in islands:
            ranges = _merge_adjacent([speech.regions[i] for i in island])
            if sum(b - a for a, b in ranges) < ISLAND_MIN_S:
                continue
            audio, _chunks = join(x, ranges)
            probs = self.decoder.languages(self.decoder.encode(self.decoder.features(audio)))[0]
            language, p = _choose(probs)
            if language == window_language:
                continue
            if p >= SWITCH_MIN_PROBABILITY:
                switched.update({i: language for i in island})
            else:
                unsure.append((dict(probs), island))
        # An island that is unsure on its own pass continues one of its neighbours: it takes, of the languages on
        # either side and the window's, the one its own pass finds likeliest, in order, so that a run of unsure
        # islands follows the sure one it starts from. It leaves the window's language only to continue a
        # neighbour that left it: the end of a Spanish sentence after Spanish regions, heard as Portuguese (0.67)
        # or Spanish (0.12) on its own, had stayed German, the window's language.
        for island_probs, island in unsure:
            sides = {switched.get(island[0] - 1, window_language), switched.get(island[-1] + 1, window_language), window_language}
            best = max(sorted(sides), key=lambda language: island_probs.get(language, 0.0))
            if best != window_language:
                switched.update({i: best for i in island})
        return switched

    @staticmethod
    def _speech_seconds(speech: SpeechMap, regions: list[int]) -> float:
        return sum(b - a for a, b in _merge_adjacent([speech.regions[i] for i in regions]))

    # ------------------------------------------------------------ decoding

    def _decode_units(
        self,
        units: list[_Unit],
        profile: Profile,
        hotwords: str | None,
        speech: SpeechMap,
        check_stop: Callable[[], None],
        on_progress: Callable[[float], None] | None,
    ) -> list[Decoded]:
        def progress(unit: _Unit) -> None:
            if on_progress is not None and unit.ranges:
                on_progress(unit.ranges[-1][1])

        # Windows in batches of the profile's size (Decoder.decode_batch); a batch of one decodes as one by one.
        out: list[Decoded] = []
        size = max(1, profile.batch)
        for k in range(0, len(units), size):
            check_stop()
            batch = units[k : k + size]
            decoded = self.decoder.decode_batch([self._batch_item(u, speech) for u in batch], profile, hotwords)
            out += [self._by_region(u, profile, hotwords, speech, check_stop) if d.failed else d for u, d in zip(batch, decoded, strict=True)]
            progress(batch[-1])
        return out

    @staticmethod
    def _batch_item(unit: _Unit, speech: SpeechMap) -> BatchItem:
        return BatchItem(
            audio=unit.audio,
            language=unit.language,
            features=unit.features,
            encoding=unit.encoding,
            speech=unit.places(speech),
            # A window of several regions that fails at temperature 0 (a loop) is decoded in halves (_by_region)
            # instead of sampled: sampling a looping 30 s window at the fallback temperatures took 16.8 s, and the
            # English clips joined went from RTF 0.53 to 0.26 without it.
            fallback=len(unit.regions) <= 1,
        )

    def _by_region(self, unit: _Unit, profile: Profile, hotwords: str | None, speech: SpeechMap, check_stop: Callable[[], None]) -> Decoded:
        """The unit (which failed at temperature 0) decoded in halves, and halves of halves while a part still
        fails, down to single regions (decoded with the fallback); the words in the unit's joined time. Every part
        costs an encoder pass, so halving finds the failing region in a few passes instead of one per region. The
        whole is not tried again: trimmed to its first and last region it failed again as often as not (a 25 s
        French window, 2.7 s lost)."""
        places = unit.places(speech)

        def halves(parts: list[tuple[float, float]]) -> list[Word]:
            if len(parts) == 1:
                return decode(parts)
            half = len(parts) // 2
            return decode(parts[:half]) + decode(parts[half:])

        def decode(parts: list[tuple[float, float]]) -> list[Word]:
            check_stop()
            at, end = parts[0][0], parts[-1][1]
            piece = unit.audio[int(at * SAMPLE_RATE) : int(end * SAMPLE_RATE)]
            d = self.decoder.decode(piece, unit.language, profile, hotwords, fallback=len(parts) == 1)
            if d.failed:
                return halves(parts)
            return [Word(w.start + at, w.end + at, w.text, w.probability) for w in d.words]

        words = halves(places) if places else []
        return Decoded(words=words, no_speech=not words)

    def _repair(
        self,
        x: np.ndarray,
        speech: SpeechMap,
        region_languages: list[str],
        words: list[RecognizedWord],
        profile: Profile,
        hotwords: str | None,
        check_stop: Callable[[], None],
    ) -> Repair:
        """Regions of speech that came out with (almost) no word, decoded again on their own (with the standard
        beam); what the repair finds replaces the region's words when it finds more. The words kept, in order."""
        mids = np.array([(w["start"] + w["end"]) / 2 for w in words]) if words else np.zeros(0)
        sparse: list[tuple[_Unit, np.ndarray]] = []
        for i, (a, b) in enumerate(speech.regions):
            inside = (mids >= a) & (mids < b)
            if b - a >= REPAIR_MIN_S and inside.sum() < REPAIR_WORDS_PER_S * (b - a):
                audio, chunks = join(x, [(a, b)])
                sparse.append((_Unit(language=region_languages[i], ranges=[(a, b)], regions=[i], audio=audio, chunks=chunks), inside))
        standard = self.profile("standard") if profile.name != "standard" else profile
        # Each region a window of its own, decoded as windows are (in batches; one that fails gets the fallback).
        decoded = self._decode_units([u for u, _inside in sparse], standard, hotwords, speech, check_stop, None)
        dropped = np.zeros(len(words), dtype=bool)
        found: list[RecognizedWord] = []
        for (unit, inside), d in zip(sparse, decoded, strict=True):
            if len(d.words) > inside.sum():
                dropped |= inside
                found += unit.words(d)
        kept = [w for w, drop in zip(words, dropped, strict=True) if not drop]
        return {"regions": len(sparse), "words": sorted(kept + found, key=lambda w: (w["start"], w["end"]))}


def _choose(probs: list[tuple[str, float]]) -> tuple[str, float]:
    """The supported language Whisper names, or its top guess when that is a confident unsupported one."""
    chosen, p, top, top_p = choose_detected(probs)
    return (chosen, p) if chosen is not None else (top, top_p)


def _groups(regions: list[int], languages: dict[int, str]) -> list[tuple[str, list[int]]]:
    groups: list[tuple[str, list[int]]] = []
    for i in regions:
        if groups and groups[-1][0] == languages[i]:
            groups[-1][1].append(i)
        else:
            groups.append((languages[i], [i]))
    return groups


def _merge_adjacent(ranges: list[tuple[float, float]], gap: float = 0.05) -> list[tuple[float, float]]:
    out: list[tuple[float, float]] = []
    for a, b in ranges:
        if out and a - out[-1][1] <= gap:
            out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return out


def _language_seconds(speech: SpeechMap, languages: list[str]) -> list[LanguageSeconds]:
    seconds: dict[str, float] = {}
    for (a, b), lang in zip(speech.regions, languages, strict=True):
        if lang:
            seconds[lang] = seconds.get(lang, 0.0) + (b - a)
    return [{"language": k, "seconds": round(v, 3)} for k, v in sorted(seconds.items(), key=lambda kv: -kv[1])]


def _main_language(speech: SpeechMap, languages: list[str]) -> str:
    ranked = _language_seconds(speech, languages)
    return ranked[0]["language"] if ranked else ""


def _inside_speech(words: list[RecognizedWord], speech: SpeechMap, tolerance: float = 0.1) -> list[RecognizedWord]:
    """Words that touch no speech region (Whisper's inventions in the pauses of a span) go; a word stretched
    over a pause (Whisper's times run on until the next word) is cut back to the region it shares most with."""
    regions = speech.regions
    kept = []
    for w in words:
        overlaps = [(min(b, w["end"]) - max(a, w["start"]), a, b) for a, b in regions]
        best = max(overlaps, default=(0.0, 0.0, 0.0))
        if best[0] <= 0 and not any(a - tolerance <= w["start"] <= b + tolerance or a - tolerance <= w["end"] <= b + tolerance for a, b in regions):
            continue
        if best[0] > 0:
            w = w.copy()
            w["start"], w["end"] = round(max(w["start"], best[1]), 3), round(min(w["end"], best[2]), 3)
        kept.append(w)
    return kept
