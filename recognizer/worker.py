"""The recognition worker: a Temporal worker on its own task queue with four activities, `recognizePiece`,
`labelSpeakers`, `alignAudio` and `translateTexts` (machine translation, translation.py: a model process like the
recognizer, so it scales with the recognition workers).

The TypeScript job workflow (workflows/job.ts) cuts long audio into pieces
and calls `recognizePiece(plan, pieceKey, index)` by name on the recognition
task queue (RECOGNITION_TASK_QUEUE, default `recognition`) for each piece.
This process loads the model once at start and serves pieces until stopped,
so recognition scales apart from everything else: more of these processes,
or GPU machines, on the same queue.

The activity reads the piece from the object store, recognises it, writes
the raw result as JSON to `work/<jobId>/result-<index>.json` and returns that
key (activities/transcription.ts `storeRecognition` stitches the pieces).
With speaker labels asked for, each result carries the voice embeddings
of its speech, and `labelSpeakers(plan, resultKeys, offsets)` clusters those
of all pieces together and writes each word's speaker. `alignAudio` gives a
known text word times (alignment.py): a caption track's cues (`word_timing`)
or a user's text (`align_text`). Audio never travels
through Temporal. It heartbeats every 2 s while it works
(the workflow's heartbeat timeout is 10 s), and failures carry the error
catalogue's codes (errors.py).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import functools
import json
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from temporalio import activity
from temporalio.client import Client
from temporalio.exceptions import ApplicationError
from temporalio.worker import Worker

from .alignment import Cue, align_captions, align_text
from .audio import SAMPLE_RATE, read_audio
from .engine import Engine, EngineSettings, RecognitionRequest
from .errors import ServiceError, without_machine_paths
from .model import ModelError, model_spec
from .scratch import clear_idle_scratch, process_runs, scratch_dir
from .speakers import SpeakerWindows, cluster, concatenate, label_times, speaker_names
from .storage import LocalStore, S3Store, assert_valid_key, store_from_env
from .stream_server import StreamServer, StreamSettings
from .tracing import TraceIdFilter, install_tracing, shutdown_tracing, stage
from .translation import MODEL_NAME as TRANSLATION_MODEL
from .translation import translate_texts as machine_translate
from .wire import Json, spec_of_plan

HEARTBEAT_EVERY_S = 2.0
DEFAULT_TASK_QUEUE = "recognition"
log = logging.getLogger("recognizer")


def result_key(job_id: str, index: int) -> str:
    """Where the result of piece `index` goes (activities/transcription.ts reads and deletes the same keys)."""
    return f"work/{job_id}/result-{index}.json"


def speakers_key(job_id: str) -> str:
    """Where the speaker of every word goes (activities/transcription.ts reads and deletes it with the results)."""
    return f"work/{job_id}/speakers.json"


def alignment_key(job_id: str) -> str:
    """Where an alignment's result goes (activities/alignment.ts reads and deletes it)."""
    return f"work/{job_id}/alignment.json"


def translation_key(job_id: str) -> str:
    """Where a transcript's machine translation goes (activities/translation.ts reads and deletes it)."""
    return f"work/{job_id}/translation.json"


def to_application_error(err: ServiceError) -> ApplicationError:
    # A job's error reaches its caller: it names no file of this machine (PyAV's complaint names the scratch file).
    return ApplicationError(without_machine_paths(err.message), without_machine_paths(err.detail), type=err.code, non_retryable=not err.retryable)


