"""The Python client's own tests.

The live ones run against a running service named by the environment (test/clients.test.ts starts the
test stack and sets it): TRANSCRIPT_API_URL, TRANSCRIPT_API_KEY, TRANSCRIPT_TEST_VIDEO_URL (a video with
captions), TRANSCRIPT_TEST_AUDIO (a short speech file) and TRANSCRIPT_TEST_WEBHOOK (a JSON file holding a
real delivery: its raw body, headers and the endpoint's secret). The transport ones answer from
httpx.MockTransport to pin down retries and timeouts without a server.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import unittest
import uuid

import httpx

from transcript_client import (
    TranscriptApiError,
    TranscriptClient,
    TranscriptTimeoutError,
    WebhookVerificationError,
    verify_webhook,
)

LIVE = bool(os.environ.get("TRANSCRIPT_API_URL") and os.environ.get("TRANSCRIPT_API_KEY"))


@unittest.skipUnless(LIVE, "needs TRANSCRIPT_API_URL and TRANSCRIPT_API_KEY (test/clients.test.ts sets them)")
class LiveTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.client = TranscriptClient()
        cls.video = os.environ["TRANSCRIPT_TEST_VIDEO_URL"]

    @classmethod
    def tearDownClass(cls) -> None:
        cls.client.close()

    def test_a_caption_job_end_to_end(self) -> None:
        updates: list[str] = []
        job = self.client.jobs.create_and_wait(
            {"source": {"url": self.video}, "mode": "captions_only"}, timeout=60, on_update=lambda j: updates.append(j["status"])
        )
        self.assertEqual(job["status"], "succeeded")
        self.assertEqual(updates[-1], "succeeded")
        srt = self.client.transcripts.export(job["result_id"], "srt")
        self.assertRegex(srt, r"^1\r?\n00:00:\d\d,\d{3} --> ")
        transcript = self.client.transcripts.get(job["result_id"])
        self.assertGreater(len(transcript["segments"]), 5)
        # Its words are findable: the longest word of its text, in this transcript.
        word = max((w for w in re.split(r"[\W\d_]+", transcript["text"]) if len(w) >= 5), key=len)
        found = self.client.transcripts.search(word, limit=50)
        self.assertTrue(any(m["transcript_id"] == job["result_id"] and word.lower() in m["text"].lower() for m in found["moments"]))
        # The mode is passed through: the answer says which ran.
        self.assertEqual(self.client.transcripts.search(word, mode="keyword", limit=1)["mode"], "keyword")

    def test_a_translated_transcript_and_its_translated_export(self) -> None:
        job = self.client.jobs.create_and_wait({"source": {"url": self.video}, "mode": "captions_only", "translate_to": "pt"}, timeout=60)
        self.assertEqual(job["status"], "succeeded")
        transcript = self.client.transcripts.get(job["result_id"])
        self.assertEqual(transcript["translation"]["language"], "pt")
        self.assertEqual(transcript["translation"]["origin"], "platform")
        self.assertEqual(len(transcript["translation"]["segments"]), len(transcript["segments"]))
        srt = self.client.transcripts.export(job["result_id"], "srt", translated=True)
        self.assertIn("Tradução da plataforma", srt)
        self.assertNotIn("Tradução da plataforma", self.client.transcripts.export(job["result_id"], "srt"))

    def test_the_same_idempotency_key_makes_one_job(self) -> None:
        key = str(uuid.uuid4())
        body = {"source": {"url": self.video}, "mode": "captions_only", "metadata": {"run": key}}
        first = self.client.jobs.create(body, idempotency_key=key)
        again = self.client.jobs.create(body, idempotency_key=key)
        self.assertEqual(first["id"], again["id"])

    def test_iterates_every_job_across_pages(self) -> None:
        for _ in range(3):
            self.client.jobs.create({"source": {"url": self.video}, "mode": "captions_only"})
        ids = [j["id"] for j in self.client.jobs.iterate(limit=1)]
        self.assertGreaterEqual(len(ids), 3)
        self.assertEqual(len(ids), len(set(ids)))
        self.assertEqual(ids[:5], [j["id"] for j in self.client.jobs.list(limit=5)["jobs"]])

        async def collect() -> list[str]:
            return [j["id"] async for j in self.client.jobs.aiterate(limit=2)]

        self.assertEqual(asyncio.run(collect()), ids)

    def test_uploads_a_file_and_transcribes_it(self) -> None:
        upload = self.client.uploads.upload_file(os.environ["TRANSCRIPT_TEST_AUDIO"])
        self.assertEqual(upload["status"], "ready")
        self.assertGreater(upload["duration_ms"], 1000)
        created = self.client.jobs.create({"source": {"upload_id": upload["id"]}, "mode": "transcribe", "language": "en"})
        # The growing transcript, read as it is published, ends with the job.
        segments = list(self.client.jobs.stream(created["id"], timeout=120))
        job = self.client.jobs.get(created["id"])
        self.assertEqual(job["status"], "succeeded", job.get("error"))
        transcript = self.client.transcripts.get(job["result_id"])
        self.assertGreater(len(transcript["words"] or []), 5)
        self.assertEqual([s["seq"] for s in segments], list(range(1, len(segments) + 1)))
        self.assertEqual([s["text"] for s in segments], [s["text"] for s in transcript["segments"]])

    def test_streams_speech_in_real_time_with_listen(self) -> None:
        # The test audio is the recognizer's WAV: a 44-byte header, then 16 kHz mono 16-bit PCM.
        with open(os.environ["TRANSCRIPT_TEST_AUDIO"], "rb") as f:
            pcm = f.read()[44:]
        with self.client.listen(language="en") as stream:
            self.assertEqual(stream.session["language"], "en")
            chunks = [pcm[at : at + 3200] for at in range(0, len(pcm), 3200)]
            # Faster than real time (a file, not a microphone): the stream still hears it utterance by utterance.
            messages = list(stream.transcribe(chunks, realtime_seconds_per_chunk=0.02))
        finals = " ".join(m["text"] for m in messages if m["type"] == "final")
        self.assertIn("country", finals.lower())
        self.assertLess(
            max(i for i, m in enumerate(messages) if m["type"] == "partial"),
            max(i for i, m in enumerate(messages) if m["type"] == "final"),
        )
        self.assertEqual(messages[-1]["type"], "closed")
        self.assertEqual(stream.closed, messages[-1])
        self.assertEqual(stream.closed["audio_seconds"], len(pcm) / 32000)
        self.assertEqual(stream.closed["credits_charged"], -(-len(pcm) // (32000 * 30)))

    def test_a_refused_stream_raises_the_services_reason(self) -> None:
        with self.assertRaises(TranscriptApiError) as caught:
            self.client.listen(language="tlh")
        self.assertEqual((caught.exception.status, caught.exception.code), (422, "LANGUAGE_UNSUPPORTED"))

    def test_a_stream_ended_by_an_error_raises_it_after_its_messages(self) -> None:
        with self.client.listen(language="en", encoding="opus", keep_audio=True) as stream:
            self.assertEqual((stream.session["encoding"], stream.session["keep_audio"]), ("opus", True))
            stream.send(bytes([(1 << 3) | 3, 0]))  # a code-3 Opus packet of zero frames
            with self.assertRaises(TranscriptApiError) as caught:
                list(stream)
        self.assertEqual((caught.exception.status, caught.exception.code), (0, "INVALID_REQUEST"))
        self.assertEqual(caught.exception.details["detail"], "audio")
        self.assertEqual(stream.closed["credits_charged"], 0)

    def test_a_batch(self) -> None:
        batch = self.client.batches.create(
            {"items": [{"source": {"url": self.video}, "mode": "captions_only"}, {"source": {"url": self.video}, "mode": "captions_only", "caption_languages": ["de"]}]}
        )
        done = self.client.batches.wait(batch["id"], timeout=90, interval=0.5)
        self.assertEqual(done["total_items"], 2)
        self.assertEqual(done["succeeded_items"] + done["failed_items"], 2)

    def test_a_refusal_is_a_typed_error(self) -> None:
        with self.assertRaises(TranscriptApiError) as caught:
            self.client.jobs.create({"source": {"url": "ftp://example.com/a.mp3"}, "mode": "captions_only"})
        err = caught.exception
        self.assertEqual((err.status, err.code, err.retryable), (422, "INVALID_URL", False))
        self.assertEqual(err.details["detail"], "source.url")
        self.assertRegex(err.request_id or "", r"^[0-9a-f-]{36}$")
        with self.assertRaises(TranscriptApiError) as missing:
            self.client.jobs.get(str(uuid.uuid4()))
        self.assertEqual(missing.exception.code, "NOT_FOUND")

    def test_usage_and_capabilities(self) -> None:
        self.assertIn("credits_remaining", self.client.usage())
        self.assertEqual(self.client.capabilities()["export_formats"], ["txt", "json", "srt", "vtt", "chapters"])

    def test_verifies_a_real_delivery_and_refuses_a_changed_one(self) -> None:
        with open(os.environ["TRANSCRIPT_TEST_WEBHOOK"], encoding="utf-8") as f:
            delivery = json.load(f)
        raw, headers, secret = delivery["raw"], delivery["headers"], delivery["secret"]
        at = int(headers["x-service-timestamp"])
        event = self.client.webhooks.verify(raw, headers, secret, now=at + 10)
        self.assertEqual(event["event_id"], headers["x-service-event-id"])
        with self.assertRaisesRegex(WebhookVerificationError, "signature"):
            verify_webhook(raw.replace("succeeded", "failed"), headers, secret, now=at)
        with self.assertRaisesRegex(WebhookVerificationError, "signature"):
            verify_webhook(raw, headers, secret + "x", now=at)
        with self.assertRaisesRegex(WebhookVerificationError, "tolerance"):
            verify_webhook(raw, headers, secret, now=at + 301)
        verify_webhook(raw.encode(), headers, secret, now=at - 300)  # the edge of the tolerance, and bytes


class TransportTest(unittest.TestCase):
    def client(self, handler, **kwargs) -> tuple[TranscriptClient, list[float]]:
        slept: list[float] = []
        c = TranscriptClient("tsk_test", "http://service.test", transport=httpx.MockTransport(handler), sleep=slept.append, **kwargs)
        return c, slept

    def test_retries_a_retryable_refusal_after_retry_after_with_the_same_key(self) -> None:
        seen: list[httpx.Request] = []

        def handler(request: httpx.Request) -> httpx.Response:
            seen.append(request)
            if len(seen) < 3:
                body = {"error": {"code": "SERVICE_UNAVAILABLE", "message": "down", "retryable": True}, "request_id": "r"}
                return httpx.Response(503, json=body, headers={"Retry-After": "7"})
            return httpx.Response(202, json={"id": "j1", "status": "queued"})

        c, slept = self.client(handler)
        self.assertEqual(c.jobs.create({"source": {"url": "https://x.test/v"}, "mode": "captions_only"})["id"], "j1")
        self.assertEqual(slept, [7.0, 7.0])
        keys = {r.headers["idempotency-key"] for r in seen}
        self.assertEqual(len(keys), 1)
        self.assertRegex(keys.pop(), r"^[0-9a-f-]{36}$")
        self.assertEqual(seen[0].headers["authorization"], "Bearer tsk_test")

    def test_does_not_retry_a_refusal_that_is_not_retryable_and_stops_after_max_retries(self) -> None:
        calls = []

        def refuse(request: httpx.Request) -> httpx.Response:
            calls.append(request)
            return httpx.Response(422, json={"error": {"code": "INVALID_REQUEST", "message": "no", "retryable": False}})

        c, slept = self.client(refuse)
        with self.assertRaises(TranscriptApiError):
            c.jobs.get("j")
        self.assertEqual((len(calls), slept), (1, []))

        def always_busy(request: httpx.Request) -> httpx.Response:
            calls.append(request)
            return httpx.Response(429, json={"error": {"code": "RATE_LIMITED", "message": "slow", "retryable": True}})

        calls.clear()
        c, slept = self.client(always_busy, max_retries=2)
        with self.assertRaises(TranscriptApiError) as caught:
            c.usage()
        self.assertEqual((caught.exception.code, len(calls), len(slept)), ("RATE_LIMITED", 3, 2))

    def test_a_wait_that_runs_out_raises_with_the_last_state(self) -> None:
        c, _ = self.client(lambda r: httpx.Response(200, json={"id": "j", "status": "processing", "stage": "downloading"}))
        with self.assertRaises(TranscriptTimeoutError) as caught:
            c.jobs.wait("j", timeout=0)
        self.assertEqual(caught.exception.last["stage"], "downloading")


if __name__ == "__main__":
    unittest.main()
