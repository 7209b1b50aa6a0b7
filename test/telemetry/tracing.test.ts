import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import pino from 'pino';
import request from 'supertest';
import { installTracing, logTraceFields, type Tracing } from '../../integrations/telemetry/tracing';
import { workflowIds } from '../../workflows/definitions';
import { bearer, createWorkspace, signInSession, startTestApi } from '../support/harness';
import { startJobStack, submit, videositeCaptionRoutes, VIDEO_URL, waitFinal, waitUntilFinal, type JobStack } from '../support/job-stack';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { startRecognizer, type RecognizerHandle } from '../../stack/recognizer';
import { evalClips } from '../support/asr-eval';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver';
import { complete, reserveAndPut } from '../support/uploads';

// Traces on the real stack, collected by an in-memory exporter. Installed before the API's Temporal client
// and the worker are built, as api/main.ts and worker/main.ts install it first thing.
const exporter = new InMemorySpanExporter();
let tracing: Tracing;
let stack: JobStack;
let receiver: WebhookReceiver;
// The Python recognizer of this file, on its own task queue, exporting over OTLP to a loopback collector.
const recognitionTaskQueue = `recognition-traced-${randomUUID()}`;
let collector: OtlpReceiver;
let recognizer: RecognizerHandle;

beforeAll(async () => {
  tracing = installTracing('test', { processor: new SimpleSpanProcessor(exporter) })!;
  collector = await startOtlpReceiver();
  [stack, receiver, recognizer] = await Promise.all([
    startJobStack(videositeCaptionRoutes(), { recognitionTaskQueue }),
    startWebhookReceiver(),
    startRecognizer({
      temporalAddress: process.env.TEMPORAL_ADDRESS!,
      taskQueue: recognitionTaskQueue,
      dataDir: process.env.DATA_DIR!,
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_BSP_SCHEDULE_DELAY: '100', LOG_LEVEL: 'warn' },
      prefix: '[traced recognizer] ',
    }),
  ]);
}, 120_000);
afterAll(async () => {
  await recognizer.stop();
  await receiver.close();
  await stack.close();
  await collector.close();
  await tracing.shutdown();
});

const hr = (t: [number, number]) => t[0] * 1e3 + t[1] / 1e6;

/** One trace's spans, with lookups by name and parent, and the tree as indented names (printed on failure). */
function traceOf(traceId: string) {
  const spans = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
  const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
  const childrenOf = (s: ReadableSpan) =>
    spans.filter((c) => c.parentSpanId === s.spanContext().spanId).sort((a, b) => hr(a.startTime) - hr(b.startTime));
  const lines: string[] = [];
  const walk = (s: ReadableSpan, depth: number) => {
    lines.push(`${'  '.repeat(depth)}${s.name}`);
    for (const c of childrenOf(s)) walk(c, depth + 1);
  };
  const roots = spans.filter((s) => !s.parentSpanId || !byId.has(s.parentSpanId));
  for (const root of roots) walk(root, 0);
  const one = (name: string, under?: ReadableSpan) => {
    const found = (under ? childrenOf(under) : spans).filter((s) => s.name === name);
    if (found.length !== 1)
      throw new Error(`expected one span ${name}${under ? ` under ${under.name}` : ''}, found ${found.length} in:\n${lines.join('\n')}`);
    return found[0]!;
  };
  return { spans, roots, childrenOf, one, tree: lines.join('\n') };
}

