"""Real-time transcription (GET /v1/listen as a WebSocket; the messages are in the service's /asyncapi.json):
the socket side of ``TranscriptClient.listen()``, over the ``websockets`` library's synchronous client."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import urlencode

from . import models
from .errors import TranscriptApiError

if TYPE_CHECKING:
    from websockets.sync.client import ClientConnection

#: How long opening the socket may take before it counts as failed.
OPEN_TIMEOUT_SECONDS = 10.0


def listen_url(base_url: str, token: str, params: dict[str, str]) -> str:
    scheme, rest = base_url.split("://", 1)
    return f"{'wss' if scheme == 'https' else 'ws'}://{rest}/v1/listen?{urlencode({'token': token, **params})}"


class ListenStream:
    """One open stream. ``send`` audio (16 kHz 16-bit mono PCM, about 0.1 s a call; or one Opus packet a call
    with ``encoding="opus"``), ``stop()`` when it ends, and iterate for the messages: ``partial`` and ``final``
    segments, then ``closed`` with the charge. Sending and reading may happen on different threads;
    ``transcribe()`` does both for audio you already have. Iteration raises TranscriptApiError (status 0) after
    the last message when an ``error`` message ended the stream; ``closed`` holds the charge once it came."""

    def __init__(self, connection: ClientConnection, session: models.ListenSessionMessage) -> None:
        self._ws = connection
        self.session = session
        self.closed: models.ListenClosedMessage | None = None
        self.error: models.ListenErrorMessage | None = None

    def send(self, audio: bytes) -> None:
        self._ws.send(bytes(audio))

    def stop(self) -> None:
        """The audio has ended: the service answers the last final, then ``closed``."""
        self._ws.send(json.dumps({"type": "stop"}))

    def close(self) -> None:
        """Drops the stream at once (the audio sent so far is charged)."""
        self._ws.close()

    def __enter__(self) -> ListenStream:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def __iter__(self) -> Iterator[models.ListenServerMessage]:
        from websockets.exceptions import ConnectionClosed

        try:
            for raw in self._ws:
                if isinstance(raw, bytes):
                    continue
                message = cast(models.ListenServerMessage, json.loads(raw))
                if message["type"] == "closed":
                    self.closed = cast(models.ListenClosedMessage, message)
                elif message["type"] == "error":
                    self.error = cast(models.ListenErrorMessage, message)
                yield message
        except ConnectionClosed:
            pass  # the service closed without the closing handshake: what came is what there is
        if self.error is not None:
            raise TranscriptApiError(0, cast(dict[str, Any], self.error), self.error.get("request_id"))

    def transcribe(self, chunks: Iterable[bytes], *, realtime_seconds_per_chunk: float | None = None) -> Iterator[models.ListenServerMessage]:
        """Sends ``chunks`` on a thread (each after ``realtime_seconds_per_chunk`` when given, as a microphone
        would), then ``stop()``; yields the messages as they come, until ``closed``."""

        def feed() -> None:
            from websockets.exceptions import ConnectionClosed

            try:
                for chunk in chunks:
                    self.send(chunk)
                    if realtime_seconds_per_chunk:
                        time.sleep(realtime_seconds_per_chunk)
                self.stop()
            except ConnectionClosed:
                pass  # the stream ended early: its error message says why

        sender = threading.Thread(target=feed, name="listen-send", daemon=True)
        sender.start()
        try:
            yield from self
        finally:
            sender.join(timeout=1)


def open_listen_stream(url: str) -> ListenStream:
    """Opens the socket and reads ``session``; raises websockets' InvalidStatus when the upgrade is refused."""
    from websockets.sync.client import connect

    connection = connect(url, open_timeout=OPEN_TIMEOUT_SECONDS, max_size=1 << 20)
    try:
        first = json.loads(connection.recv(timeout=OPEN_TIMEOUT_SECONDS))
    except Exception:
        connection.close()
        raise
    if first.get("type") != "session":
        connection.close()
        raise TranscriptApiError(0, first if first.get("type") == "error" else None, first.get("request_id"))
    return ListenStream(connection, cast(models.ListenSessionMessage, first))