class RecognitionActivities:
    def __init__(self, engine: Engine, store: LocalStore | S3Store, executor: concurrent.futures.Executor):
        self.engine = engine
        self.store = store
        self.executor = executor

    def _recognize(self, plan: Json, piece_key: str, index: int, stop: threading.Event, progress: Json) -> str:
        job_id = str(plan.get("jobId", ""))
        key = result_key(job_id, index)
        assert_valid_key(piece_key)
        assert_valid_key(key)
        # A previous attempt that wrote the result and then lost its worker did the work already.
        if self.store.exists(key):
            return key
        with scratch_dir("piece-") as tmp:
            wav = os.path.join(tmp, "piece.wav")
            with stage("load piece", key=piece_key):
                self.store.download(piece_key, wav)

            def on_progress(end: float) -> None:
                progress["decodedSeconds"] = round(end, 1)

            result = self.engine.recognize(wav, RecognitionRequest.from_spec(spec_of_plan(plan)), stop=stop, on_progress=on_progress)
        result["piece_key"] = piece_key
        with stage("store result", key=key):
            self.store.put_bytes(key, json.dumps(result, ensure_ascii=False).encode("utf-8"), "application/json")
        log.info(
            "piece %s: %.1f s of audio in %.2f s, language %s, %d words",
            piece_key,
            result["duration"],
            result["recognize_seconds"],
            result["language"],
            len(result["words"]),
        )
        return key

    def _label_speakers(self, plan: Json, result_keys: list[str], offsets: list[float]) -> str:
        """Clusters the speaker windows of every piece at once (a voice is one speaker across pieces) and writes
        the speaker of every word of every piece, in the pieces' word order, to `work/<jobId>/speakers.json`."""
        job_id = str(plan.get("jobId", ""))
        key = speakers_key(job_id)
        assert_valid_key(key)
        if self.store.exists(key):
            return key
        if len(offsets) != len(result_keys):
            raise ServiceError("INVALID_REQUEST", f"{len(result_keys)} results but {len(offsets)} offsets")
        results = []
        for k in result_keys:
            assert_valid_key(k)
            results.append(json.loads(self.store.read(k).decode("utf-8")))
        windows = concatenate(
            [SpeakerWindows.from_json(r["speaker_windows"], offset) for r, offset in zip(results, offsets, strict=True) if r.get("speaker_windows")]
        )
        labels = cluster(windows.embeddings, spec_of_plan(plan).speakers_expected)
        times = [(w["start"] + offset, w["end"] + offset) for r, offset in zip(results, offsets, strict=True) for w in r["words"]]
        names = speaker_names(label_times(windows, labels, times))
        pieces, at = [], 0
        for r in results:
            pieces.append(names[at : at + len(r["words"])])
            at += len(r["words"])
        body = {"speakers": len(set(names)), "windows": int(len(labels)), "pieces": pieces}
        self.store.put_bytes(key, json.dumps(body).encode("utf-8"), "application/json")
        log.info("job %s: %d speaker(s) in %d windows of %d piece(s)", job_id, body["speakers"], body["windows"], len(result_keys))
        return key

    def _align(self, plan: Json, audio_key: str, request_key: str, stop: threading.Event, progress: Json) -> str:
        """Aligns the text of `request_key` (written by activities/alignment.ts: a caption track's cues, or a
        user's text) to the job's audio and writes the words and match scores to `work/<jobId>/alignment.json`."""
        job_id = str(plan.get("jobId", ""))
        key = alignment_key(job_id)
        for k in (audio_key, request_key, key):
            assert_valid_key(k)
        if self.store.exists(key):
            return key
        request = json.loads(self.store.read(request_key).decode("utf-8"))
        language = self.engine.check_language(request.get("language"))

        def on_progress(end: float) -> None:
            progress["alignedSeconds"] = round(end, 1)

        t0 = time.monotonic()
        with scratch_dir("align-") as tmp:
            wav = os.path.join(tmp, "audio.wav")
            self.store.download(audio_key, wav)
            audio = read_audio(wav)
        if request.get("kind") == "cues":
            if language is None:
                raise ServiceError("INVALID_REQUEST", "a caption alignment needs the track's language")
            cues = [Cue(float(c["start"]), float(c["end"]), str(c["text"])) for c in request["cues"]]
            body: Json = {"kind": "cues", "language": language, "cues": align_captions(self.engine, audio, language, cues, stop, on_progress)}
        elif request.get("kind") == "text":
            body = {"kind": "text", **align_text(self.engine, audio, str(request["text"]), language, stop, on_progress)}
        else:
            raise ServiceError("INVALID_REQUEST", f"unknown alignment kind {request.get('kind')!r}")
        body["model"] = self.engine.name
        body["align_seconds"] = round(time.monotonic() - t0, 3)
        self.store.put_bytes(key, json.dumps(body, ensure_ascii=False).encode("utf-8"), "application/json")
        log.info("job %s: %s aligned over %.1f s of audio in %.2f s", job_id, body["kind"], len(audio) / SAMPLE_RATE, body["align_seconds"])
        return key

    def _translate(self, plan: Json, request_key: str, stop: threading.Event, progress: Json) -> str:
        """Translates the texts of `request_key` (written by activities/translation.ts) and writes them, in order,
        to `work/<jobId>/translation.json`."""
        job_id = str(plan.get("jobId", ""))
        key = translation_key(job_id)
        for k in (request_key, key):
            assert_valid_key(k)
        if self.store.exists(key):
            return key
        request = json.loads(self.store.read(request_key).decode("utf-8"))
        texts = [str(t) for t in request["texts"]]

        def on_progress(done: int) -> None:
            progress["translatedTexts"] = done

        t0 = time.monotonic()
        with stage("translate", direction=str(request["direction"]), texts=len(texts)):
            translated = machine_translate(str(request["direction"]), texts, stop, on_progress)
        body: Json = {"texts": translated, "model": TRANSLATION_MODEL, "translate_seconds": round(time.monotonic() - t0, 3)}
        self.store.put_bytes(key, json.dumps(body, ensure_ascii=False).encode("utf-8"), "application/json")
        log.info("job %s: %d text(s) translated %s in %.2f s", job_id, len(texts), request["direction"], body["translate_seconds"])
        return key

    async def _with_heartbeats(self, fn: Callable[..., str], *args: Any) -> str:
        """Runs `fn(*args, stop, progress)` on the executor, heartbeating its progress; a cancel stops it at its next check."""
        loop = asyncio.get_running_loop()
        stop = threading.Event()
        progress: Json = {}  # keys only ever replaced: safe to copy while the worker thread writes
        # The executor's thread runs in this task's context, so the stages are children of the activity's span.
        work: asyncio.Future[str] = loop.run_in_executor(
            self.executor, contextvars.copy_context().run, functools.partial(fn, *args, stop, progress)
        )
        try:
            while True:
                done, _ = await asyncio.wait({work}, timeout=HEARTBEAT_EVERY_S)
                if done:
                    return work.result()
                activity.heartbeat(dict(progress))
        except asyncio.CancelledError:
            # Cancelled or timed out: the work stops at its next check (its Stopped is not news).
            stop.set()
            work.add_done_callback(lambda f: f.cancelled() or f.exception())
            raise
        except ServiceError as err:
            raise to_application_error(err) from err

    @activity.defn(name="alignAudio")
    async def align_audio(self, plan: Json, audio_key: str, request_key: str) -> str:
        return await self._with_heartbeats(self._align, plan, audio_key, request_key)

    @activity.defn(name="labelSpeakers")
    async def label_speakers(self, plan: Json, result_keys: list[str], offsets: list[float]) -> str:
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self.executor, contextvars.copy_context().run, self._label_speakers, plan, result_keys, offsets)
        except ServiceError as err:
            raise to_application_error(err) from err

    @activity.defn(name="translateTexts")
    async def translate_texts(self, plan: Json, request_key: str) -> str:
        return await self._with_heartbeats(self._translate, plan, request_key)

    @activity.defn(name="recognizePiece")
    async def recognize_piece(self, plan: Json, piece_key: str, index: int) -> str:
        return await self._with_heartbeats(self._recognize, plan, piece_key, index)


