import { SpanKind } from '@opentelemetry/api';
import { fromJaegerTrace, timeByKind, waterfall, type SpanRecord } from '../../integrations/telemetry/span-report';

const span = (
  spanId: string,
  parentId: string | undefined,
  name: string,
  start: number,
  end: number,
  extra: Partial<SpanRecord> = {},
): SpanRecord => ({
  traceId: 't',
  spanId,
  parentId,
  name,
  service: 'transcript-worker',
  kind: SpanKind.INTERNAL,
  start,
  end,
  attributes: {},
  ...extra,
});

// A job in miniature: the request (0–10 ms, 3 ms of SQL), the start (10–14), the workflow (15–60) with one
// activity scheduled at 16 and run 20–50 (10 ms of platform call, 5 of SQL inside), the workflow's last turn 50–60.
const trace: SpanRecord[] = [
  span('a', undefined, 'POST /v1/jobs', 0, 10, { kind: SpanKind.SERVER, service: 'transcript-api' }),
  span('b', 'a', 'INSERT jobs', 4, 7, { kind: SpanKind.CLIENT, attributes: { 'db.system': 'postgresql' } }),
  span('c', 'a', 'StartWorkflow:jobWorkflow', 10, 14, { kind: SpanKind.CLIENT }),
  span('d', 'c', 'RunWorkflow:jobWorkflow', 15, 60),
  span('e', 'd', 'StartActivity:fetchCaptions', 16, 52, { kind: SpanKind.CLIENT }),
  span('f', 'e', 'RunActivity:fetchCaptions', 20, 50, { kind: SpanKind.SERVER }),
  span('g', 'f', 'GET', 22, 32, { kind: SpanKind.CLIENT, attributes: { 'url.full': 'http://127.0.0.1/x' } }),
  span('h', 'f', 'INSERT transcripts', 40, 45, { kind: SpanKind.CLIENT, attributes: { 'db.system': 'postgresql' } }),
];

describe('where a trace’s time goes', () => {
  it('gives each instant to the innermost kind, counts start-to-first-turn and schedule-to-run as task-queue wait, and adds up to the window', () => {
    const t = timeByKind(trace, 0, 60);
    expect(t).toMatchObject({
      sql: 8,
      'outbound HTTP': 10,
      'activity body': 30 - 10 - 5,
      'task-queue wait': 4 + 1,
      'Temporal RPC': 4,
      'HTTP handler': 10 - 3,
      'workflow turns': 45 - 30 - 4,
      untraced: 0,
    });
    expect(Object.values(t).reduce((a, b) => a + b, 0)).toBeCloseTo(60);
  });

  it('clips to the window asked for', () => {
    const t = timeByKind(trace, 20, 50);
    expect(t['activity body'] + t.sql + t['outbound HTTP']).toBeCloseTo(30);
    expect(t['HTTP handler']).toBe(0);
  });

  it('reads Jaeger’s query API and draws the waterfall in start order, children indented', () => {
    const spans = fromJaegerTrace({
      traceID: 't1',
      processes: { p1: { serviceName: 'transcript-api' } },
      spans: [
        {
          spanID: 's2',
          operationName: 'SELECT jobs',
          references: [{ refType: 'CHILD_OF', spanID: 's1' }],
          startTime: 1_000_500,
          duration: 250,
          processID: 'p1',
          tags: [
            { key: 'span.kind', value: 'client' },
            { key: 'db.statement', value: 'SELECT 1' },
          ],
        },
        {
          spanID: 's1',
          operationName: 'GET /v1/jobs',
          references: [],
          startTime: 1_000_000,
          duration: 2_000,
          processID: 'p1',
          tags: [{ key: 'span.kind', value: 'server' }],
        },
      ],
    });
    expect(spans.find((s) => s.spanId === 's2')).toMatchObject({ parentId: 's1', kind: SpanKind.CLIENT, start: 1000.5, end: 1000.75 });
    const lines = waterfall(spans);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\s+0\.0 ms\s+2\.0 ms\s+transcript-api\s+GET \/v1\/jobs$/);
    expect(lines[1]).toMatch(/^\s+0\.5 ms\s+0\.3 ms\s+transcript-api\s+ {2}SELECT jobs {2}SELECT 1$/);
  });
});
