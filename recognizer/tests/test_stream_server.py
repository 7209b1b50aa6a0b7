"""The recognizer's stream port (recognizer/stream_server.py) as the API speaks to it: the protocol's refusals, the
slot a stream holds until its decoding has stopped, and a peer that drops mid-stream. Whole streams of real speech
through the API: test/listen.test.ts."""

import asyncio
import json
import os
import struct
import subprocess
import tempfile
import unittest
from pathlib import Path
from unittest import mock

import av

from recognizer.opus_input import OpusToPcm, packet_ms
from recognizer.scoring import error_count
from recognizer.stream_server import MAX_FRAME_BYTES, StreamServer, StreamSettings

ASR_EVAL = Path(os.environ.get("ASR_EVAL_DIR") or Path(__file__).resolve().parents[3] / "shared" / "asr-eval")


def opus_packets(clip: Path, *extra: str) -> list[bytes]:
    """A real recording as a client of `encoding=opus` sends it: libopus packets, one a frame, no container."""
    with tempfile.TemporaryDirectory() as tmp:
        ogg = Path(tmp) / "clip.ogg"
        subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", str(clip), "-c:a", "libopus", *extra, str(ogg)], check=True)
        with av.open(str(ogg)) as container:
            return [bytes(p) for p in container.demux(container.streams.audio[0]) if p.size]