def _configure_logging() -> None:
    level = {"trace": "DEBUG", "debug": "DEBUG", "info": "INFO", "warn": "WARNING", "error": "ERROR", "fatal": "CRITICAL"}.get(
        os.environ.get("LOG_LEVEL", "info").lower(), "INFO"
    )
    if os.environ.get("LOG_LEVEL", "").lower() == "silent":
        level = "ERROR"
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(TraceIdFilter())
    logging.basicConfig(level=level, handlers=[handler], format="%(levelname)s %(name)s: %(message)s%(trace)s")
    # The SDK's own chatter (poll errors while the server restarts) is kept at warnings.
    logging.getLogger("temporalio").setLevel(max(logging.WARNING, logging.getLevelName(level)))
    logging.getLogger("faster_whisper").setLevel(logging.WARNING)


async def _watch_parent(parent_pid: int, stop: asyncio.Event) -> None:
    """Ends the worker when the process that started it (npm run dev, npm test) is gone, even after a SIGKILL."""
    while not stop.is_set():
        if not process_runs(parent_pid):
            log.warning("parent process %d is gone: stopping", parent_pid)
            stop.set()
            return
        await asyncio.sleep(2)


async def run_worker() -> int:
    t_start = time.monotonic()
    _configure_logging()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the model is a local folder: never ask a hub
    spec = model_spec()
    settings = EngineSettings.from_env()
    try:
        engine = Engine(spec, settings)
    except ModelError as err:
        print(f"recognizer: {err}", file=sys.stderr, flush=True)
        return 2
    # What killed processes left on this host's disk (scratch.py), before this one takes any work.
    swept = clear_idle_scratch()
    t_warm = time.monotonic()
    engine.warm_up()
    warm_seconds = time.monotonic() - t_warm
    store = store_from_env()
    address = os.environ.get("TEMPORAL_ADDRESS", "").strip() or "127.0.0.1:7233"
    namespace = os.environ.get("TEMPORAL_NAMESPACE", "").strip() or "default"
    task_queue = os.environ.get("RECOGNITION_TASK_QUEUE", "").strip() or DEFAULT_TASK_QUEUE
    client = await Client.connect(address, namespace=namespace, interceptors=install_tracing())
    executor = concurrent.futures.ThreadPoolExecutor(max_workers=settings.workers, thread_name_prefix="recognize")
    acts = RecognitionActivities(engine, store, executor)
    worker = Worker(
        client,
        task_queue=task_queue,
        activities=[acts.recognize_piece, acts.label_speakers, acts.align_audio, acts.translate_texts],
        max_concurrent_activities=settings.workers,
        graceful_shutdown_timeout=timedelta(seconds=5),
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    watcher = None
    parent = int(os.environ.get("RECOGNIZER_PARENT_PID", "0") or 0)
    if parent > 0:
        watcher = asyncio.create_task(_watch_parent(parent, stop))
    running = asyncio.create_task(worker.run())
    # Real-time streams (GET /v1/listen) with the same model, when a port is configured.
    stream_settings = StreamSettings.from_env()
    streams = StreamServer(engine.decoder, engine.profile("fast"), stream_settings) if stream_settings.port is not None else None
    stream_port = await streams.start() if streams else None
    # The stack launchers (stack/recognizer.ts) wait for this line.
    print(
        f"recognizer ready: model={engine.name} device={settings.device} compute_type={settings.compute_type} "
        f"threads={settings.threads} concurrency={settings.workers} beam_size={settings.beam_size} "
        f"task_queue={task_queue} namespace={namespace} store={store.describe()} "
        f"verify_s={engine.verify_seconds:.2f} load_s={engine.load_seconds:.2f} warm_s={warm_seconds:.2f} "
        f"start_s={time.monotonic() - t_start:.2f} pid={os.getpid()} scratch_swept={len(swept)} "
        f"stream_port={stream_port if stream_port is not None else 'off'} stream_slots={stream_settings.slots}",
        flush=True,
    )
    stopper = asyncio.create_task(stop.wait())
    await asyncio.wait({running, stopper}, return_when=asyncio.FIRST_COMPLETED)
    if running.done() and running.exception() is not None:
        log.error("worker stopped: %s", running.exception())
        return 1
    if streams:
        await streams.stop()
    await worker.shutdown()
    executor.shutdown(wait=True, cancel_futures=True)
    # No piece is recognised any more: this process's own scratch folder goes too.
    clear_idle_scratch()
    if watcher:
        watcher.cancel()
    shutdown_tracing()
    return 0
