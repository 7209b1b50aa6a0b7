"""The recognizer's stream port: real-time recognition (streaming.py) for the API's `GET /v1/listen`
(api/listen/, issue 54 item 3). The API authenticates, limits and bills a stream, then relays its audio here over
one TCP connection; this process runs the stream with the model it already holds, so streams scale with the
recognizer processes (behind a TCP load balancer in production; the API finds them at RECOGNIZER_STREAM_URL).

The internal protocol (integrations/recognizers/stream-client.ts speaks the other side):
- the API sends one line of JSON, `{"language": "es" | null, "encoding": "pcm_s16le" | "opus"}`;
- this side answers one line, `{"type": "ready"}`, or `{"type": "error", "code": ..., "message": ...}` and closes
  (every slot busy: PROVIDER_UNAVAILABLE, retryable);
- then audio, as frames of a 4-byte big-endian length and that many bytes: 16-bit little-endian mono PCM at
  16 kHz, or one Opus packet (opus_input.py decodes it); a frame of length 0 ends the audio;
- this side sends each segment as a line of JSON, `{"type": "partial" | "final", "seq", "start", "end", "text",
  "language"}`, and after the last one `{"type": "end", "audio_seconds"}`, then closes; a stream whose recognition
  failed ends with an `error` line instead of `end` (INTERNAL_ERROR), so a fault never reads as a finished stream.
A connection that drops ends its stream; nothing is kept.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import struct
import threading
from collections.abc import Callable
from dataclasses import dataclass

from .decoding import Decoder, Profile
from .languages import SUPPORTED
from .opus_input import OpusToPcm
from .streaming import StreamRecognizer, StreamSegment

log = logging.getLogger("recognizer.stream")

# The longest audio frame accepted (64 KiB is 2 s of audio; clients send about 0.1 s).
MAX_FRAME_BYTES = 1 << 16


@dataclass(frozen=True)
class StreamSettings:
    port: int | None  # None: no stream port; 0: any free port (the ready line says which)
    host: str
    slots: int  # streams this process runs at once

    @staticmethod
    def from_env() -> StreamSettings:
        return StreamSettings(
            port=int(port) if (port := os.environ.get("RECOGNIZER_STREAM_PORT", "").strip()) else None,
            host=os.environ.get("RECOGNIZER_STREAM_HOST", "").strip() or "127.0.0.1",
            slots=max(1, int(os.environ.get("RECOGNIZER_STREAMS", "1") or 1)),
        )


def _line(message: dict[str, object]) -> bytes:
    return (json.dumps(message, ensure_ascii=False) + "\n").encode()


def segment_message(s: StreamSegment) -> dict[str, object]:
    return {"type": s.kind, "seq": s.seq, "start": s.start, "end": s.end, "text": s.text, "language": s.language}


class StreamRun:
    """One stream's recognition on a thread of its own: audio handed in by the connection, segments handed back
    through `emit` (called on that thread)."""

    def __init__(
        self, recognizer: StreamRecognizer, emit: Callable[[StreamSegment], None], to_pcm: Callable[[bytes], bytes] | None = None
    ):
        self._recognizer = recognizer
        self._emit = emit
        self._to_pcm = to_pcm  # frames that are not PCM (Opus packets) are decoded here, off the event loop
        self._pending: list[bytes] = []
        self._closed = False
        self._stopped = False
        self.failure: BaseException | None = None
        self._wake = threading.Condition()
        self.thread = threading.Thread(target=self._run, name="stream", daemon=True)

    def feed(self, pcm: bytes) -> None:
        with self._wake:
            if self.failure is not None or self._stopped:
                return  # nothing decodes it any more
            self._pending.append(pcm)
            self._wake.notify()

    def close(self) -> None:
        """The audio has ended: the stream finishes what it heard."""
        with self._wake:
            self._closed = True
            self._wake.notify()

    def stop(self) -> None:
        """The peer is gone: nothing more is decoded."""
        with self._wake:
            self._stopped = self._closed = True
            self._wake.notify()

    def _run(self) -> None:
        try:
            self._decode()
        except Exception as err:  # kept for the connection to answer: the thread ends, the slot is given back
            log.exception("stream recognition failed")
            with self._wake:
                self.failure = err
                self._pending = []

    def _decode(self) -> None:
        while True:
            with self._wake:
                while not self._pending and not self._closed:
                    self._wake.wait()
                if self._stopped:
                    return
                frames, self._pending = self._pending, []
                closing = self._closed
            chunk = b"".join(map(self._to_pcm, frames) if self._to_pcm else frames)
            if chunk:
                self._recognizer.feed(chunk)
                for s in self._recognizer.advance():
                    self._emit(s)
            if closing:
                with self._wake:
                    if self._pending:
                        continue  # audio that came with the end is read first
                for s in self._recognizer.close():
                    self._emit(s)
                return


class StreamServer:
    def __init__(self, decoder: Decoder, final_profile: Profile, settings: StreamSettings):
        self._decoder = decoder
        self._final_profile = final_profile
        self._settings = settings
        self._free = settings.slots
        self.server: asyncio.Server | None = None

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._serve, self._settings.host, self._settings.port)
        return int(self.server.sockets[0].getsockname()[1])

    async def stop(self) -> None:
        if self.server:
            self.server.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await self._stream(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass  # the API went away: the stream ends with it
        except Exception:  # a fault in one stream must not end the others
            log.exception("stream failed")
            try:
                writer.write(_line({"type": "error", "code": "INTERNAL_ERROR", "message": "The stream failed."}))
                await writer.drain()
            except ConnectionError:
                pass
        finally:
            writer.close()

    async def _stream(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        hello = json.loads(await reader.readuntil(b"\n"))
        language = hello.get("language")
        encoding = hello.get("encoding") or "pcm_s16le"
        if encoding not in ("pcm_s16le", "opus"):
            writer.write(_line({"type": "error", "code": "INVALID_REQUEST", "message": f"encoding={encoding}"}))
            return
        if language is not None and language not in SUPPORTED:
            writer.write(_line({"type": "error", "code": "LANGUAGE_UNSUPPORTED", "message": f"language={language}"}))
            return
        if self._free == 0:
            writer.write(_line({"type": "error", "code": "PROVIDER_UNAVAILABLE", "message": "Every stream slot of this recognizer is busy."}))
            return
        self._free -= 1
        loop = asyncio.get_running_loop()
        out: asyncio.Queue[StreamSegment | None] = asyncio.Queue()
        recognizer = StreamRecognizer(self._decoder, language, self._final_profile)

        def emit(segment: StreamSegment) -> None:
            loop.call_soon_threadsafe(out.put_nowait, segment)

        run = StreamRun(recognizer, emit, OpusToPcm().pcm if encoding == "opus" else None)

        def release() -> None:
            self._free += 1
            out.put_nowait(None)

        def joined() -> None:
            # The slot is free once the stream's thread has stopped decoding, not before.
            run.thread.join()
            if not loop.is_closed():  # the server is shutting down otherwise
                loop.call_soon_threadsafe(release)

        writer.write(_line({"type": "ready"}))
        run.thread.start()
        threading.Thread(target=joined, name="stream-join", daemon=True).start()
        sender = asyncio.create_task(self._send(out, writer, recognizer, run))
        try:
            while True:
                (size,) = struct.unpack(">I", await reader.readexactly(4))
                if size == 0:
                    run.close()
                    break
                if size > MAX_FRAME_BYTES:
                    sender.cancel()
                    writer.write(_line({"type": "error", "code": "INVALID_REQUEST", "message": f"frame_bytes>{MAX_FRAME_BYTES}"}))
                    await writer.drain()
                    return
                run.feed(await reader.readexactly(size))
            await sender
        finally:
            if not sender.done():
                sender.cancel()
            run.stop()

    async def _send(
        self, out: asyncio.Queue[StreamSegment | None], writer: asyncio.StreamWriter, recognizer: StreamRecognizer, run: StreamRun
    ) -> None:
        while (s := await out.get()) is not None:
            writer.write(_line(segment_message(s)))
            await writer.drain()
        if run.failure is not None:
            writer.write(_line({"type": "error", "code": "INTERNAL_ERROR", "message": "The stream's recognition failed."}))
            await writer.drain()
            writer.close()  # ends the reading side too: audio still coming has nowhere to go
            return
        writer.write(_line({"type": "end", "audio_seconds": round(recognizer.received(), 3)}))
        await writer.drain()
