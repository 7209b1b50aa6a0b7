"""The Transcript Service API over httpx: every /v1 operation as a typed method, plus what every integration
writes itself (waiting for a job, uploading a file, walking a list, verifying a webhook)."""

from __future__ import annotations

import asyncio
import email.utils
import os
import random
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any, Literal, cast

import httpx

from . import models
from .errors import TranscriptApiError, TranscriptTimeoutError
from .listen import ListenStream, listen_url, open_listen_stream
from .webhooks import verify_webhook

FINAL_JOB_STATUSES = ("succeeded", "failed", "cancelled")
ExportFormat = Literal["txt", "json", "srt", "vtt", "chapters"]
#: The longest long poll the service holds (GET /v1/jobs/{id}?wait=).
MAX_WAIT_SECONDS = 25
#: Statuses retried without reading the body: rate limits and a service or gateway that is down.
RETRY_STATUSES = {429, 502, 503, 504}

MEDIA_TYPES = {
    ".mp3": "audio/mpeg",
    ".m4a": "audio/mp4",
    ".aac": "audio/aac",
    ".wav": "audio/wav",
    ".ogg": "audio/ogg",
    ".opus": "audio/ogg",
    ".weba": "audio/webm",
    ".webm": "video/webm",
    ".mp4": "video/mp4",
}


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """Seconds a Retry-After header asks for (seconds or an HTTP date); None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        at = email.utils.parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError):
        return None
    return max(0.0, at - (time.time() if now is None else now))


class TranscriptClient:
    """A client of one workspace's API key.

    ``api_key`` defaults to TRANSCRIPT_API_KEY and ``base_url`` to TRANSCRIPT_API_URL (else
    http://localhost:3000). A POST without an Idempotency-Key gets one, kept across its retries. Network
    failures, 429, 502-504 and errors the service marks retryable are retried up to ``max_retries``
    times after the service's Retry-After (else exponential back-off with jitter, at most
    ``max_delay`` seconds per wait).
    """

    def __init__(
        self,
        api_key: str | None = None,
        base_url: str | None = None,
        *,
        max_retries: int = 3,
        base_delay: float = 0.5,
        max_delay: float = 30.0,
        timeout: float = 60.0,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        key = api_key if api_key is not None else os.environ.get("TRANSCRIPT_API_KEY")
        self.base_url = (base_url or os.environ.get("TRANSCRIPT_API_URL") or "http://localhost:3000").rstrip("/")
        headers = {"User-Agent": "transcript-service-client-python/1.0.0"}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        self._http = httpx.Client(base_url=self.base_url, headers=headers, timeout=timeout, transport=transport)
        # Uploads go to the store's signed URL: no API key there.
        self._plain = httpx.Client(timeout=None, transport=transport)
        self.max_retries = max_retries
        self.base_delay = base_delay
        self.max_delay = max_delay
        self._sleep = sleep
        self.jobs = Jobs(self)
        self.transcripts = Transcripts(self)
        self.uploads = Uploads(self)
        self.batches = Batches(self)
        self.video_discoveries = VideoDiscoveries(self)
        self.language_discoveries = LanguageDiscoveries(self)
        self.webhooks = Webhooks(self)

    def close(self) -> None:
        self._http.close()
        self._plain.close()

    def __enter__(self) -> TranscriptClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # ------------------------------------------------------------------ transport

    def _backoff(self, attempt: int) -> float:
        ceiling = min(self.max_delay, self.base_delay * 2**attempt)
        return ceiling / 2 + random.random() * ceiling / 2

    @staticmethod
    def _retryable(response: httpx.Response) -> bool:
        if response.status_code in RETRY_STATUSES:
            return True
        if response.status_code < 500:
            return False
        try:
            return bool(response.json().get("error", {}).get("retryable"))
        except ValueError:
            return False

    def request(
        self,
        method: str,
        path: str,
        *,
        params: dict[str, Any] | None = None,
        json: Any = None,
        headers: dict[str, str] | None = None,
        parse: Literal["json", "text", "none"] = "json",
    ) -> Any:
        """One call of any operation: retried as the class says; the JSON (or text) answer, or TranscriptApiError."""
        sent = dict(headers or {})
        if method == "POST" and not any(k.lower() == "idempotency-key" for k in sent):
            sent["Idempotency-Key"] = str(uuid.uuid4())
        query = {k: v for k, v in (params or {}).items() if v is not None}
        attempt = 0
        while True:
            last = attempt >= self.max_retries
            try:
                response = self._http.request(method, path, params=query, json=json, headers=sent)
            except httpx.TransportError:
                if last:
                    raise
                self._sleep(self._backoff(attempt))
                attempt += 1
                continue
            if not last and self._retryable(response):
                asked = retry_after_seconds(response.headers.get("retry-after"))
                self._sleep(min(self.max_delay, asked if asked is not None else self._backoff(attempt)))
                attempt += 1
                continue
            if response.is_error:
                try:
                    envelope = response.json()
                except ValueError:
                    envelope = None
                raise TranscriptApiError(response.status_code, envelope, response.headers.get("x-request-id"))
            if parse == "none" or response.status_code == 204:
                return None
            return response.text if parse == "text" else response.json()

    # ------------------------------------------------------------------ reads

    def usage(self) -> models.Usage:
        return cast(models.Usage, self.request("GET", "/v1/usage"))

    def capabilities(self) -> models.Capabilities:
        return cast(models.Capabilities, self.request("GET", "/v1/capabilities"))

    # ------------------------------------------------------------------ real time

    def listen(
        self, *, language: str | None = None, encoding: Literal["pcm_s16le", "opus"] | None = None, keep_audio: bool = False
    ) -> ListenStream:
        """Real-time transcription: opens GET /v1/listen with a one-use token minted by the API key and returns the
        open stream (see ListenStream). A refused stream raises TranscriptApiError with the service's reason (a
        WebSocket never sees a refused upgrade's status, so the plain GET, which runs the same checks, is asked); a
        busy recognizer is tried again like any retryable error. ``keep_audio`` keeps the audio, to download from
        GET /v1/listen/sessions/{id}/audio once the stream ends. Needs the ``websockets`` package."""
        from websockets.exceptions import InvalidHandshake

        params = {k: v for k, v in {"language": language, "encoding": encoding, "keep_audio": "true" if keep_audio else None}.items() if v}
        attempt = 0
        while True:
            token = self.request("POST", "/v1/listen/tokens")["token"]
            try:
                return open_listen_stream(listen_url(self.base_url, token, params))
            except (InvalidHandshake, OSError, TimeoutError):
                try:
                    self.request("GET", "/v1/listen", params={"token": token, **params})
                except TranscriptApiError as refusal:
                    if refusal.code != "UPGRADE_REQUIRED":
                        raise
                # It would be accepted now: the recognizers were busy (or the network failed). Again, as for a 503.
                if attempt >= self.max_retries:
                    raise
                self._sleep(self._backoff(attempt))
                attempt += 1


def _key(idempotency_key: str | None) -> dict[str, str]:
    return {"Idempotency-Key": idempotency_key} if idempotency_key else {}


class Jobs:
    def __init__(self, client: TranscriptClient) -> None:
        self._c = client

    def create(self, body: models.JobRequest, *, idempotency_key: str | None = None) -> models.Job:
        """POST /v1/jobs (an Idempotency-Key is made when none is given)."""
        return cast(models.Job, self._c.request("POST", "/v1/jobs", json=body, headers=_key(idempotency_key)))

    def get(self, job_id: str, *, wait: int | None = None) -> models.Job:
        """GET /v1/jobs/{id}; ``wait`` (1-25 s) holds the request until the job changes or ends."""
        return cast(models.Job, self._c.request("GET", f"/v1/jobs/{job_id}", params={"wait": wait}))

    def list(self, *, cursor: str | None = None, limit: int | None = None, platform: str | None = None, source_id: str | None = None) -> models.JobList:
        """One page of GET /v1/jobs, newest first."""
        params = {"cursor": cursor, "limit": limit, "platform": platform, "source_id": source_id}
        return cast(models.JobList, self._c.request("GET", "/v1/jobs", params=params))

    def iterate(self, *, limit: int | None = None, platform: str | None = None, source_id: str | None = None) -> Iterator[models.Job]:
        """Every job, newest first, following ``next_cursor``."""
        cursor: str | None = None
        while True:
            page = self.list(cursor=cursor, limit=limit, platform=platform, source_id=source_id)
            yield from page["jobs"]
            cursor = page["next_cursor"]
            if not cursor:
                return

    async def aiterate(
        self, *, limit: int | None = None, platform: str | None = None, source_id: str | None = None
    ) -> AsyncIterator[models.Job]:
        """Every job, newest first, for ``async for``: each page is fetched in a worker thread, so an asyncio program goes on meanwhile."""
        cursor: str | None = None
        while True:
            page = await asyncio.to_thread(self.list, cursor=cursor, limit=limit, platform=platform, source_id=source_id)
            for job in page["jobs"]:
                yield job
            cursor = page["next_cursor"]
            if not cursor:
                return

    def cancel(self, job_id: str) -> models.Job:
        return cast(models.Job, self._c.request("POST", f"/v1/jobs/{job_id}/cancel"))

    def retry(self, job_id: str, *, max_credits: int | None = None, idempotency_key: str | None = None) -> models.Job:
        body = {} if max_credits is None else {"max_credits": max_credits}
        return cast(models.Job, self._c.request("POST", f"/v1/jobs/{job_id}/retry", json=body, headers=_key(idempotency_key)))

    def wait(self, job_id: str, *, timeout: float = 1800, on_update: Callable[[models.Job], None] | None = None) -> models.Job:
        """Long-poll until the job is succeeded, failed or cancelled; TranscriptTimeoutError after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        job = self.get(job_id)
        seen = (job["status"], job["stage"])
        if on_update:
            on_update(job)
        while job["status"] not in FINAL_JOB_STATUSES:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TranscriptTimeoutError(f"job {job_id} is still {job['status']} after the timeout", job)
            job = self.get(job_id, wait=max(1, min(MAX_WAIT_SECONDS, int(left))))
            if (job["status"], job["stage"]) != seen:
                seen = (job["status"], job["stage"])
                if on_update:
                    on_update(job)
        return job

    def segments(self, job_id: str, *, after: int = 0, wait: int | None = None) -> models.JobSegments:
        """A running job's segments after ``after``; ``wait`` (1–25 s) holds until there are some or the job ends."""
        params: dict[str, Any] = {}
        if after:
            params["after"] = after
        if wait:
            params["wait"] = wait
        return cast(models.JobSegments, self._c.request("GET", f"/v1/jobs/{job_id}/segments", params=params))

    def stream(self, job_id: str, *, timeout: float = 1800) -> Iterator[models.PartialSegment]:
        """The job's growing transcript: yields each segment once, in time order, as the pieces are recognised, and
        ends when the job is final (then read the job and its transcript: speakers and per-region languages settle there)."""
        deadline = time.monotonic() + timeout
        after = 0
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TranscriptTimeoutError(f"job {job_id} is still running after the timeout", self.get(job_id))
            page = self.segments(job_id, after=after, wait=max(1, min(MAX_WAIT_SECONDS, int(left))))
            yield from page["segments"]
            after = page["next_after"]
            if page["status"] in FINAL_JOB_STATUSES and not page["segments"]:
                return

    def create_and_wait(
        self,
        body: models.JobRequest,
        *,
        timeout: float = 1800,
        on_update: Callable[[models.Job], None] | None = None,
        idempotency_key: str | None = None,
    ) -> models.Job:
        """Submit a job and wait until it is final. A failed or cancelled job is returned, not raised."""
        job = self.create(body, idempotency_key=idempotency_key)
        return self.wait(job["id"], timeout=timeout, on_update=on_update)


