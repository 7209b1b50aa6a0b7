/**
 * Reading traces back: spans from the in-memory exporter (tests, the benchmark) or from Jaeger's query API
 * (`npm run traces`) as one shape, where their time goes by kind, and a waterfall a person can read.
 */
import { SpanKind } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';

export interface SpanRecord {
  traceId: string;
  spanId: string;
  parentId: string | undefined;
  name: string;
  service: string;
  kind: SpanKind;
  /** Milliseconds since the epoch. */
  start: number;
  end: number;
  attributes: Record<string, unknown>;
}

const ms = (t: [number, number]) => t[0] * 1e3 + t[1] / 1e6;

export function fromReadableSpan(s: ReadableSpan): SpanRecord {
  return {
    traceId: s.spanContext().traceId,
    spanId: s.spanContext().spanId,
    parentId: s.parentSpanId,
    name: s.name,
    service: String(s.resource.attributes['service.name'] ?? ''),
    kind: s.kind,
    start: ms(s.startTime),
    end: ms(s.endTime),
    attributes: { ...s.attributes },
  };
}

interface JaegerTrace {
  traceID: string;
  spans: {
    spanID: string;
    operationName: string;
    references: { refType: string; spanID: string }[];
    startTime: number;
    duration: number;
    processID: string;
    tags: { key: string; value: unknown }[];
  }[];
  processes: Record<string, { serviceName: string }>;
}

const JAEGER_KINDS: Record<string, SpanKind> = {
  server: SpanKind.SERVER,
  client: SpanKind.CLIENT,
  producer: SpanKind.PRODUCER,
  consumer: SpanKind.CONSUMER,
};

/** One trace of Jaeger's query API (`GET /api/traces/{id}`: `data[0]`). Times there are microseconds. */
export function fromJaegerTrace(t: JaegerTrace): SpanRecord[] {
  return t.spans.map((s) => {
    const tags = Object.fromEntries(s.tags.map((tag) => [tag.key, tag.value]));
    return {
      traceId: t.traceID,
      spanId: s.spanID,
      parentId: s.references.find((r) => r.refType === 'CHILD_OF')?.spanID,
      name: s.operationName,
      service: t.processes[s.processID]?.serviceName ?? '',
      kind: JAEGER_KINDS[String(tags['span.kind'])] ?? SpanKind.INTERNAL,
      start: s.startTime / 1e3,
      end: (s.startTime + s.duration) / 1e3,
      attributes: tags,
    };
  });
}

/**
 * Where a stretch of a trace's time goes, by the kind of the innermost work running then: the kinds,
 * plus the workflow's own turns (Temporal deciding the next step) and what nothing covers.
 */
export const TIME_KINDS = [
  'sql',
  'outbound HTTP',
  'object storage',
  'recognizer',
  'activity body',
  'task-queue wait',
  'Temporal RPC',
  'HTTP handler',
  'workflow turns',
  'untraced',
] as const;
export type TimeKind = (typeof TIME_KINDS)[number];

/** The kind of a span's own time; earlier kinds in TIME_KINDS win where spans overlap. */
export function kindOf(s: SpanRecord): TimeKind | null {
  if (s.attributes['db.system']) return 'sql';
  if (s.name.startsWith('storage ')) return 'object storage';
  if (s.service === 'transcript-recognizer' || s.service.endsWith('recognizer')) return 'recognizer';
  if (s.kind === SpanKind.CLIENT && (s.attributes['url.full'] || s.attributes['http.request.method'])) return 'outbound HTTP';
  if (s.name.startsWith('RunActivity:')) return 'activity body';
  if (
    /^(StartWorkflow|SignalWorkflow|SignalWithStartWorkflow|QueryWorkflow|StartWorkflowUpdate|UpdateWorkflow|CancelWorkflow|DescribeWorkflow)/.test(
      s.name,
    )
  )
    return 'Temporal RPC';
  if (s.kind === SpanKind.SERVER) return 'HTTP handler';
  if (s.name.startsWith('RunWorkflow:')) return 'workflow turns';
  return null;
}

