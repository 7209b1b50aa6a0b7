import http from 'node:http';
import type { AddressInfo } from 'node:net';
// The OTLP protobuf messages, as the exporter of the same version encodes them (typed below: the package
// declares its generated root only as a protobufjs Root).
import generated from '@opentelemetry/otlp-transformer/build/src/generated/root';

interface KeyValue {
  key: string;
  value?: { stringValue?: string | null; intValue?: unknown; doubleValue?: number | null; boolValue?: boolean | null } | null;
}
interface ExportTraceServiceRequest {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] } | null;
    scopeSpans?: {
      spans?: {
        name?: string | null;
        traceId?: Uint8Array | null;
        spanId?: Uint8Array | null;
        parentSpanId?: Uint8Array | null;
        startTimeUnixNano?: unknown;
        endTimeUnixNano?: unknown;
        attributes?: KeyValue[];
      }[];
    }[];
  }[];
}
const otlp = (
  generated as unknown as {
    opentelemetry: {
      proto: { collector: { trace: { v1: { ExportTraceServiceRequest: { decode(b: Uint8Array): ExportTraceServiceRequest } } } } };
    };
  }
).opentelemetry;

/** A span as an OTLP exporter sent it: ids in hex, the resource's service name. */
export interface ReceivedSpan {
  service: string;
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  startNanos: bigint;
  endNanos: bigint;
  attributes: Record<string, unknown>;
}

export interface OtlpReceiver {
  /** The base endpoint, as OTEL_EXPORTER_OTLP_ENDPOINT (spans are POSTed to `/v1/traces` under it). */
  url: string;
  spans: ReceivedSpan[];
  close(): Promise<void>;
}

const hex = (b: Uint8Array | null | undefined) => Buffer.from(b ?? []).toString('hex');
const nanos = (v: unknown) => BigInt(String(v ?? 0));

/**
 * A collector's OTLP/HTTP traces endpoint on loopback, protobuf as the Python SDK's exporter sends it: what a
 * process in another language exported, for tests that follow a trace across the task queue.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      const message = otlp.proto.collector.trace.v1.ExportTraceServiceRequest.decode(Buffer.concat(chunks));
      for (const rs of message.resourceSpans ?? []) {
        const service = String(rs.resource?.attributes?.find((a) => a.key === 'service.name')?.value?.stringValue ?? '');
        for (const ss of rs.scopeSpans ?? [])
          for (const s of ss.spans ?? [])
            spans.push({
              service,
              name: s.name ?? '',
              traceId: hex(s.traceId),
              spanId: hex(s.spanId),
              parentSpanId: hex(s.parentSpanId),
              startNanos: nanos(s.startTimeUnixNano),
              endNanos: nanos(s.endTimeUnixNano),
              attributes: Object.fromEntries(
                (s.attributes ?? []).map((a) => [
                  a.key,
                  a.value?.stringValue ?? a.value?.intValue ?? a.value?.doubleValue ?? a.value?.boolValue,
                ]),
              ),
            });
      }
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