class Transcripts:
    def __init__(self, client: TranscriptClient) -> None:
        self._c = client

    def get(self, transcript_id: str) -> models.Transcript:
        return cast(models.Transcript, self._c.request("GET", f"/v1/transcripts/{transcript_id}"))

    def export(
        self,
        transcript_id: str,
        format: ExportFormat,
        *,
        max_line_length: int | None = None,
        max_lines: int | None = None,
        translated: bool = False,
    ) -> str:
        """The transcript as txt, srt, vtt or json text, or its chapters as a WebVTT chapters track (`chapters`).
        `translated=True`: its translation as txt, srt or vtt (a job that asked for `translate_to`)."""
        params = {
            "format": format,
            "max_line_length": max_line_length,
            "max_lines": max_lines,
            "translated": "true" if translated else None,
        }
        return cast(str, self._c.request("GET", f"/v1/transcripts/{transcript_id}/export", params=params, parse="text"))

    def delete(self, transcript_id: str) -> models.TranscriptDeletion:
        return cast(models.TranscriptDeletion, self._c.request("DELETE", f"/v1/transcripts/{transcript_id}"))

    def search(
        self,
        q: str,
        *,
        mode: str | None = None,
        language: str | None = None,
        platform: str | None = None,
        source_id: str | None = None,
        speaker: str | None = None,
        created_after: str | None = None,
        created_before: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> models.SearchResult:
        """Where something was said across the workspace's transcripts: moments, best first (GET /v1/search).

        ``mode``: ``hybrid`` (words and meaning; the server's default where it has the embedding model),
        ``keyword`` or ``semantic``; the answer's ``mode`` says which ran.
        """
        params = {
            "q": q,
            "mode": mode,
            "language": language,
            "platform": platform,
            "source_id": source_id,
            "speaker": speaker,
            "created_after": created_after,
            "created_before": created_before,
            "limit": limit,
            "cursor": cursor,
        }
        return cast(models.SearchResult, self._c.request("GET", "/v1/search", params=params))


class Uploads:
    def __init__(self, client: TranscriptClient) -> None:
        self._c = client

    def create(self, body: models.UploadRequest) -> models.Upload:
        return cast(models.Upload, self._c.request("POST", "/v1/uploads", json=body))

    def get(self, upload_id: str) -> models.Upload:
        return cast(models.Upload, self._c.request("GET", f"/v1/uploads/{upload_id}"))

    def complete(self, upload_id: str, *, timeout: float = 600) -> models.Upload:
        """Complete the upload and wait until it is verified: the ``ready`` upload, or TranscriptApiError saying why not."""
        upload = cast(models.Upload, self._c.request("POST", f"/v1/uploads/{upload_id}/complete"))
        deadline = time.monotonic() + timeout
        while upload["status"] in ("pending", "verifying"):
            if time.monotonic() > deadline:
                raise TranscriptTimeoutError(f"upload {upload_id} is still {upload['status']} after the timeout", upload)
            self._c._sleep(1.0)
            upload = self.get(upload_id)
        if upload["status"] != "ready":
            error = upload.get("error") or {"code": "INVALID_MEDIA", "message": f"The upload is {upload['status']}.", "retryable": False}
            raise TranscriptApiError(422, {"error": error})
        return upload

    def upload_file(self, path: str | os.PathLike[str], *, content_type: str | None = None, filename: str | None = None) -> models.Upload:
        """Reserve a slot with the file's exact size, PUT it (streamed from disk) to the signed URL, complete it."""
        file = Path(path)
        media_type = content_type or MEDIA_TYPES.get(file.suffix.lower())
        if not media_type:
            raise ValueError(f"no media type known for {file.name}: pass content_type")
        size = file.stat().st_size
        slot = self.create(cast(models.UploadRequest, {"filename": filename or file.name, "content_type": media_type, "bytes": size}))
        with file.open("rb") as body:
            put = self._c._plain.put(
                cast(str, slot["signed_upload_url"]),
                content=body,
                headers={"Content-Type": media_type, "Content-Length": str(size)},
            )
        if put.is_error:
            try:
                envelope = put.json()
            except ValueError:
                envelope = None
            raise TranscriptApiError(put.status_code, envelope, put.headers.get("x-request-id"))
        return self.complete(slot["id"])


class Batches:
    def __init__(self, client: TranscriptClient) -> None:
        self._c = client

    def create(self, body: models.BatchRequest, *, idempotency_key: str | None = None) -> models.Batch:
        return cast(models.Batch, self._c.request("POST", "/v1/batches", json=body, headers=_key(idempotency_key)))

    def get(self, batch_id: str) -> models.Batch:
        return cast(models.Batch, self._c.request("GET", f"/v1/batches/{batch_id}"))

    def wait(self, batch_id: str, *, timeout: float = 1800, interval: float = 2.0) -> models.Batch:
        """Poll until every item of the batch is final."""
        deadline = time.monotonic() + timeout
        while True:
            batch = self.get(batch_id)
            if batch["succeeded_items"] + batch["failed_items"] + batch["cancelled_items"] >= batch["total_items"]:
                return batch
            if time.monotonic() > deadline:
                raise TranscriptTimeoutError(f"batch {batch_id} is still {batch['status']} after the timeout", batch)
            self._c._sleep(interval)


class VideoDiscoveries:
    def __init__(self, client: TranscriptClient) -> None:
        self._c = client

    def create(self, body: models.VideoDiscoveryRequest, *, idempotency_key: str | None = None) -> models.VideoDiscovery:
        return cast(models.VideoDiscovery, self._c.request("POST", "/v1/video-discoveries", json=body, headers=_key(idempotency_key)))

    def get(self, discovery_id: str, *, wait: int | None = None) -> models.VideoDiscovery:
        return cast(models.VideoDiscovery, self._c.request("GET", f"/v1/video-discoveries/{discovery_id}", params={"wait": wait}))


class LanguageDiscoveries:
    def __init__(self, client: TranscriptClient) -> None:
        self._c = client

    def create(self, body: models.LanguageDiscoveryRequest, *, idempotency_key: str | None = None) -> models.LanguageDiscovery:
        return cast(models.LanguageDiscovery, self._c.request("POST", "/v1/language-discoveries", json=body, headers=_key(idempotency_key)))

    def get(self, discovery_id: str, *, wait: int | None = None) -> models.LanguageDiscovery:
        return cast(models.LanguageDiscovery, self._c.request("GET", f"/v1/language-discoveries/{discovery_id}", params={"wait": wait}))


class Webhooks:
    def __init__(self, client: TranscriptClient) -> None:
        self._c = client

    def list_endpoints(self) -> models.WebhookEndpointList:
        return cast(models.WebhookEndpointList, self._c.request("GET", "/v1/webhook-endpoints"))

    verify = staticmethod(verify_webhook)
