"""Webhook verification exactly as the service signs."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import time
from collections.abc import Mapping
from typing import Any

from .errors import WebhookVerificationError

#: The service's documented tolerance for the timestamp of a delivery.
WEBHOOK_TOLERANCE_SECONDS = 300


def _header(headers: Mapping[str, Any], name: str) -> str | None:
    for key, value in headers.items():
        if key.lower() == name:
            return value[0] if isinstance(value, (list, tuple)) else value
    return None


def verify_webhook(
    payload: bytes | str,
    headers: Mapping[str, Any],
    secret: str,
    tolerance_seconds: int = WEBHOOK_TOLERANCE_SECONDS,
    now: float | None = None,
) -> dict[str, Any]:
    """Check a delivery and return its event.

    ``X-Service-Signature`` is the lowercase hex HMAC-SHA256 of
    ``{X-Service-Event-Id}.{X-Service-Timestamp}.{raw body}`` keyed with the endpoint's secret, and the
    timestamp (Unix seconds) must be within ``tolerance_seconds`` of now. Pass the body exactly as
    received. Raises WebhookVerificationError saying what failed.
    """
    event_id = _header(headers, "x-service-event-id")
    timestamp = _header(headers, "x-service-timestamp")
    signature = _header(headers, "x-service-signature")
    if not event_id or not timestamp or not signature:
        raise WebhookVerificationError("missing X-Service-Event-Id, X-Service-Timestamp or X-Service-Signature")
    if not re.fullmatch(r"\d{1,12}", timestamp):
        raise WebhookVerificationError("X-Service-Timestamp is not a Unix time in seconds")
    current = int(time.time() if now is None else now)
    if abs(current - int(timestamp)) > tolerance_seconds:
        raise WebhookVerificationError("the timestamp is outside the tolerance (a replayed or delayed delivery)")
    body = payload.encode("utf-8") if isinstance(payload, str) else bytes(payload)
    expected = hmac.new(secret.encode("utf-8"), f"{event_id}.{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected, signature):
        raise WebhookVerificationError("the signature does not match")
    try:
        return json.loads(body)
    except ValueError as err:
        raise WebhookVerificationError("the body is not JSON") from err
