import { trace } from '@opentelemetry/api';
import { installTracing } from '../../integrations/telemetry/tracing';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver';

// The production path: OTEL_EXPORTER_OTLP_ENDPOINT set, spans batched and sent over OTLP/HTTP protobuf to
// a collector (here one on loopback), with the process's service name and the parent of each span.
let collector: OtlpReceiver;
beforeAll(async () => {
  collector = await startOtlpReceiver();
});
afterAll(() => collector.close());

it('exports over OTLP to OTEL_EXPORTER_OTLP_ENDPOINT when it is set', async () => {
  const tracing = installTracing('transcript-api', { env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url } })!;
  const tracer = trace.getTracer('test');
  const ids = tracer.startActiveSpan('POST /v1/jobs', (parent) => {
    const child = tracer.startSpan('INSERT jobs');
    child.end();
    parent.end();
    return { traceId: parent.spanContext().traceId, parent: parent.spanContext().spanId, child: child.spanContext().spanId };
  });
  // The batch goes out at the latest when the process stops.
  await tracing.shutdown();
  const sent = collector.spans.filter((s) => s.traceId === ids.traceId);
  expect(sent.map((s) => [s.service, s.name, s.parentSpanId]).sort()).toEqual([
    ['transcript-api', 'INSERT jobs', ids.parent],
    ['transcript-api', 'POST /v1/jobs', ''],
  ]);
});
