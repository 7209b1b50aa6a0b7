"""OpenTelemetry traces of the recognition worker, joined to the job's trace.

The TypeScript workflow schedules each activity with its span context in the `_tracer-data` header; Temporal's
TracingInterceptor (Python SDK) reads it, so `RunActivity:recognizePiece` is a child of the workflow's
`StartActivity:recognizePiece` whatever process runs it. Inside, `stage()` marks the steps where the time goes:
loading the piece, decoding the audio, voice detection, recognition, speaker embedding, storing the result.

On only when OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set, exported over
OTLP/HTTP in batches; off, no provider is installed and every stage is OpenTelemetry's no-op span.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from opentelemetry import trace

if TYPE_CHECKING:  # the SDK is imported only once tracing is on
    from opentelemetry.sdk.trace import SpanProcessor
    from opentelemetry.trace import Span
    from temporalio.contrib.opentelemetry import TracingInterceptor as Interceptor

TRACER_NAME = "transcript-service.recognizer"


def tracing_enabled(env: Mapping[str, str] | None = None) -> bool:
    seen = os.environ if env is None else env
    return bool(seen.get("OTEL_EXPORTER_OTLP_ENDPOINT") or seen.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"))


def install_tracing(processor: SpanProcessor | None = None, service: str = "transcript-recognizer") -> list[Interceptor]:
    """Installs the tracer provider (OTLP, or `processor` in tests) and returns the worker's interceptors;
    returns none and installs nothing while tracing is off."""
    if processor is None and not tracing_enabled():
        return []
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from temporalio.contrib.opentelemetry import TracingInterceptor

    if processor is None:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.trace.export import BatchSpanProcessor

        processor = BatchSpanProcessor(OTLPSpanExporter())
    provider = TracerProvider(resource=Resource.create({"service.name": os.environ.get("OTEL_SERVICE_NAME", service)}))
    provider.add_span_processor(processor)
    trace.set_tracer_provider(provider)
    return [TracingInterceptor()]


def shutdown_tracing() -> None:
    """Exports what is left (the last spans of a stopping worker)."""
    provider = trace.get_tracer_provider()
    if hasattr(provider, "shutdown"):
        provider.shutdown()


def stage(name: str, **attributes: Any) -> AbstractContextManager[Span]:
    """A span for one step of the work, under the active one (the activity's)."""
    return trace.get_tracer(TRACER_NAME).start_as_current_span(name, attributes=attributes or None)


class TraceIdFilter(logging.Filter):
    """Adds ` trace_id=<id>` to a log line written inside a recorded span (the activity's), as the TypeScript
    processes put `trace_id` in theirs: a slow piece's log line leads to its job's trace."""

    def filter(self, record: logging.LogRecord) -> bool:
        context = trace.get_current_span().get_span_context()
        record.trace = f" trace_id={trace.format_trace_id(context.trace_id)}" if context.is_valid and context.trace_flags.sampled else ""
        return True
