/**
 * OpenTelemetry traces: one trace per request and per job, from the HTTP request through the workflow start,
 * the workflow and each activity (Temporal's interceptors, linked across the task queue by a header the Python
 * recognizer reads too), SQL, outbound HTTP and object storage (integrations/telemetry/spans.ts).
 *
 * On only when something receives the spans: OTEL_EXPORTER_OTLP_ENDPOINT (OTLP over HTTP/protobuf, batched),
 * or a span processor a test or the benchmark passes (an in-memory exporter). Off, nothing is registered: the
 * OpenTelemetry API answers every call with its no-op tracer, and workers run without Temporal's interceptors.
 *
 * The SDK is the 1.x line because @temporalio/interceptors-opentelemetry 1.24 exports workflow spans through it.
 */
import { context, propagation, trace, type Span, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor, type Sampler, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
  type OpenTelemetrySinks,
} from '@temporalio/interceptors-opentelemetry';
import type { WorkflowClientInterceptor, WorkflowStartInput } from '@temporalio/client';
import type { InjectedSinks, WorkerInterceptors } from '@temporalio/worker';

/** On each RunActivity span: whether the activity is local (scheduled and run inside the workflow's worker). */
export const LOCAL_ACTIVITY_ATTRIBUTE = 'temporal.activity.local';

/** The name of the service's own tracer (spans it makes around SQL, storage and requests). */
export const TRACER_NAME = 'transcript-service';

export interface Tracing {
  provider: NodeTracerProvider;
  /** Flushes and stops: every span ended so far is exported. */
  shutdown(): Promise<void>;
}

let installed: Tracing | null = null;
let undici: UndiciInstrumentation | null = null;

/**
 * Installs tracing for this process (`service` names it in every span's resource), or leaves it off when no
 * exporter is configured and no processor is given. Idempotent per process: a second call returns the first
 * installation (tests and the benchmark install once, then start API and workers in the same process).
 */
export function installTracing(
  service: string,
  opts: { processor?: SpanProcessor; env?: NodeJS.ProcessEnv; sampler?: Sampler } = {},
): Tracing | null {
  if (installed) return installed;
  const env = opts.env ?? process.env;
  const url = otlpTracesUrl(env);
  const processor = opts.processor ?? (url ? new BatchSpanProcessor(new OTLPTraceExporter({ url })) : null);
  if (!processor) return null;
  const provider = new NodeTracerProvider({
    resource: new Resource({ 'service.name': env.OTEL_SERVICE_NAME ?? service }),
    spanProcessors: [processor],
    // Unset: OTEL_TRACES_SAMPLER / OTEL_TRACES_SAMPLER_ARG decide (default: every trace).
    ...(opts.sampler ? { sampler: opts.sampler } : {}),
  });
  // The AsyncLocalStorage context manager and the W3C traceparent propagator, as the process's globals.
  provider.register();
  // Outbound platform, webhook and media requests go through undici; its diagnostics channels need no require hook.
  undici = new UndiciInstrumentation();
  undici.setTracerProvider(provider);
  undici.enable();
  installed = {
    provider,
    async shutdown() {
      undici?.disable();
      // The last spans are flushed; a collector that is down must not keep the process from stopping.
      await provider.shutdown().catch((err: Error) => console.warn(`tracing: the last spans were not exported: ${err.message}`));
      trace.disable();
      context.disable();
      propagation.disable();
      installed = null;
    },
  };
  return installed;
}

/** Where spans go, by OpenTelemetry's standard variables: the traces endpoint as given, or `/v1/traces` of the base endpoint. */
export function otlpTracesUrl(env: NodeJS.ProcessEnv): string | undefined {
  if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (env.OTEL_EXPORTER_OTLP_ENDPOINT) return `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`;
  return undefined;
}

export const tracingOn = () => installed !== null;

/** The service's tracer (the no-op tracer while tracing is off). */
export const tracer = (): Tracer => trace.getTracer(TRACER_NAME);

/**
 * Temporal client interceptors: the workflow start, signal, query and update calls as spans, the context in
 * their headers; then the start's trace id onto the workflow's page in the Temporal UI (its details, and the
 * memo `trace_id`), so an operator looking at a slow job finds its trace.
 */
export function temporalClientInterceptors(): { workflow: WorkflowClientInterceptor[] } | undefined {
  return installed ? { workflow: [new OpenTelemetryWorkflowClientInterceptor(), traceIdOnWorkflowPage] } : undefined;
}

/** Runs inside the start span the OpenTelemetry interceptor opened, so the active trace is the workflow's. */
const traceIdOnWorkflowPage: WorkflowClientInterceptor = {
  start: (input, next) => next(withTraceId(input)),
  startWithDetails: (input, next) => next(withTraceId(input)),
};

function withTraceId(input: WorkflowStartInput): WorkflowStartInput {
  const traceId = activeTraceId();
  if (!traceId) return input;
  const details = [input.options.staticDetails, `Trace: ${traceId}`].filter(Boolean).join('\n\n');
  return { ...input, options: { ...input.options, staticDetails: details, memo: { ...input.options.memo, trace_id: traceId } } };
}

/**
 * A worker's share: activity spans (children of the workflow's schedule span) and the workflow interceptors
 * (workflows/tracing.ts, bundled with the workflows), whose spans leave the sandbox through a sink.
 * Empty while tracing is off.
 */
export function temporalWorkerOptions(): { interceptors?: WorkerInterceptors; sinks?: InjectedSinks<OpenTelemetrySinks> } {
  if (!installed) return {};
  const resource = installed.provider.resource;
  return {
    interceptors: {
      activity: [
        (ctx) => ({
          inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
          outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
        // Inside the span the first one opened: marks a local activity (it runs in the workflow's worker, no task queue).
        (ctx) => ({
          inbound: {
            execute: (input, next) => {
              trace.getActiveSpan()?.setAttribute(LOCAL_ACTIVITY_ATTRIBUTE, ctx.info.isLocal);
              return next(input);
            },
          },
        }),
      ],
      workflowModules: [require.resolve('../../workflows/tracing')],
    },
    // Workflow spans go through the provider's own processors: one pipeline for every span of the process.
    sinks: { exporter: makeWorkflowExporter(installed.provider.activeSpanProcessor, resource as Resource) },
  };
}

/** The trace id of the active span, or undefined (tracing off, or no span). */
export function activeTraceId(): string | undefined {
  const span = trace.getActiveSpan();
  const id = span?.spanContext().traceId;
  return id && span!.spanContext().traceFlags & 1 ? id : undefined;
}

/** The trace and span ids of the active span for a log line (pino's mixin): empty while tracing is off. */
export function logTraceFields(): { trace_id?: string; span_id?: string } {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

/** Runs `fn` inside a span named `name`; the span records the error and ends when the promise settles. */
export async function inSpan<T>(name: string, attributes: Record<string, string | number>, fn: (span: Span) => Promise<T>): Promise<T> {
  return tracer().startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: 2, message: (err as Error).message });
      throw err;
    } finally {
      span.end();
    }
  });
}