interface Stretch {
  start: number;
  end: number;
  kind: TimeKind;
}

/**
 * The stretches of time each kind holds: every span's own kind, plus the waits on a task queue: between an
 * activity's schedule (StartActivity) and the start of its run (RunActivity), and between a workflow's start
 * call and its first turn (RunWorkflow): the queue, a worker's poll, the server between.
 */
function stretches(spans: SpanRecord[]): Stretch[] {
  const out: Stretch[] = [];
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  for (const s of spans) {
    const kind = kindOf(s);
    if (kind) out.push({ start: s.start, end: s.end, kind });
    // A workflow's first task: from the start call's answer to the workflow's first turn on a worker.
    if (s.name.startsWith('RunWorkflow:')) {
      const started = s.parentId ? byId.get(s.parentId) : undefined;
      if (started?.name.startsWith('StartWorkflow:') && s.start > started.end)
        out.push({ start: started.end, end: s.start, kind: 'task-queue wait' });
    }
    if (s.name.startsWith('RunActivity:')) {
      const scheduled = s.parentId ? byId.get(s.parentId) : undefined;
      // A local activity waits for no queue: its gap is the worker's own turn (workflow time is the turn's start).
      const local = s.attributes['temporal.activity.local'] === true;
      if (scheduled?.name.startsWith('StartActivity:') && s.start > scheduled.start)
        out.push({ start: scheduled.start, end: s.start, kind: local ? 'workflow turns' : 'task-queue wait' });
    }
  }
  return out;
}

/**
 * How the window [from, to] of one trace divides among the kinds: each instant goes to the first kind (in
 * TIME_KINDS order) of the stretches covering it, else `untraced`. Totals in milliseconds; they add up to the window.
 */
export function timeByKind(spans: SpanRecord[], from: number, to: number): Record<TimeKind, number> {
  const totals = Object.fromEntries(TIME_KINDS.map((k) => [k, 0])) as Record<TimeKind, number>;
  const all = stretches(spans).filter((s) => s.end > from && s.start < to);
  const cuts = [...new Set([from, to, ...all.flatMap((s) => [s.start, s.end]).filter((t) => t > from && t < to)])].sort((a, b) => a - b);
  const rank = (k: TimeKind) => TIME_KINDS.indexOf(k);
  for (let i = 0; i + 1 < cuts.length; i++) {
    const a = cuts[i]!;
    const b = cuts[i + 1]!;
    let best: TimeKind = 'untraced';
    for (const s of all) if (s.start <= a && s.end >= b && rank(s.kind) < rank(best)) best = s.kind;
    totals[best] += b - a;
  }
  return totals;
}

/** The spans of a trace as an indented waterfall: offset from the first span, duration, service, name. */
export function waterfall(spans: SpanRecord[]): string[] {
  if (spans.length === 0) return [];
  const t0 = Math.min(...spans.map((s) => s.start));
  const ids = new Set(spans.map((s) => s.spanId));
  const children = (id: string | undefined) =>
    spans.filter((s) => (id === undefined ? !s.parentId || !ids.has(s.parentId) : s.parentId === id)).sort((a, b) => a.start - b.start);
  const lines: string[] = [];
  const walk = (s: SpanRecord, depth: number) => {
    const detail = s.attributes['db.statement'] ?? s.attributes['url.full'] ?? '';
    lines.push(
      `${(s.start - t0).toFixed(1).padStart(9)} ms ${(s.end - s.start).toFixed(1).padStart(9)} ms  ${s.service.padEnd(22)} ${'  '.repeat(depth)}${s.name}` +
        (detail ? `  ${String(detail).replace(/\s+/g, ' ').slice(0, 80)}` : ''),
    );
    for (const c of children(s.spanId)) walk(c, depth + 1);
  };
  for (const root of children(undefined)) walk(root, 0);
  return lines;
}
