"""Whisper, one window (at most 30 s) at a time, through faster-whisper's model.

faster-whisper's `transcribe` runs language detection on its own encoder
pass, then decodes, then encodes again for whatever follows the last
timestamp (often only the trailing pause). Here the encoder output of a
window is computed once and used for the language of the window, of each
of its regions, for decoding and for word times, and a window is decoded
further only while speech remains (the speech map says where). The steps
themselves are faster-whisper's (`generate_with_fallback`,
`_split_segments_by_timestamps`, `add_word_timestamps`, `find_alignment`),
pinned at 1.2.1 (stack/python/recognizer.in); the unit tests call each.

Profiles (the API's `profile`):
- standard: beam search of 5; a window that fails Whisper's checks (too
  repetitive, too improbable) is sampled at the fallback temperatures.
- fast: beam search of 3, no fallback. Greedy was measured first and lost
  whole words where the model was unsure (Italian 22.2 % WER against 11.1 %
  for standard); a beam of 3 makes no more errors than standard in any
  language of the evaluation set but one word of Italian, at little more than
  greedy's time
  (bench/RESULTS.md, the profiles' table and the beam sweep under it).
Both decode the windows of a piece in batches of 4 (`decode_batch`): the same
words as one by one, in less time (bench/RESULTS.md, the profiles' table).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import ctranslate2
import numpy as np
from faster_whisper.tokenizer import Tokenizer
from faster_whisper.transcribe import (
    TranscriptionOptions,
    WhisperModel,
    get_compression_ratio,
    get_suppressed_tokens,
    merge_punctuations,
    pad_or_trim,
)

from .errors import ServiceError

SAMPLE_RATE = 16_000
FRAMES_PER_SECOND = 100  # mel frames
ENCODER_FRAMES_PER_SECOND = 50  # encoder positions: 1500 per 30 s
WINDOW_FRAMES = 3000
# A window is decoded further only while its speech (regions padded by 0.2 s) goes on this far past where its text
# stopped: a tail of padding and a breath is not worth a 30 s encoder pass, and Whisper given nearly nothing loops
# (a 27.6 s Italian window: 0.4 s left, 224 tokens of beam search, the window failed and was decoded again).
SPEECH_LEFT_S = 0.5
PREPEND_PUNCTUATION = "\"'“¿([{-"
APPEND_PUNCTUATION = "\"'.。,，!！?？:：”)]}、"


@dataclass(frozen=True)
class Profile:
    name: str
    beam_size: int
    temperatures: tuple[float, ...]
    batch: int
    # Whether the text is decoded with Whisper's timestamp tokens. Without them a window's text is decoded whole and
    # its words are timed by forced alignment on the same encoder output (faster-whisper's word timestamps need no
    # timestamp tokens), which frees the decoder from predicting times between words.
    timestamp_tokens: bool = True
    # Beam search patience (faster-whisper's default 1: stop when `beam_size` hypotheses are finished).
    patience: float = 1.0


# Both decode without timestamp tokens (issue 50): on the 115 clips of the evaluation set the text came out 2 to 4 %
# better pooled than with them, at the same speed, and no language worse than faster-whisper's own call
# (bench/RESULTS.md, block `asr-accuracy`, has every variant weighed). Words are timed by forced alignment.
# A request with a vocabulary decodes with them (_options).
PROFILES = {
    "standard": Profile("standard", beam_size=5, temperatures=(0.0, 0.2, 0.4, 0.6, 0.8, 1.0), batch=4, timestamp_tokens=False),
    "fast": Profile("fast", beam_size=3, temperatures=(0.0,), batch=4, timestamp_tokens=False),
}
DEFAULT_PROFILE = "standard"


@dataclass
class Word:
    start: float
    end: float
    text: str  # with its leading space, as Whisper writes it
    probability: float


@dataclass
class BatchItem:
    """A window for `decode_batch`: its audio, language, and what is known of it already."""

    audio: np.ndarray
    language: str
    features: np.ndarray | None = None
    encoding: ctranslate2.StorageView | None = None
    # Seconds of speech in `audio` (its regions): what follows the first 30 s, or where the text stopped, is decoded
    # only while speech remains.
    speech: list[tuple[float, float]] | None = None
    # Whether a later window that fails at temperature 0 is sampled at the fallback temperatures.
    fallback: bool = True


@dataclass
class Decoded:
    """What a window said: words (seconds from the window's start), or nothing when Whisper judged it no speech."""

    words: list[Word]
    no_speech: bool = False
    # Temperature 0 failed Whisper's checks (a loop: "St. St. St. …", or a very unsure text) and no fallback was
    # asked for: the caller decodes the window's regions one by one instead.
    failed: bool = False


def speech_left(speech: list[tuple[float, float]], offset: float) -> bool:
    """Whether the regions (`speech`, seconds, padded by 0.2 s) go on SPEECH_LEFT_S or more past `offset`."""
    return any(b >= offset + SPEECH_LEFT_S for _a, b in speech)


def _options(tokenizer: Tokenizer, profile: Profile, hotwords: str | None) -> TranscriptionOptions:
    # The defaults of WhisperModel.transcribe, except: no conditioning on earlier
    # windows (a mistake or an invented phrase would be carried on), and the
    # profile's beam and fallback temperatures.
    return TranscriptionOptions(
        beam_size=profile.beam_size,
        best_of=5,
        patience=profile.patience,
        length_penalty=1,
        repetition_penalty=1,
        no_repeat_ngram_size=0,
        log_prob_threshold=-1.0,
        no_speech_threshold=0.6,
        compression_ratio_threshold=2.4,
        condition_on_previous_text=False,
        prompt_reset_on_temperature=0.5,
        temperatures=list(profile.temperatures),
        initial_prompt=None,
        prefix=None,
        suppress_blank=True,
        suppress_tokens=get_suppressed_tokens(tokenizer, [-1]),
        # A vocabulary keeps the timestamp tokens: without them the decoder, prompted with the vocabulary, echoed
        # its terms in place of the speech (fleurs-pt-003, fast: "Schlegel, Fichte, Fichte" for "como Goethe,
        # Fichte e Schlegel"; test/transcription-rich.test.ts), which it did not with them.
        without_timestamps=not profile.timestamp_tokens and not hotwords,
        max_initial_timestamp=1.0,
        word_timestamps=True,
        prepend_punctuations=PREPEND_PUNCTUATION,
        append_punctuations=APPEND_PUNCTUATION,
        multilingual=False,
        max_new_tokens=None,
        clip_timestamps="0",
        hallucination_silence_threshold=None,
        hotwords=hotwords,
    )


def trim_absorbed_silence(words: list[Word]) -> None:
    """Forced alignment gives a text's first word (and a word after a sentence end) the silence before it: "Mister"
    took 1.9 s, the pause included. As faster-whisper's own word times do (add_word_timestamps), such a word longer
    than twice the median word (the median at most 0.7 s) starts that long before its end."""
    durations = [w.end - w.start for w in words if w.end > w.start]
    if not durations:
        return
    longest = 2 * min(0.7, float(np.median(durations)))
    for i, w in enumerate(words):
        after_sentence = i > 0 and words[i - 1].text.rstrip().endswith(tuple(".。!！?？"))
        if (i == 0 or after_sentence) and w.end - w.start > longest:
            w.start = w.end - longest


class Decoder:
    def __init__(self, model: WhisperModel):
        self.model = model
        self._silence_encoding: np.ndarray | None = None

    @property
    def multilingual(self) -> bool:
        return bool(self.model.model.is_multilingual)

    def tokenizer(self, language: str | None) -> Tokenizer:
        return Tokenizer(self.model.hf_tokenizer, self.multilingual, task="transcribe", language=language or "en")

    def features(self, audio: np.ndarray) -> np.ndarray:
        return np.asarray(self.model.feature_extractor(audio))

    def features_of(self, item: BatchItem) -> np.ndarray:
        """The window's features, computed unless it came with them."""
        return item.features if item.features is not None else self.features(item.audio)

    def encode(self, features: np.ndarray, seek: int = 0) -> ctranslate2.StorageView:
        """The encoder output of 30 s of features from `seek` (padded), as generate_segments cuts them."""
        content = features.shape[-1] - 1
        return self.model.encode(pad_or_trim(features[:, seek : seek + min(WINDOW_FRAMES, content - seek)]))

    def encode_frames(self, features: np.ndarray) -> ctranslate2.StorageView:
        """The encoder output of exactly these frames, not padded to 30 s (a real-time stream's short utterance)."""
        return self.model.encode(np.ascontiguousarray(features))

    def encode_batch(self, feature_list: list[np.ndarray]) -> ctranslate2.StorageView:
        stacked = np.stack([pad_or_trim(f[:, : min(WINDOW_FRAMES, f.shape[-1] - 1)]) for f in feature_list])
        return self.model.encode(stacked)

    def languages(self, encoding: ctranslate2.StorageView) -> list[list[tuple[str, float]]]:
        """Whisper's language probabilities, best first, per item of the batch."""
        return [[(token[2:-2], float(p)) for token, p in item] for item in self.model.model.detect_language(encoding)]

    def region_languages(self, encoding: ctranslate2.StorageView, start: float, end: float) -> list[tuple[str, float]]:
        """A cheap first opinion on the language of seconds [start, end) of an encoded window: that stretch's
        encoder positions repeated to fill the window. Measured on the evaluation sets it flags every region
        whose language differs from its window's (28 of 28) and few that do not (5 of 116); a flagged region
        is then checked on its own encoder pass (Engine), so only its recall matters."""
        e = np.asarray(encoding)
        a = int(start * ENCODER_FRAMES_PER_SECOND)
        b = max(a + 1, int(np.ceil(end * ENCODER_FRAMES_PER_SECOND)))
        part = e[:1, a:b]
        reps = int(np.ceil(e.shape[1] / part.shape[1]))
        tiled = np.ascontiguousarray(np.concatenate([part] * reps, axis=1)[:, : e.shape[1]])
        return self.languages(ctranslate2.StorageView.from_array(tiled))[0]

    def decode(
        self,
        audio: np.ndarray,
        language: str,
        profile: Profile,
        hotwords: str | None = None,
        features: np.ndarray | None = None,
        encoding: ctranslate2.StorageView | None = None,
        speech: list[tuple[float, float]] | None = None,
        fallback: bool = True,
        seek: int = 0,
    ) -> Decoded:
        """Decodes `audio` (any length) window after window from mel frame `seek`; stops when no speech (`speech`,
        seconds) remains. Without `fallback`, temperature 0 only: a window that fails Whisper's checks makes the
        result `failed`."""
        tokenizer = self.tokenizer(language)
        options = _options(tokenizer, profile, hotwords)
        if not fallback:
            options = dataclasses.replace(options, temperatures=[0.0])
        features = self.features(audio) if features is None else features
        content = features.shape[-1] - 1
        last_speech = 0.0
        words: list[Word] = []
        skipped_all = True
        while seek < content:
            offset = seek / FRAMES_PER_SECOND
            if speech is not None and not speech_left(speech, offset):
                break
            size = min(WINDOW_FRAMES, content - seek)
            enc = encoding if (seek == 0 and encoding is not None) else self.encode(features, seek)
            prompt = self.model.get_prompt(tokenizer, [], without_timestamps=options.without_timestamps, hotwords=hotwords)
            result, avg_logprob, _temperature, ratio = self.model.generate_with_fallback(enc, prompt, tokenizer, options)
            if result.no_speech_prob > options.no_speech_threshold and avg_logprob < options.log_prob_threshold:
                seek += size
                continue
            if not fallback and (ratio > options.compression_ratio_threshold or avg_logprob < options.log_prob_threshold):
                return Decoded(words=[], failed=True)
            skipped_all = False
            window_words, seek, last_speech = self._window_words(
                tokenizer, result.sequences_ids[0], enc, seek, size, last_speech, whole=options.without_timestamps
            )
            words += window_words
        return Decoded(words=words, no_speech=skipped_all and not words)

    def _window_words(
        self,
        tokenizer: Tokenizer,
        tokens: list[int],
        encoding: ctranslate2.StorageView,
        seek: int,
        size: int,
        last_speech: float,
        whole: bool = False,
    ) -> tuple[list[Word], int, float]:
        """The tokens Whisper gave for the window at mel frame `seek` (`size` frames, `encoding` its encoder output)
        as timed words (faster-whisper's segment split and word times), the frame to go on from, and the end of the
        last speech. A window whose text stops on a lone timestamp goes on from its last word."""
        offset = seek / FRAMES_PER_SECOND
        segments, next_seek, single_ending = self.model._split_segments_by_timestamps(
            tokenizer=tokenizer,
            tokens=tokens,
            time_offset=offset,
            segment_size=size,
            segment_duration=size / FRAMES_PER_SECOND,
            seek=seek,
        )
        if segments:
            last_speech = (
                self.model.add_word_timestamps([segments], tokenizer, encoding, size, PREPEND_PUNCTUATION, APPEND_PUNCTUATION, last_speech)
                or last_speech
            )
        timed = [w for s in segments for w in s.get("words", [])]
        # A window decoded whole (no timestamp tokens) is done; one with timestamps may have stopped early.
        if not whole and not single_ending and timed:
            last_end = max(w["end"] for w in timed)
            if last_end > offset:
                next_seek = round(last_end * FRAMES_PER_SECOND)
        words = [Word(float(w["start"]), float(w["end"]), w["word"], float(w["probability"])) for w in timed if w["word"].strip()]
        return words, (next_seek if next_seek > seek else seek + size), last_speech

    @staticmethod
    def attempt_scores(tokenizer: Tokenizer, options: TranscriptionOptions, result: ctranslate2.models.WhisperGenerationResult) -> tuple[float, float]:
        """Whisper's checks on one decode, as generate_with_fallback computes them: the average log probability
        per token (CTranslate2 returns the score divided by length ** length_penalty) and the text's compression
        ratio (a loop compresses well)."""
        tokens = result.sequences_ids[0]
        avg_logprob = result.scores[0] * (len(tokens) ** options.length_penalty) / (len(tokens) + 1)
        text = tokenizer.decode([t for t in tokens if t < tokenizer.timestamp_begin]).strip()
        return float(avg_logprob), float(get_compression_ratio(text))

    def decode_batch(self, items: list[BatchItem], profile: Profile, hotwords: str | None = None) -> list[Decoded]:
        """The first 30 s of several windows decoded in one call per language and batch (the profile's beam, at
        temperature 0), then what remains of each window one by one (`decode`). On CPU a decoding step costs
        about the same for one window as for four: the decoder reads all its weights for every token, so a batch
        shares that reading (measured: 7 windows decoded with the beam of 5 in 6.55 s one by one, 3.58 s four at
        a time). A window that fails Whisper's checks at temperature 0 comes back `failed`."""
        out: list[Decoded] = [Decoded(words=[], no_speech=True)] * len(items)
        by_language: dict[str, list[int]] = {}
        for i, item in enumerate(items):
            by_language.setdefault(item.language, []).append(i)
        for language, idx in by_language.items():
            tokenizer = self.tokenizer(language)
            options = _options(tokenizer, profile, hotwords)
            prompt = self.model.get_prompt(tokenizer, [], without_timestamps=options.without_timestamps, hotwords=hotwords)
            for k in range(0, len(idx), profile.batch):
                chunk = idx[k : k + profile.batch]
                features = [self.features_of(items[i]) for i in chunk]
                sizes = [min(WINDOW_FRAMES, f.shape[-1] - 1) for f in features]
                known = [items[i].encoding for i in chunk]
                if all(e is not None for e in known):
                    enc = ctranslate2.StorageView.from_array(np.ascontiguousarray(np.concatenate([np.asarray(e) for e in known])))
                else:
                    enc = self.encode_batch(features)
                results = self.model.model.generate(
                    enc,
                    [list(prompt) for _ in chunk],
                    beam_size=profile.beam_size,
                    patience=options.patience,
                    length_penalty=options.length_penalty,
                    max_length=self.model.max_length,
                    suppress_blank=options.suppress_blank,
                    suppress_tokens=options.suppress_tokens,
                    return_scores=True,
                    return_no_speech_prob=True,
                    max_initial_timestamp_index=int(round(options.max_initial_timestamp / self.model.time_precision)),
                )
                encoded = np.asarray(enc) if len(chunk) > 1 else None
                next_seeks: dict[int, int] = {}
                for j, (i, r) in enumerate(zip(chunk, results, strict=True)):
                    avg_logprob, ratio = self.attempt_scores(tokenizer, options, r)
                    if r.no_speech_prob > options.no_speech_threshold and avg_logprob < options.log_prob_threshold:
                        out[i] = Decoded(words=[], no_speech=True)
                        next_seeks[i] = sizes[j]
                        continue
                    if ratio > options.compression_ratio_threshold or avg_logprob < options.log_prob_threshold:
                        out[i] = Decoded(words=[], failed=True)
                        continue
                    # Word times item by item: faster-whisper carries the end of one item's speech into the next
                    # item's first-word rule when given several, and alignment is a small part of the time.
                    own = enc if encoded is None else ctranslate2.StorageView.from_array(np.ascontiguousarray(encoded[j : j + 1]))
                    words, next_seeks[i], _last = self._window_words(
                        tokenizer, r.sequences_ids[0], own, 0, sizes[j], 0.0, whole=options.without_timestamps
                    )
                    out[i] = Decoded(words=words)
                for j, i in enumerate(chunk):
                    d = out[i]
                    if d.failed:
                        continue
                    rest = self.decode(
                        items[i].audio,
                        language,
                        profile,
                        hotwords,
                        features=features[j],
                        speech=items[i].speech,
                        fallback=items[i].fallback,
                        seek=next_seeks[i],
                    )
                    if rest.failed:
                        out[i] = rest
                    elif rest.words:
                        out[i] = Decoded(words=d.words + rest.words)
        return out

    def align(self, audio: np.ndarray, language: str, texts: list[str]) -> list[list[Word]]:
        """Forced alignment: the words of each text (in order, all of them said somewhere in `audio`, at most 30 s)
        with their times and the probability the model gives each. One list of words per text, in one pass."""
        tokenizer = self.tokenizer(language)
        tokens = [tokenizer.encode(" " + t.strip()) for t in texts]
        flat = [tok for ts in tokens for tok in ts]
        if not flat:
            return [[] for _ in texts]
        # The decoder reads at most max_length positions, the start of transcript sequence, the no-timestamps token
        # and the end token among them (find_alignment); the callers cut texts to fit (alignment.py). A text that
        # still does not fit is the input's fault: refused for good, never a crash the job would retry.
        room = self.model.max_length - len(tokenizer.sot_sequence) - 2
        if len(flat) > room:
            raise ServiceError("PROVIDER_REJECTED", f"align_text: a window of {len(flat)} tokens is over the {room} the model reads")
        features = self.features(audio)
        frames = min(WINDOW_FRAMES, features.shape[-1] - 1)
        enc = self.encode(features)
        alignment = self.model.find_alignment(tokenizer, [flat], enc, frames)[0]
        # Punctuation joins its word, as in the recognizer's own word times ("Mr." not "Mr" and ".").
        merge_punctuations(alignment, PREPEND_PUNCTUATION, APPEND_PUNCTUATION)
        # Each word goes back to the text its first token came from.
        bounds = np.cumsum([len(ts) for ts in tokens])
        out: list[list[Word]] = [[] for _ in texts]
        position = 0
        for a in alignment:
            owner = int(np.searchsorted(bounds, position, side="right"))
            position += len(a["tokens"])
            if a["word"].strip() and owner < len(out):
                out[owner].append(Word(float(a["start"]), float(a["end"]), a["word"], float(a["probability"])))
        for words in out:
            trim_absorbed_silence(words)
        return out
