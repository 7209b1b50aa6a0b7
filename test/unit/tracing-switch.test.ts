import { trace } from '@opentelemetry/api';
import { sqlSpanName } from '../../integrations/telemetry/spans';
import {
  installTracing,
  logTraceFields,
  temporalClientInterceptors,
  temporalWorkerOptions,
  tracer,
} from '../../integrations/telemetry/tracing';

describe('tracing switch', () => {
  it('stays off without an OTLP endpoint: no provider, no interceptors, non-recording spans, no log fields', () => {
    expect(installTracing('api', { env: {} })).toBeNull();
    const span = tracer().startSpan('x');
    expect(span.isRecording()).toBe(false);
    trace.getTracer('t').startActiveSpan('y', (s) => {
      expect(logTraceFields()).toEqual({});
      s.end();
    });
    expect(temporalClientInterceptors()).toBeUndefined();
    expect(temporalWorkerOptions()).toEqual({});
  });

  it('turns on with OTEL_EXPORTER_OTLP_ENDPOINT: recording spans, Temporal interceptors on both sides', async () => {
    const tracing = installTracing('api', { env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1' } });
    expect(tracing).not.toBeNull();
    try {
      tracer().startActiveSpan('x', (span) => {
        expect(span.isRecording()).toBe(true);
        expect(logTraceFields()).toEqual({ trace_id: span.spanContext().traceId, span_id: span.spanContext().spanId });
        span.end();
      });
      expect(temporalClientInterceptors()?.workflow).toHaveLength(2);
      expect(temporalWorkerOptions().interceptors?.workflowModules).toEqual([require.resolve('../../workflows/tracing')]);
    } finally {
      // Nothing listens on port 1: the last batch fails to export, which shutdown reports but does not throw.
      const warn = jest.spyOn(console, 'warn').mockImplementation(() => {});
      await tracing!.shutdown();
      expect(warn).toHaveBeenCalledWith(expect.stringContaining('the last spans were not exported'));
      warn.mockRestore();
    }
    expect(installTracing('api', { env: {} })).toBeNull();
  });
});

describe('SQL span names', () => {
  it.each([
    ['SELECT "public"."jobs"."id" FROM "public"."jobs" WHERE "id" = $1', 'SELECT jobs'],
    ['INSERT INTO "public"."credit_ledger" ("id") VALUES ($1)', 'INSERT credit_ledger'],
    ['UPDATE "public"."jobs" SET "status" = $1', 'UPDATE jobs'],
    ['WITH held AS (SELECT 1) UPDATE "public"."credit_accounts" SET x = 1', 'WITH credit_accounts'],
    ['BEGIN', 'BEGIN'],
    ['', 'SQL'],
  ])('%s → %s', (text, name) => {
    expect(sqlSpanName(text)).toBe(name);
  });
});
