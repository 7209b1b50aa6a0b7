"""Errors the client raises: the API's refusals, waits that ran out, webhooks that do not verify."""

from __future__ import annotations

from typing import Any


class TranscriptApiError(Exception):
    """A refusal by the API, with the envelope's fields: code, message, retryable, details, request_id."""

    def __init__(self, status: int, envelope: dict[str, Any] | None, request_id: str | None = None) -> None:
        error = (envelope or {}).get("error") or {}
        self.status = status
        self.code: str = error.get("code") or f"HTTP_{status}"
        self.message: str = error.get("message") or f"HTTP {status}"
        self.retryable: bool = bool(error.get("retryable", status >= 500))
        self.details: dict[str, Any] | None = error.get("details")
        self.retry_after_seconds: int | None = error.get("retry_after_seconds")
        self.request_id: str | None = (envelope or {}).get("request_id") or request_id
        detail = f" ({self.details['detail']})" if self.details and self.details.get("detail") else ""
        super().__init__(f"{self.code}: {self.message}{detail}")


class TranscriptTimeoutError(Exception):
    """A wait that ran out; `last` is the last state seen (the job keeps running)."""

    def __init__(self, message: str, last: Any) -> None:
        super().__init__(message)
        self.last = last


class WebhookVerificationError(Exception):
    """A webhook request whose signature, timestamp or body does not check out."""
