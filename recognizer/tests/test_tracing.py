"""The recognition activity's spans: each stage a child of the activity's span, in the executor's thread too.

Installs a tracer provider with an in-memory exporter for this test process (the other tests see no-op spans
before it and recording ones after; none of them looks at spans).
"""

import asyncio
import concurrent.futures
import json
import os
import shutil
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from opentelemetry import trace
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from recognizer.storage import LocalStore
from recognizer.tracing import install_tracing, tracing_enabled

ROOT = Path(__file__).resolve().parents[2]
ASR_EVAL = Path(os.environ.get("ASR_EVAL_DIR") or ROOT.parent / "shared" / "asr-eval")


class Switch(unittest.TestCase):
    def test_off_without_an_otlp_endpoint(self):
        self.assertFalse(tracing_enabled({}))
        self.assertTrue(tracing_enabled({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}))
        self.assertTrue(tracing_enabled({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces"}))


class RecognizePieceSpans(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        from recognizer.engine import Engine, EngineSettings
        from recognizer.model import model_spec

        cls.exporter = InMemorySpanExporter()
        cls.interceptors = install_tracing(SimpleSpanProcessor(cls.exporter))
        cls.engine = Engine(model_spec(), EngineSettings())

    def setUp(self):
        self.root = Path(tempfile.mkdtemp(prefix="store-"))
        self.store = LocalStore(self.root)
        self.exporter.clear()

    def tearDown(self):
        shutil.rmtree(self.root, ignore_errors=True)

    def test_each_stage_is_a_child_of_the_activity_span(self):
        from temporalio.contrib.opentelemetry import TracingInterceptor
        from temporalio.testing import ActivityEnvironment

        from recognizer.worker import RecognitionActivities, result_key

        self.assertEqual([type(i) for i in self.interceptors], [TracingInterceptor])
        clip = ASR_EVAL / "en/leopard_librispeech_1272-128104-0000.wav"
        self.store.put_bytes("work/j/piece-0.wav", clip.read_bytes(), "audio/wav")
        executor = concurrent.futures.ThreadPoolExecutor(max_workers=1)
        acts = RecognitionActivities(self.engine, self.store, executor)

        # In an activity's context, as the worker runs it, heartbeating every 10 ms: the recognition outlasts the
        # interval on any host (at the worker's 2 s it did only on a loaded one, and a heartbeat outside an
        # activity's context is an error).
        env = ActivityEnvironment()
        heartbeats: list = []
        env.on_heartbeat = lambda *details: heartbeats.append(details)

        async def run_activity() -> str:
            # What TracingInterceptor opens around the activity, from the workflow's header.
            with trace.get_tracer("test").start_as_current_span("RunActivity:recognizePiece"):
                return await env.run(acts._with_heartbeats, acts._recognize, {"jobId": "j", "language": "en"}, "work/j/piece-0.wav", 0)

        try:
            with mock.patch("recognizer.worker.HEARTBEAT_EVERY_S", 0.01):
                key = asyncio.run(run_activity())
        finally:
            executor.shutdown()
        self.assertEqual(key, result_key("j", 0))
        self.assertGreater(len(heartbeats), 0)
        self.assertTrue(json.loads(self.store.read(key))["words"])

        spans = {s.name: s for s in self.exporter.get_finished_spans()}
        activity = spans["RunActivity:recognizePiece"]
        stages = ["load piece", "decode audio", "voice activity detection", "recognition", "store result"]
        for name in stages:
            self.assertIn(name, spans, f"no span {name} in {sorted(spans)}")
            self.assertEqual(spans[name].parent.span_id, activity.context.span_id, name)
            self.assertEqual(spans[name].context.trace_id, activity.context.trace_id, name)
        # In the order the work happens, inside the activity's span.
        starts = [spans[n].start_time for n in stages]
        self.assertEqual(starts, sorted(starts))
        self.assertGreaterEqual(spans["store result"].end_time, spans["recognition"].end_time)
        self.assertLessEqual(spans["store result"].end_time, activity.end_time)
        self.assertGreater(spans["voice activity detection"].attributes["speech_seconds"], 1.0)


class LogLines(unittest.TestCase):
    def test_log_lines_inside_a_span_carry_its_trace_id(self):
        import logging

        from opentelemetry.sdk.trace import TracerProvider

        from recognizer.tracing import TraceIdFilter

        lines: list[str] = []

        class Collect(logging.Handler):
            def emit(self, record):
                lines.append(self.format(record))

        handler = Collect()
        handler.addFilter(TraceIdFilter())
        handler.setFormatter(logging.Formatter("%(message)s%(trace)s"))
        log = logging.getLogger("recognizer.test-trace-id")
        log.addHandler(handler)
        log.propagate = False
        try:
            log.warning("outside")
            with TracerProvider().get_tracer("test").start_as_current_span("RunActivity:recognizePiece") as span:
                log.warning("inside")
            trace_id = format(span.get_span_context().trace_id, "032x")
        finally:
            log.removeHandler(handler)
        self.assertEqual(lines, ["outside", f"inside trace_id={trace_id}"])


if __name__ == "__main__":
    unittest.main()