/** Waits until the exporter holds a span matching `predicate` (workflow spans arrive when their activation completes). */
async function spanWhere(predicate: (s: ReadableSpan) => boolean, timeoutMs = 5000): Promise<ReadableSpan> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const found = exporter.getFinishedSpans().find(predicate);
    if (found) return found;
    if (Date.now() > until) throw new Error('no such span');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('a caption job is one trace', () => {
  it('joins the request, its SQL, the workflow start, the workflow, each activity, the platform calls and the webhook', async () => {
    const ws = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const session = await signInSession(stack.api.app, ws.email, ws.password);
    const endpoint = await request(stack.api.app)
      .post('/v1/webhook-endpoints')
      .set('Cookie', session.cookie)
      .set('X-CSRF-Token', session.csrf)
      .send({ url: receiver.url })
      .expect(201);
    receiver.configure({ secret: endpoint.body.secret });
    // The rate-limit statement held back 100 ms: the submit's reads (the route's prepare) must not wait for it.
    const limits = stack.api.deps.rateLimits;
    const consume = limits.consume.bind(limits);
    limits.consume = async (...args) => {
      await new Promise((r) => setTimeout(r, 100));
      return consume(...args);
    };
    const job = await submit(stack.api, ws.apiKey, {
      source: { url: VIDEO_URL },
      mode: 'captions_only',
      webhook_endpoint_id: endpoint.body.id,
    }).finally(() => (limits.consume = consume));
    expect(job.status).toBe(202);
    expect((await waitFinal(stack.api, ws.apiKey, job.body.id)).body.status).toBe('succeeded');
    const [delivery] = await receiver.waitFor((all) => all.some((d) => d.status === 200 && d.raw.includes(job.body.id)));

    // The request is the root: a SERVER span named by its route, with its request id.
    const server = exporter
      .getFinishedSpans()
      .find((s) => s.name === 'POST /v1/jobs' && s.attributes['http.request_id'] === job.headers['x-request-id'])!;
    expect(server).toBeDefined();
    expect(server.kind).toBe(SpanKind.SERVER);
    expect(server.parentSpanId).toBeUndefined();
    // The workflow's span is exported when its last activation completes.
    await spanWhere((s) => s.name === 'RunWorkflow:jobWorkflow' && s.spanContext().traceId === server.spanContext().traceId);
    const t = traceOf(server.spanContext().traceId);
    expect(t.roots).toEqual([server]);

    // Its SQL: the job accepted inside the request by one statement (reuse rule, key, credits, hold, row:
    // acceptHeldRow), no transaction around it, as a CLIENT span with the statement.
    const accept = t.one('WITH transcripts', server);
    expect(accept.kind).toBe(SpanKind.CLIENT);
    expect(accept.attributes['db.statement']).toMatch(/FROM transcripts\s+WHERE workspace_id = \$\d+::uuid AND reuse_key = /);
    expect(accept.attributes['db.statement']).toMatch(/INSERT INTO jobs\s+SELECT \* FROM jsonb_populate_record/);
    expect(accept.attributes['db.statement']).toMatch(/UPDATE credit_accounts SET reserved = reserved \+/);
    // Before the answer, three statements and no more: the count, the endpoint's check beside it, the accept,
    // which tells a replay of the key itself (the workflow's start and its mark come after the answer). Besides them,
    // the API key's first use here reads its owner and stamps its use (cached after).
    const answeredAt = hr(server.endTime);
    const authentication = ['SELECT users', 'UPDATE api_keys'];
    const sql = t
      .childrenOf(server)
      .filter((s) => s.attributes['db.system'] === 'postgresql' && hr(s.startTime) < answeredAt && !authentication.includes(s.name));
    expect(sql.map((s) => s.name).sort()).toEqual(['INSERT rate_limits', 'SELECT webhook_endpoints', 'WITH transcripts']);

    // The submit's read ran beside its rate-limit statement (the route's prepare), not after it.
    const count = t.one('INSERT rate_limits', server);
    expect(hr(t.one('SELECT webhook_endpoints', server).endTime)).toBeLessThan(hr(count.startTime));

    // The workflow start (after the commit, still in the request's trace), the workflow under it, each activity under that.
    const start = t.one('StartWorkflow:jobWorkflow', server);
    const run = t.one('RunWorkflow:jobWorkflow', start);
    for (const activity of ['startJob', 'fetchCaptions', 'completeJob', 'deliverWebhookAttempt']) {
      const scheduled = t.one(`StartActivity:${activity}`, run);
      t.one(`RunActivity:${activity}`, scheduled);
    }

    // Local activities (the job's bookkeeping) are marked: their gap is no task queue.
    expect(t.one('RunActivity:startJob', t.one('StartActivity:startJob', run)).attributes['temporal.activity.local']).toBe(true);

    // The platform calls of fetchCaptions, to the replay origin, as CLIENT spans with their URL and status.
    const fetch = t.one('RunActivity:fetchCaptions', t.one('StartActivity:fetchCaptions', run));
    expect(fetch.attributes['temporal.activity.local']).toBe(false);
    const platformCalls = t.childrenOf(fetch).filter((s) => s.kind === SpanKind.CLIENT && s.attributes['url.full']);
    expect(platformCalls.length).toBeGreaterThanOrEqual(2);
    for (const call of platformCalls) {
      expect(String(call.attributes['url.full'])).toContain(stack.origin.url);
      expect(call.attributes['http.response.status_code']).toBe(200);
    }
    expect(t.childrenOf(fetch).map((s) => s.name)).toContain('INSERT transcripts');

    // The webhook delivery: its POST span, whose context the subscriber receives as traceparent.
    const deliver = t.one('RunActivity:deliverWebhookAttempt', t.one('StartActivity:deliverWebhookAttempt', run));
    const post = t.one('POST', deliver);
    expect(post.attributes['url.full']).toBe(receiver.url);
    // Before the POST, one statement reads the event and its endpoint together.
    const readsBeforePost = t.childrenOf(deliver).filter((s) => s.attributes['db.system'] && hr(s.startTime) < hr(post.startTime));
    expect(readsBeforePost.map((s) => s.name)).toEqual(['SELECT webhook_events']);
    // After it, one statement logs the attempt and marks the event delivered (two could be half-done). Counted
    // from the POST's start: its span may end a moment after the answer was read and the write began.
    const writesAfterPost = t.childrenOf(deliver).filter((s) => s.attributes['db.system'] && hr(s.startTime) > hr(post.startTime));
    expect(writesAfterPost.map((s) => s.name)).toEqual(['WITH webhook_deliveries']);
    expect(delivery!.headers.traceparent).toBe(`00-${server.spanContext().traceId}-${post.spanContext().spanId}-01`);

    // The operator's view: the trace id on the workflow's page in the Temporal UI (details and memo).
    const described = await stack.api.deps.temporal.workflow.getHandle(workflowIds.job(job.body.id)).describe();
    expect(described.memo).toMatchObject({ trace_id: server.spanContext().traceId });
    expect(await described.staticDetails()).toContain(`Trace: ${server.spanContext().traceId}`);
  });

  it('puts the trace id in the JSON access log of the request', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'info', mixin: logTraceFields }, { write: (line: string) => void lines.push(line) });
    const api = await startTestApi({}, { logger });
    try {
      const ws = await createWorkspace(api.deps);
      const res = await request(api.app).get('/v1/jobs').set(bearer(ws.apiKey)).expect(200);
      const server = await spanWhere((s) => s.name === 'GET /v1/jobs' && s.attributes['http.request_id'] === res.headers['x-request-id']);
      const access = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'request' && l.request_id === res.headers['x-request-id']);
      expect(access).toMatchObject({ trace_id: server.spanContext().traceId, span_id: server.spanContext().spanId, route: '/v1/jobs' });
    } finally {
      await api.close();
    }
  });

  it('leaves probes untraced', async () => {
    const before = exporter.getFinishedSpans().length;
    await request(stack.api.app).get('/healthz').expect(200);
    await request(stack.api.app).get('/metrics').expect(200);
    const res = await request(stack.api.app).get('/v1/capabilities');
    await spanWhere((s) => s.attributes['http.request_id'] === res.headers['x-request-id']);
    const added = exporter.getFinishedSpans().slice(before);
    expect(added.filter((s) => s.kind === SpanKind.SERVER && s.name.startsWith('GET ')).map((s) => s.name)).toEqual([
      'GET /v1/capabilities',
    ]);
  });

  it('continues a caller’s trace from its traceparent header', async () => {
    const ws = await createWorkspace(stack.api.deps);
    const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const res = await request(stack.api.app)
      .get('/v1/jobs')
      .set(bearer(ws.apiKey))
      .set('traceparent', `00-${callerTrace}-00f067aa0ba902b7-01`)
      .expect(200);
    const server = await spanWhere((s) => s.attributes['http.request_id'] === res.headers['x-request-id']);
    expect(server.spanContext().traceId).toBe(callerTrace);
    expect(server.parentSpanId).toBe('00f067aa0ba902b7');
  });
});

