"""The official Python client of the Transcript Service API."""

from . import models
from .client import FINAL_JOB_STATUSES, TranscriptClient
from .errors import TranscriptApiError, TranscriptTimeoutError, WebhookVerificationError
from .listen import ListenStream
from .webhooks import WEBHOOK_TOLERANCE_SECONDS, verify_webhook

__all__ = [
    "FINAL_JOB_STATUSES",
    "ListenStream",
    "TranscriptApiError",
    "TranscriptClient",
    "TranscriptTimeoutError",
    "WEBHOOK_TOLERANCE_SECONDS",
    "WebhookVerificationError",
    "models",
    "verify_webhook",
]