class StreamPort(unittest.IsolatedAsyncioTestCase):
    engine = None

    @classmethod
    def setUpClass(cls):
        from recognizer.engine import Engine, EngineSettings
        from recognizer.model import model_spec

        cls.engine = Engine(model_spec(), EngineSettings())

    async def asyncSetUp(self):
        self.server = StreamServer(self.engine.decoder, self.engine.profile("fast"), StreamSettings(port=0, host="127.0.0.1", slots=1))
        self.port = await self.server.start()

    async def asyncTearDown(self):
        await self.server.stop()

    async def open(self, language: str | None = "en", encoding: str | None = None):
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        hello = {"language": language} | ({"encoding": encoding} if encoding else {})
        writer.write((json.dumps(hello) + "\n").encode())
        await writer.drain()
        first = json.loads(await asyncio.wait_for(reader.readline(), 30))
        return reader, writer, first

    async def first_answer_once_free(self) -> dict:
        """The port's first answer to a new stream, asked again for up to 5 s while every slot is busy."""
        for _ in range(100):
            _r, w, answer = await self.open()
            w.close()
            if answer["type"] == "ready":
                break
            await asyncio.sleep(0.05)
        return answer

    @staticmethod
    def frame(pcm: bytes) -> bytes:
        return struct.pack(">I", len(pcm)) + pcm

    async def test_a_language_the_recognizer_does_not_know_is_refused(self):
        _r, w, first = await self.open("tlh")
        self.assertEqual(first["type"], "error")
        self.assertEqual(first["code"], "LANGUAGE_UNSUPPORTED")
        w.close()

    async def test_the_slot_is_busy_while_a_stream_runs_and_free_once_it_ends(self):
        r1, w1, first = await self.open()
        self.assertEqual(first, {"type": "ready"})
        _r2, w2, second = await self.open()
        self.assertEqual(second["code"], "PROVIDER_UNAVAILABLE")
        w2.close()
        # One second of silence, then the end: nothing was said, and the stream ends with the audio it received.
        w1.write(self.frame(bytes(32000)) + self.frame(b""))
        await w1.drain()
        end = json.loads(await asyncio.wait_for(r1.readline(), 30))
        self.assertEqual(end, {"type": "end", "audio_seconds": 1.0})
        w1.close()
        # The slot is given back once the stream's thread has stopped.
        self.assertEqual(await self.first_answer_once_free(), {"type": "ready"})

    async def test_a_peer_that_drops_mid_stream_gives_its_slot_back(self):
        _r1, w1, first = await self.open()
        self.assertEqual(first["type"], "ready")
        w1.write(self.frame(bytes(16000)))
        await w1.drain()
        w1.close()
        self.assertEqual((await self.first_answer_once_free())["type"], "ready")

    async def test_a_frame_larger_than_the_limit_ends_the_stream_with_an_error(self):
        r, w, _first = await self.open()
        w.write(struct.pack(">I", MAX_FRAME_BYTES + 2))
        await w.drain()
        line = json.loads(await asyncio.wait_for(r.readline(), 30))
        self.assertEqual(line["code"], "INVALID_REQUEST")
        self.assertEqual(await asyncio.wait_for(r.read(), 30), b"")
        w.close()

    async def test_a_fault_in_recognition_ends_the_stream_with_an_error_not_an_end_and_frees_the_slot(self):
        from recognizer.streaming import StreamRecognizer

        def broken(_self):
            raise RuntimeError("decoder fault")

        with mock.patch.object(StreamRecognizer, "advance", broken):
            r, w, first = await self.open()
            self.assertEqual(first, {"type": "ready"})
            w.write(self.frame(bytes(3200)))
            await w.drain()
            line = json.loads(await asyncio.wait_for(r.readline(), 30))
            self.assertEqual(line["type"], "error")
            self.assertEqual(line["code"], "INTERNAL_ERROR")
            # The connection is closed after the error: audio still sent has nowhere to go, and no `end` follows.
            self.assertEqual(await asyncio.wait_for(r.read(), 30), b"")
            w.close()
        self.assertEqual((await self.first_answer_once_free())["type"], "ready")

    @unittest.skipUnless(ASR_EVAL.is_dir(), f"no asr-eval clips at {ASR_EVAL}")
    async def test_opus_packets_of_real_speech_are_heard_as_the_recording_for_as_long_as_they_say(self):
        clip = ASR_EVAL / "en" / "fleurs-en-000.ogg"
        # Stereo at 20 ms frames: the decoder mixes it down.
        packets = opus_packets(clip, "-ac", "2", "-b:a", "32k", "-frame_duration", "20")
        r, w, first = await self.open(encoding="opus")
        self.assertEqual(first, {"type": "ready"})
        w.write(b"".join(self.frame(p) for p in packets) + self.frame(b""))
        await w.drain()
        lines = []
        while (line := json.loads(await asyncio.wait_for(r.readline(), 120)))["type"] != "end":
            lines.append(line)
        w.close()
        self.assertAlmostEqual(line["audio_seconds"], sum(packet_ms(p) for p in packets) / 1000, delta=0.05)
        finals = " ".join(m["text"] for m in lines if m["type"] == "final")
        errors, words = error_count(clip.with_suffix(".txt").read_text(encoding="utf-8"), finals, "en")
        self.assertLessEqual(errors / words, 0.25, finals)

    async def test_an_encoding_the_port_does_not_take_is_refused(self):
        _r, w, first = await self.open(encoding="flac")
        self.assertEqual((first["type"], first["code"]), ("error", "INVALID_REQUEST"))
        w.close()


class OpusInput(unittest.TestCase):
    def test_a_packet_the_decoder_cannot_read_is_silence_of_the_length_it_says(self):
        decoder = OpusToPcm()
        # Code 2 (two frames of 20 ms SILK) whose first frame claims 250 bytes of a 1-byte body.
        broken = bytes([(1 << 3) | 2, 250, 1])
        self.assertEqual(packet_ms(broken), 40)
        self.assertEqual(decoder.pcm(broken), bytes(2 * 640))

    def test_each_frame_length_libopus_makes_plays_as_long_as_its_toc_says(self):
        for frame_ms in ("2.5", "10", "60", "120"):
            packets = opus_packets(ASR_EVAL / "en" / "fleurs-en-000.ogg", "-t", "2", "-frame_duration", frame_ms)
            decoder = OpusToPcm()
            samples = sum(len(decoder.pcm(p)) // 2 for p in packets)
            said = sum(packet_ms(p) for p in packets) * 16
            # The resampler holds back a few samples at the end.
            self.assertLessEqual(abs(samples - said), 64, frame_ms)


if __name__ == "__main__":
    unittest.main()
