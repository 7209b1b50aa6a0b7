"""Real-time recognition of a stream (recognizer/streaming.py) on real speech of ../shared/asr-eval, streamed as a
real-time client would (simulate_real_time: the stream's clock moves with the audio sent and a fixed cost a decode)."""

import os
import unittest
from pathlib import Path

import numpy as np

from recognizer.audio import read_audio
from recognizer.scoring import error_count
from recognizer.speech import SAMPLE_RATE
from recognizer.streaming import StreamRecognizer, simulate_real_time

ROOT = Path(__file__).resolve().parents[2]
ASR_EVAL = Path(os.environ.get("ASR_EVAL_DIR") or ROOT.parent / "shared" / "asr-eval")


def silence(seconds: float) -> np.ndarray:
    return np.zeros(int(seconds * SAMPLE_RATE), dtype=np.float32)


@unittest.skipUnless(ASR_EVAL.is_dir(), f"no asr-eval clips at {ASR_EVAL}")
class Streaming(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        from recognizer.engine import Engine, EngineSettings
        from recognizer.model import model_spec

        cls.engine = Engine(model_spec(), EngineSettings())
        cls.engine.warm_up()

    def stream(self, audio: np.ndarray, language: str | None = "en"):
        recognizer = StreamRecognizer(self.engine.decoder, language, self.engine.profile("fast"))
        # A decode moves the stream's clock on by a fixed 0.4 s: what the test sees does not depend on the machine.
        segments, _busy = simulate_real_time(recognizer, audio, decode_cost_s=0.4)
        return segments

    def clip(self, name: str) -> tuple[np.ndarray, str]:
        return read_audio(str(ASR_EVAL / name)), (ASR_EVAL / name).with_suffix(".txt").read_text(encoding="utf-8")

    def test_an_utterance_is_seen_in_partials_while_spoken_then_once_as_final(self):
        audio, reference = self.clip("en/fleurs-en-000.ogg")
        segments = self.stream(np.concatenate([silence(1.0), audio, silence(1.5)]))
        finals = [s for s in segments if s.kind == "final"]
        partials = [s for s in segments if s.kind == "partial"]
        self.assertGreaterEqual(len(finals), 1)
        self.assertGreaterEqual(len(partials), 3)
        # No partial of an utterance comes after its final, and the first was ready before the audio's end.
        final_at = {s.seq: i for i, s in enumerate(segments) if s.kind == "final"}
        self.assertTrue(all(i < final_at[s.seq] for i, s in enumerate(segments) if s.kind == "partial"))
        self.assertLess(partials[0].ready_at, 1.0 + len(audio) / SAMPLE_RATE)
        # Stream time: the speech starts after the second of silence.
        self.assertGreaterEqual(finals[0].start, 0.9)
        errors, words = error_count(reference, " ".join(f.text for f in finals), "en")
        self.assertLessEqual(errors / words, 0.25, [f.text for f in finals])
        # A later partial holds at least as many words as an earlier one of the same utterance, mostly: it is heard
        # growing, not jumping around.
        growing = sum(len(b.text.split()) >= len(a.text.split()) for a, b in zip(partials, partials[1:], strict=False) if a.seq == b.seq)
        self.assertGreaterEqual(growing, (len(partials) - len(finals)) * 0.7)

    def test_two_utterances_apart_are_two_finals_in_stream_time(self):
        first, _ = self.clip("en/jfk_inaugural.flac")
        second, _ = self.clip("en/leopard_librispeech_1272-128104-0000.wav")
        gap_start = 0.5 + len(first) / SAMPLE_RATE
        segments = self.stream(np.concatenate([silence(0.5), first, silence(2.0), second, silence(1.0)]))
        finals = [s for s in segments if s.kind == "final"]
        self.assertGreaterEqual(len(finals), 2)
        self.assertEqual([f.seq for f in finals], sorted({f.seq for f in finals}))
        self.assertTrue(any("country" in f.text.lower() for f in finals if f.end <= gap_start + 0.3))
        self.assertTrue(any("quilter" in f.text.lower() for f in finals if f.start >= gap_start + 1.5))
        # Every final ends before the next starts.
        self.assertTrue(all(a.end <= b.start + 0.05 for a, b in zip(finals, finals[1:], strict=False)))

    def test_no_partial_is_decoded_in_a_pause_so_the_decoder_is_free_for_the_final(self):
        # Partials come while words are spoken; in a pause nothing new was said, and a partial decoded there would
        # hold the decoder when the pause settles and the final is decoded.
        first, _ = self.clip("en/jfk_inaugural.flac")
        second, _ = self.clip("en/fleurs-en-000.ogg")
        recognizer = StreamRecognizer(self.engine.decoder, "en", self.engine.profile("fast"))
        started: list[tuple[str, bool]] = []
        decode = recognizer._decode

        def spy(u, end, kind, profile):
            started.append((kind, recognizer._speaking))
            return decode(u, end, kind, profile)

        recognizer._decode = spy  # type: ignore[method-assign]
        audio = np.concatenate([silence(1.0), first, silence(1.5), second, silence(1.5)])
        segments, _busy = simulate_real_time(recognizer, audio, decode_cost_s=0.4)
        self.assertGreaterEqual(sum(kind == "partial" for kind, _ in started), 5)
        self.assertEqual([kind for kind, speaking in started if kind == "partial" and not speaking], [])
        # Each final was decoded as the pause settled and is given out when the pause is confirmed: one decode after.
        for final in (s for s in segments if s.kind == "final"):
            self.assertLessEqual(final.ready_at - final.speech_end, 0.5 + 0.4 + 0.5, final)

    def test_a_final_that_fails_at_temperature_0_on_its_short_window_is_decoded_again_on_30_s(self):
        # A final's first decode is greedy on the utterance's own short window; when it fails Whisper's checks (a
        # loop, or a very unsure text) it is decoded again as Whisper was trained, with the temperature fallback.
        from recognizer.decoding import Decoded

        audio, reference = self.clip("en/fleurs-en-000.ogg")
        decoder = self.engine.decoder
        calls: list[tuple[str, bool, bool]] = []

        class FirstFinalFails:
            def __getattr__(self, name):
                return getattr(decoder, name)

            def decode(self, audio, language, profile, encoding=None, fallback=True, **kw):
                calls.append((profile.name, fallback, encoding is None))
                if profile.name == "fast" and sum(c[0] == "fast" for c in calls) == 1:
                    return Decoded(words=[], failed=True)
                return decoder.decode(audio, language, profile, encoding=encoding, fallback=fallback, **kw)

        recognizer = StreamRecognizer(FirstFinalFails(), "en", self.engine.profile("fast"))  # type: ignore[arg-type]
        segments, _busy = simulate_real_time(recognizer, np.concatenate([silence(1.0), audio, silence(1.5)]), decode_cost_s=0.4)
        finals = [s for s in segments if s.kind == "final"]
        text = " ".join(f.text for f in finals)
        errors, words = error_count(reference, text, "en")
        self.assertLessEqual(errors / words, 0.25, text)
        # Asked without the fallback first (so the failure is seen), then again on 30 s with it.
        first = next(i for i, c in enumerate(calls) if c[0] == "fast")
        self.assertEqual(calls[first], ("fast", False, False))
        self.assertEqual(calls[first + 1], ("final-retry", True, True))

    def test_silence_says_nothing(self):
        self.assertEqual(self.stream(silence(3.0)), [])

    def test_the_language_is_detected_once_from_the_first_utterance(self):
        audio, reference = self.clip("es/fleurs-es-000.ogg")
        segments = self.stream(np.concatenate([silence(0.5), audio, silence(1.0)]), language=None)
        finals = [s for s in segments if s.kind == "final"]
        self.assertTrue(finals)
        self.assertEqual({s.language for s in segments}, {"es"})
        errors, words = error_count(reference, " ".join(f.text for f in finals), "es")
        self.assertLessEqual(errors / words, 0.3, [f.text for f in finals])

    def test_the_language_is_not_kept_from_half_a_second_of_speech(self):
        # Detected on the first partial alone, these were read as English, English and Japanese and decoded so.
        for name, lang in (("es/leopard_test_es.wav", "es"), ("de/leopard_test_de.wav", "de"), ("pt/leopard_test_pt.wav", "pt")):
            audio, reference = self.clip(name)
            recognizer = StreamRecognizer(self.engine.decoder, None, self.engine.profile("fast"))
            segments, _busy = simulate_real_time(recognizer, np.concatenate([silence(1.0), audio, silence(1.5)]), decode_cost_s=0.4)
            finals = [s for s in segments if s.kind == "final"]
            self.assertEqual(recognizer.language, lang, name)
            self.assertEqual({s.language for s in finals}, {lang}, name)
            errors, words = error_count(reference, " ".join(f.text for f in finals), lang)
            self.assertLessEqual(errors / words, 0.4, [f.text for f in finals])

    def test_a_stream_closed_while_speaking_ends_with_that_utterance_final(self):
        audio, _ = self.clip("en/jfk_inaugural.flac")
        # Cut in the middle of "And so, my fellow Americans".
        segments = self.stream(audio[: int(1.8 * SAMPLE_RATE)])
        self.assertEqual(segments[-1].kind, "final")
        self.assertEqual([s.kind for s in segments].count("final"), 1)
        self.assertIn("so my", segments[-1].text.lower().replace(",", ""))


if __name__ == "__main__":
    unittest.main()