describe('an AI transcription job is one trace across the task queue', () => {
  it('links the Python recognizer’s activity and its stages under the workflow’s schedule span', async () => {
    const ws = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const clip = evalClips().find((c) => c.file === 'en/leopard_librispeech_1272-128104-0000.wav')!;
    const { slot } = await reserveAndPut(stack.api, ws, clip.audio, 'audio/wav', { filename: path.basename(clip.audio) });
    expect((await complete(stack.api, ws, slot.id)).status).toBeLessThan(300);
    const job = await submit(stack.api, ws.apiKey, { source: { upload_id: slot.id }, mode: 'transcribe', language: 'en' });
    expect(job.status).toBe(202);
    const final = await waitUntilFinal(stack.api, ws.apiKey, job.body.id);
    expect(final.body.status).toBe('succeeded');

    const server = exporter
      .getFinishedSpans()
      .find((s) => s.name === 'POST /v1/jobs' && s.attributes['http.request_id'] === job.headers['x-request-id'])!;
    const traceId = server.spanContext().traceId;
    await spanWhere((s) => s.name === 'RunWorkflow:jobWorkflow' && s.spanContext().traceId === traceId);
    const t = traceOf(traceId);
    const run = t.one('RunWorkflow:jobWorkflow', t.one('StartWorkflow:jobWorkflow', server));
    // Scheduled by the TypeScript workflow; run by the Python worker, which reports to the collector.
    const scheduled = t.one('StartActivity:recognizePiece', run);
    expect(t.childrenOf(scheduled)).toEqual([]);
    const until = Date.now() + 10_000;
    const python = () => collector.spans.filter((s) => s.traceId === traceId);
    while (!python().some((s) => s.name === 'store result') && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    const activity = python().find((s) => s.name === 'RunActivity:recognizePiece');
    expect(activity).toMatchObject({ service: 'transcript-recognizer', parentSpanId: scheduled.spanContext().spanId });
    const stages = python()
      .filter((s) => s.parentSpanId === activity!.spanId)
      .sort((a, b) => Number(a.startNanos - b.startNanos))
      .map((s) => s.name);
    expect(stages).toEqual(['load piece', 'decode audio', 'voice activity detection', 'recognition', 'store result']);
    // The activity's time on the recognizer sits inside the workflow's schedule span.
    const startNanos = BigInt(scheduled.startTime[0]) * 1_000_000_000n + BigInt(scheduled.startTime[1]);
    expect(activity!.startNanos).toBeGreaterThan(startNanos);
  }, 180_000);
});
